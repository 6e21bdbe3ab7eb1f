"""A tiny physical table for the sensing tests: rigid platform on N cells, pawns, fingers, hands.

Deliberately independent of ``hardware.sim`` (tests must not tune to one simulator): loads are
summed as (F, Mx, My), shared between cells by the minimum-norm statics, calibrated back to raw
HX711 codes with noise, and optionally corrupted by glitches, missed reads, gaps and faults.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from companion.sensing.layout import DiscLayout
from companion.sensing.trace import RAW_MAX, RAW_MIN, CellSpec, Sample, TraceHeader

MASSES = {"small": 2.1, "medium": 4.6, "large": 7.9}
Load = Callable[[float], tuple[float, float, float]]


def polar(r: float, deg: float) -> tuple[float, float]:
    return r * math.cos(math.radians(deg)), r * math.sin(math.radians(deg))


def kinds(events: list[dict]) -> list[str]:
    return [e["event"] for e in events]


SPOTS = [("small", 120, 10), ("medium", 130, 20), ("large", 110, 350), ("small", 60, 200),
         ("medium", 80, 120)]


def five_pawns(tab) -> list[tuple[str, float, float]]:
    """Five pawns set down 2.5 s apart from 2 s on (the last released at 12.3 s)."""
    pawns = []
    for i, (size, r, deg) in enumerate(SPOTS):
        x, y = polar(r, deg)
        tab.place(2.0 + 2.5 * i, size, x, y)
        pawns.append((size, x, y))
    return pawns


def ramp(t: float, start: float, end: float, edge: float) -> float:
    """0..1 trapezoid with linear edges."""
    if t <= start or t >= end:
        return 0.0
    return min(1.0, (t - start) / edge, (end - t) / edge)


@dataclass
class Table:
    """Scripted loads on a simulated table; ``samples()`` renders the raw trace."""

    cells: int = 4
    rate_hz: float = 80.0
    noise_g: float = 0.1
    seed: int = 1
    glitch_prob: float = 0.0
    miss_prob: float = 0.0
    gap_prob: float = 0.0
    drift_g_per_min: float = 0.0
    loads: list[Load] = field(default_factory=list)
    faults: list[tuple[float, int, str]] = field(default_factory=list)
    # free-running HX711 clocks: cell i converts ``skew_s[i]`` after the row's nominal time, its
    # clock runs ``rate_err[i]`` fast (a fraction), and with ``averaging`` each reading is the mean
    # load over its conversion (one sample period)
    skew_s: tuple[float, ...] | None = None
    rate_err: tuple[float, ...] | None = None
    averaging: bool = False
    # the header's calibration off by these fractions per cell, and its cell positions by (dx, dy) mm
    calib_err: tuple[float, ...] | None = None
    mount_err_mm: tuple[tuple[float, float], ...] | None = None

    def __post_init__(self) -> None:
        rng = random.Random(self.seed)
        if self.cells == 1:
            pos = [(0.0, 0.0)]
        else:
            start = 90.0 if self.cells == 3 else 45.0
            pos = [(120 * math.cos(math.radians(start + 360 * i / self.cells)),
                    120 * math.sin(math.radians(start + 360 * i / self.cells))) for i in range(self.cells)]
        self.pos = pos
        self.gain = [rng.uniform(300, 600) * rng.choice((1, -1)) for _ in pos]
        self.offset = [rng.randint(-200_000, 200_000) for _ in pos]
        calib = self.calib_err or (0.0,) * len(pos)
        mount = self.mount_err_mm or ((0.0, 0.0),) * len(pos)
        specs = tuple(CellSpec(x + dx, y + dy, o, g * (1.0 + c)) for (x, y), o, g, c, (dx, dy) in
                      zip(pos, self.offset, self.gain, calib, mount, strict=True))
        self.header = TraceHeader(self.rate_hz, specs, dict(MASSES), DiscLayout())

    def share(self, f: float, mx: float, my: float) -> list[float]:
        """Minimum-norm statics of a symmetric platform."""
        n = len(self.pos)
        if n == 1:
            return [f]
        sxx = sum(x * x for x, _ in self.pos)
        syy = sum(y * y for _, y in self.pos)
        return [f / n + mx * x / sxx + my * y / syy for x, y in self.pos]

    # ----- scripted actions ---------------------------------------------------------------
    def place(self, t: float, size: str, x: float, y: float, press_g: float = 80.0,
              press_s: float = 0.3, mass: float | None = None) -> float:
        """A pawn set down at ``t`` with a finger press; returns the release time."""
        m = MASSES[size] if mass is None else mass
        end = t + press_s
        self.loads.append(lambda s: (m, m * x, m * y) if s >= t else (0.0, 0.0, 0.0))
        self.loads.append(lambda s: self._point(s, t, end, 0.05, press_g, x, y))
        return end

    def remove(self, t: float, size: str, x: float, y: float) -> None:
        """A hand pinches a pawn (placed earlier) and lifts it off at ``t + 0.2``."""
        m = MASSES[size]
        self.loads.append(lambda s: (-m, -m * x, -m * y) if s >= t + 0.2 else (0.0, 0.0, 0.0))
        self.loads.append(lambda s: self._point(s, t, t + 0.22, 0.04, 15.0, x, y))

    def hand(self, t: float, duration: float, force: float, x: float, y: float) -> None:
        """A hand pressing (or lifting) the disc."""
        self.loads.append(lambda s: self._point(s, t, t + duration, 0.15, force, x, y,
                                                tremor=0.05))

    def bump(self, t: float, amp: float = 25.0) -> None:
        """A knock on the table: a damped 12 Hz ring, no lasting change."""
        def load(s: float) -> tuple[float, float, float]:
            d = s - t
            if d < 0 or d > 0.6:
                return 0.0, 0.0, 0.0
            f = amp * math.exp(-d / 0.08) * math.sin(2 * math.pi * 12 * d)
            return f, f * 30.0, -f * 20.0
        self.loads.append(load)

    def tip(self, t: float, pawns: list[tuple[str, float, float]], excess: float = 1500.0) -> None:
        """The disc rolls towards the pawns' side from ``t`` (the whole load's centre of pressure
        moves out over 150 ms, the rim strikes its stop), then ``pawns`` slide off one by one,
        then the disc rights itself."""
        mx = sum(MASSES[s] * x for s, x, _ in pawns) or 1.0
        my = sum(MASSES[s] * y for s, _, y in pawns)
        norm = math.hypot(mx, my)
        ux, uy = mx / norm, my / norm
        t_fall = [t + 0.4 + 0.15 * i for i in range(len(pawns))]
        t_right = t_fall[-1] + 0.4 if t_fall else t + 0.6

        def load(s: float) -> tuple[float, float, float]:
            if s < t:
                return 0.0, 0.0, 0.0
            k = min(1.0, ((s - t) / 0.15) ** 2)
            if s > t_right:
                k = max(0.0, 1.0 - (s - t_right) / 0.3)
            f, ex, ey = 0.0, excess * k * ux, excess * k * uy
            if 0.15 <= s - t <= 0.165:  # the rim strikes the stop
                f += 60.0
                ex += 60.0 * 150 * ux
                ey += 60.0 * 150 * uy
            for (size, x, y), tf in zip(pawns, t_fall, strict=True):
                if s >= tf:
                    m = MASSES[size]
                    f -= m
                    ex -= m * x
                    ey -= m * y
            return f, ex, ey
        self.loads.append(load)

    def tip_ex(self, t: float, pawns: list[tuple[str, float, float]], *, excess: float = 1500.0,
               creep_s: float = 0.15, strike: str = "hard", first_fall_s: float = 0.4,
               spacing_s: float = 0.15, lie_s: float = 0.4, rights: bool = True,
               on_base: tuple[int, ...] = ()) -> None:
        """A tip with the variations of real tables: the disc's own moment ``excess`` grows over
        ``creep_s`` (slow creep on a rounded support, fast on a pedestal), the rim meets its stop
        as a ``strike`` (``hard`` pulse, felt ``pad``, a ringing platform ``ring``, a ``bounce``, or
        ``none``), ``pawns`` leave in order from ``first_fall_s`` after the onset (``spacing_s``
        apart), those at the indices ``on_base`` land on the base plate just outside the rim and
        stay weighed, and the disc rights itself ``lie_s`` after the last fall (``rights``)."""
        mx = sum(MASSES[s] * x for s, x, _ in pawns) or 1.0
        my = sum(MASSES[s] * y for s, _, y in pawns)
        norm = math.hypot(mx, my)
        ux, uy = mx / norm, my / norm
        t_fall = [t + first_fall_s + spacing_s * i for i in range(len(pawns))]
        t_right = (t_fall[-1] if t_fall else t + creep_s) + lie_s

        def load(s: float) -> tuple[float, float, float]:
            if s < t:
                return 0.0, 0.0, 0.0
            d = s - t
            k = min(1.0, (d / creep_s) ** 2)
            if rights and s > t_right:
                k = max(0.0, 1.0 - (s - t_right) / 0.3)
            f, ex, ey = 0.0, excess * k * ux, excess * k * uy
            ds = d - creep_s  # since the rim met its stop
            pulse = 0.0
            if strike == "hard" and 0.0 <= ds <= 0.015:
                pulse = 60.0
            elif strike == "pad" and 0.0 <= ds <= 0.06:
                pulse = 15.0 * math.sin(math.pi * ds / 0.06)
            elif strike == "ring" and 0.0 <= ds <= 0.5:
                pulse = 25.0 * math.exp(-ds / 0.12) * math.sin(2 * math.pi * 18.0 * ds)
            elif strike == "bounce" and (0.0 <= ds <= 0.015 or 0.09 <= ds <= 0.105):
                pulse = 60.0 if ds <= 0.015 else 25.0
                if 0.015 < ds < 0.09:
                    k *= 0.6
            f += pulse
            ex += pulse * 150 * ux
            ey += pulse * 150 * uy
            for i, ((size, x, y), tf) in enumerate(zip(pawns, t_fall, strict=True)):
                if s >= tf:
                    m = MASSES[size]
                    if i in on_base and s >= tf + 0.08:  # landed on the base plate: weighed again
                        r = math.hypot(x, y) or 1.0
                        bx, by = x / r * 165.0, y / r * 165.0
                        land = 2.0 if s < tf + 0.09 else 0.0  # the landing's impact, then at rest
                        f += m * land
                        ex += m * (bx - x) + m * land * bx
                        ey += m * (by - y) + m * land * by
                        continue
                    f -= m
                    ex -= m * x
                    ey -= m * y
            return f, ex, ey
        self.loads.append(load)

    def fault(self, t: float, cell: int, kind: str) -> None:
        """Cell ``cell`` fails at ``t``: stuck, saturated, disconnected or noisy."""
        self.faults.append((t, cell, kind))

    @staticmethod
    def _point(s: float, start: float, end: float, edge: float, force: float, x: float, y: float,
               tremor: float = 0.0) -> tuple[float, float, float]:
        k = ramp(s, start, end, edge)
        if k == 0.0:
            return 0.0, 0.0, 0.0
        f = force * k * (1 + tremor * math.sin(2 * math.pi * 7 * s))
        return f, f * x, f * y

    # ----- rendering ------------------------------------------------------------------------
    def _grams_at(self, t: float) -> list[float]:
        f = mx = my = 0.0
        for load in self.loads:
            a, b, c = load(t)
            f, mx, my = f + a, mx + b, my + c
        return self.share(f, mx, my)

    def _timed_grams(self, t: float) -> list[float]:
        """Each cell read on its own free-running clock: the row holds each cell's latest finished
        conversion (``skew_s[i]`` is its phase, ``rate_err[i]`` how much faster its clock runs), so
        the cells of one row are up to a period apart; with ``averaging`` a reading is the mean
        load over its conversion."""
        n = len(self.pos)
        skew = self.skew_s or (0.0,) * n
        err = self.rate_err or (0.0,) * n
        out = []
        for i in range(n):
            period = 1.0 / (self.rate_hz * (1.0 + err[i]))
            done = skew[i] + period * math.floor((t - skew[i]) / period)  # the latest conversion's end
            points = [done - period * (j + 0.5) / 4 for j in range(4)] if self.averaging else [done]
            out.append(sum(self._grams_at(p)[i] for p in points) / len(points))
        return out

    def run(self, seconds: float, settings: object = None) -> list[dict]:
        """Feed ``seconds`` of this table through a fresh ``Pipeline`` (with ``settings``, else the
        defaults); the events it reports."""
        from companion.sensing.pipeline import Pipeline

        pipe = Pipeline(self.header, settings=settings)  # type: ignore[arg-type]
        events: list[dict] = []
        for s in self.samples(seconds):
            events.extend(pipe.feed(s))
        events.extend(pipe.finish())
        return events

    def samples(self, seconds: float) -> list[Sample]:
        """Render ``seconds`` of raw samples."""
        rng = random.Random(self.seed + 1)
        out = []
        n = int(seconds * self.rate_hz)
        stuck: dict[int, int] = {}
        timed = self.skew_s is not None or self.rate_err is not None or self.averaging
        for k in range(n):
            t = k / self.rate_hz
            grams = self._grams_at(t) if not timed else self._timed_grams(t)
            raw: list[int | None] = []
            for i, g in enumerate(grams):
                g += self.drift_g_per_min * t / 60.0 + rng.gauss(0, self.noise_g)
                kind = next((kd for tf, c, kd in self.faults if c == i and t >= tf), None)
                if kind == "noisy":
                    g += rng.gauss(0, 40.0)
                v = int(round(self.offset[i] + self.gain[i] * g))
                if kind == "stuck":
                    v = stuck.setdefault(i, v)
                elif kind == "saturated":
                    v = RAW_MAX
                elif kind == "disconnected":
                    v = -1
                elif rng.random() < self.miss_prob:
                    raw.append(None)
                    continue
                elif rng.random() < self.glitch_prob:
                    v = rng.choice([RAW_MAX, RAW_MIN, -1, v ^ (1 << rng.randint(16, 22)),
                                    v + int(self.gain[i] * rng.choice((-60, 60)))])
                raw.append(max(RAW_MIN, min(RAW_MAX, v)))
            if self.gap_prob and rng.random() < self.gap_prob:
                continue
            out.append(Sample(int(round(t * 1000)), tuple(raw)))
        return out


@pytest.fixture
def table() -> Callable[..., Table]:
    """Factory for scripted tables."""
    return Table


def _bench_game(corpus: str, seed: int, cells: int, rate_hz: float) -> tuple[list[dict], list[dict]]:
    """A 4-minute game of the benchmark's corpus (``main``: hardware.sim, ``alt``: the independent
    hardware.sim_alt), with the noise the benchmark gives that seed, replayed through the
    pipeline: (truth, events)."""
    from companion.sensing.pipeline import Pipeline

    if corpus == "alt":
        from hardware.sim_alt.scenarios import generate
    else:
        from hardware.sim.scenarios import generate
    noise_g = 0.05 + 0.2 * (seed // 1000) / 11  # the 12-seed benchmark's noise for this seed
    header, samples, truth = generate(seed, cells=cells, rate_hz=rate_hz, noise_g=noise_g,
                                      kind="game", minutes=4.0)
    pipe = Pipeline(header)
    return truth, [e for s in samples for e in pipe.feed(s)]


def replay_family(seed: int, family: str, *, cells: int, rate_hz: float, noise_g: float, kind: str,
                  minutes: float, until_ms: int | None = None) -> tuple[list[dict], list[dict]]:
    """A trace of a ``hardware.simfamily`` family replayed through the pipeline, up to the first
    sample past ``until_ms`` (the whole trace if None): (truth, events)."""
    from companion.sensing.pipeline import Pipeline
    from hardware.simfamily.generate import generate

    header, samples, truth = generate(seed, family_name=family, cells=cells, rate_hz=rate_hz,
                                      noise_g=noise_g, kind=kind, minutes=minutes)
    pipe = Pipeline(header)
    events: list[dict] = []
    for s in samples:
        events += pipe.feed(s)
        if until_ms is not None and s.t_ms > until_ms:
            break
    return truth, events


@pytest.fixture
def bench_game() -> Callable[[str, int, int, float], tuple[list[dict], list[dict]]]:
    """Replay one game of the benchmark's corpora: ``bench_game(corpus, seed, cells, rate_hz)``."""
    return _bench_game
