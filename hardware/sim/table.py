"""``TableSimulator``: the live, seedable simulation of the whole table (disc, pawns, cells, HX711s).

Actions (``place``, ``press``, ``remove_last``...) are scheduled "now" and unfold over the next
samples; ``step()`` advances one HX711 sample period and returns the logged ``Sample``. Player
actions are queued one after another (one pair of hands) and wait for the disc to be level.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Callable
from typing import Any

from companion.sensing.layout import DiscLayout
from companion.sensing.trace import CellSpec, Sample, TraceHeader
from hardware.sim.disc import FOOT_RADIUS_MM, Disc, DiscParams, Pawn
from hardware.sim.hx711 import FAULT_KINDS, Hx711Cell, Hx711Params
from hardware.sim.statics import PlatformStatics, default_cell_positions
from hardware.sim.transients import Contact, Transient, finger_press, hand_hold, table_bump

SIZES = ("small", "medium", "large")


def random_pawn_means(rng: random.Random) -> dict[str, float]:
    """A real-looking pawn set; in about half the sets two mediums weigh about one large."""
    small = rng.uniform(1.9, 2.4)
    medium = rng.uniform(4.2, 5.0)
    large = 2 * medium * rng.uniform(0.97, 1.03) if rng.random() < 0.5 else rng.uniform(7.4, 8.6)
    return {"small": round(small, 3), "medium": round(medium, 3), "large": round(large, 3)}


class TableSimulator:
    """A simulated Dingo Disc table producing raw HX711 samples and the ground truth."""

    def __init__(self, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1, seed: int = 0,
                 glitches: bool = True, gaps: bool = True, drift: bool = True,
                 layout: DiscLayout | None = None, cell_radius_mm: float = 120.0,
                 cell_rotation_deg: float = 0.0, mount_error_mm: float = 1.5) -> None:
        if not isinstance(rate_hz, int | float) or not 1 <= rate_hz <= 1000:
            raise ValueError(f"rate_hz must be between 1 and 1000, got {rate_hz!r}")
        if not isinstance(noise_g, int | float) or not 0 <= noise_g <= 50:
            raise ValueError(f"noise_g must be between 0 and 50 grams, got {noise_g!r}")
        self._rng = rng = random.Random(seed)
        self.seed = seed
        self.layout = layout or DiscLayout()
        positions = default_cell_positions(cells, cell_radius_mm, cell_rotation_deg)
        # the cells sit where they were mounted, a little off the nominal positions in the header
        self._statics = PlatformStatics([(x + rng.gauss(0, mount_error_mm), y + rng.gauss(0, mount_error_mm))
                                         for x, y in positions])
        self._cells: list[Hx711Cell] = []
        specs = []
        for x, y in positions:
            gain = rng.uniform(200, 900) * rng.choice((1, -1))
            params = Hx711Params(
                offset=rng.randint(-400_000, 400_000), counts_per_gram=gain,
                noise_g=noise_g * rng.uniform(0.8, 1.2),
                drift_g_per_min=rng.uniform(-0.1, 0.1) if drift else 0.0,
                walk_g_per_sqrt_s=0.01 if drift else 0.0,
                glitch_prob=1 / 1500 if glitches else 0.0, miss_prob=1 / 1000 if glitches else 0.0)
            self._cells.append(Hx711Cell(params, rng))
            # calibration as a user would measure it: within 0.3 % of the truth
            specs.append(CellSpec(x, y, float(params.offset),
                                  round(gain * (1 + rng.gauss(0, 0.001)), 3)))
        self.pawn_mass_g = random_pawn_means(rng)
        self.header = TraceHeader(float(rate_hz), tuple(specs), dict(self.pawn_mass_g), self.layout,
                                  {"generator": "hardware.sim/1", "seed": seed})
        self._period = 1.0 / rate_hz * (1 + rng.uniform(-0.02, 0.02))
        self._n_sub = max(2, round(self._period / 0.02))  # the HX711 averages over its conversion
        self._gaps = gaps
        self._k = 0
        self._t = 0.0
        self._last_row_ms = 0
        self._queue: list[tuple[float, int, Callable[[float], None]]] = []
        self._seq = 0
        self._busy_until = 0.0
        self._transients: list[Transient] = []
        self._truth: list[dict[str, Any]] = []
        self._last_placed: Pawn | None = None
        self.disc = Disc(DiscParams.random(rng), rng, self._truth.append, self._transients.append)

    # ----- scheduling -----------------------------------------------------------------------------
    def _at(self, t: float, fn: Callable[[float], None]) -> None:
        self._seq += 1
        heapq.heappush(self._queue, (t, self._seq, fn))

    def _player(self, lead_s: float, fn: Callable[[float], float]) -> None:
        """Queue a player action: starts after the previous one, once the disc is level and still."""
        start = max(self._t, self._busy_until) + lead_s
        self._busy_until = start + 1.0

        def run(t: float) -> None:
            if not self.disc.quiet:
                self._busy_until = max(self._busy_until, t + 0.2)
                self._at(t + 0.1, run)
                return
            self._busy_until = max(self._busy_until, fn(t))
        self._at(start, run)

    def _hold(self, contact: Contact) -> None:
        """Add a contact that holds the disc while it lasts."""
        self._transients.append(contact)
        self.disc.held += 1

        def release(t: float) -> None:
            self.disc.held -= 1
            self.disc.check_tip(t)
        self._at(contact.end_s, release)

    def _emit(self, event: dict[str, Any]) -> None:
        self._truth.append(event)

    # ----- actions ------------------------------------------------------------------------------
    def place(self, size: str, x_mm: float, y_mm: float) -> None:
        """A player sets a pawn of ``size`` down at (x, y): hand, finger press, release."""
        if size not in SIZES:
            raise ValueError(f"unknown pawn size {size!r}; expected one of {', '.join(SIZES)}")
        for name, v in (("x_mm", x_mm), ("y_mm", y_mm)):
            if not isinstance(v, int | float) or not math.isfinite(v):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
        if math.hypot(x_mm, y_mm) > self.layout.radius_mm:
            raise ValueError(f"({x_mm}, {y_mm}) is off the disc (radius {self.layout.radius_mm} mm)")
        mass = self.pawn_mass_g[size] * (1 + max(-0.05, min(0.05, self._rng.gauss(0, 0.02))))

        def touch(t: float) -> float:
            pawn = self.disc.add_pawn(size, mass, float(x_mm), float(y_mm))
            self._last_placed = pawn
            press = finger_press(self._rng, x_mm, y_mm, t)
            self._hold(press)

            def release(t2: float) -> None:
                zone, number = self.layout.locate(x_mm, y_mm)
                on_line = self.layout.locate(x_mm, y_mm, FOOT_RADIUS_MM[size]) == (None, None)
                self._emit({"event": "placed", "t_ms": int(round(t2 * 1000)), "size": size,
                            "mass_g": round(mass, 3), "x_mm": round(float(x_mm), 2),
                            "y_mm": round(float(y_mm), 2), "zone": zone, "number": number,
                            "on_line": on_line, "pid": pawn.pid})
            self._at(press.end_s, release)
            return press.end_s + 0.2
        self._player(self._rng.uniform(0.4, 0.9), touch)

    def place_at(self, size: str, zone: str, number: int) -> None:
        """Place a pawn a few mm from the centre of ``zone``/``number``."""
        x, y = self.layout.centre_of(zone, number)
        self.place(size, x + self._rng.gauss(0, 3), y + self._rng.gauss(0, 3))

    def press(self, x_mm: float, y_mm: float, force_g: float = 300, duration_ms: float = 1500) -> None:
        """A hand presses (or, with negative force, lifts) the disc at (x, y): a rule violation."""
        if not isinstance(force_g, int | float) or not math.isfinite(force_g) or not 0 < abs(force_g) <= 5000:
            raise ValueError(f"force_g must be non-zero and at most 5000 g in size, got {force_g!r}")
        if not isinstance(duration_ms, int | float) or not 50 <= duration_ms <= 60_000:
            raise ValueError(f"duration_ms must be between 50 and 60000, got {duration_ms!r}")

        def start(t: float) -> float:
            hand = hand_hold(self._rng, x_mm, y_mm, t, float(force_g), duration_ms / 1000)
            self._hold(hand)
            self._emit({"event": "hand", "t_ms": int(round(t * 1000)), "duration_ms": int(duration_ms),
                        "force_g": round(float(force_g), 1)})
            self._at(hand.end_s + 0.3, lambda t2: self._emit(
                {"event": "settled", "t_ms": int(round(t2 * 1000)), "after": "hand"})
                if self.disc.state == "level" else None)
            return hand.end_s + 0.3
        self._player(self._rng.uniform(0.1, 0.4), start)

    def bump(self, amp_g: float | None = None) -> None:
        """Someone knocks the table now (a short ringing of the platform, no lasting change)."""
        self._transients.append(table_bump(self._rng, self._t, amp_g))
        self._emit({"event": "bump", "t_ms": int(round(self._t * 1000))})

    def knock_over(self, onto_base: bool = False) -> None:
        """Force a tip now (as if the disc were jolted), whatever the balance; ``onto_base``: the
        pawns that fall in this tip land on the base plate and stay there, still weighed."""
        self.disc.advance(self._t)
        self.disc.knock_over(self._t, onto_base=onto_base)

    def pick_up_base(self) -> int:
        """A player takes the pawns lying on the base plate away, one after another (a light pinch
        each, then its weight goes: truth ``picked_up``); returns how many will go."""
        n = len(self.disc.base_pawns)
        for _ in range(n):
            def start(t: float) -> float:
                landed = [b for b in self.disc.base_pawns if b.lands_s <= t]
                if not landed:
                    return t
                item = landed[-1]
                pinch = Contact(item.x_mm, item.y_mm, self._rng.uniform(5, 40), t,
                                t + self._rng.uniform(0.1, 0.3), 0.04, 0.04)
                self._transients.append(pinch)  # on the base plate: it does not hold the disc

                def lift(t2: float) -> None:
                    if item in self.disc.base_pawns:
                        self.disc.pick_up_base(item)
                        self._emit({"event": "picked_up", "t_ms": int(round(t2 * 1000)),
                                    "size": item.pawn.size, "mass_g": round(item.pawn.mass_g, 3),
                                    "pid": item.pawn.pid})
                self._at(pinch.end_s - 0.02, lift)
                return pinch.end_s + 0.2
            self._player(self._rng.uniform(0.4, 0.8), start)
        return n

    def remove_last(self) -> None:
        """A player lifts the most recently placed pawn still on the disc off by hand."""
        def start(t: float) -> float:
            pawns = self.disc.on_disc()
            if not pawns:
                return t
            pawn = pawns[-1]
            pinch = Contact(pawn.x_mm, pawn.y_mm, self._rng.uniform(5, 40), t,
                            t + self._rng.uniform(0.1, 0.3), 0.04, 0.04)
            self._hold(pinch)

            def lift(t2: float) -> None:
                if not pawn.on_disc:
                    return
                self.disc.lift_pawn(pawn)
                self._emit({"event": "removed", "t_ms": int(round(t2 * 1000)), "size": pawn.size,
                            "mass_g": round(pawn.mass_g, 3), "pid": pawn.pid})
                self.disc.check_tip(t2)
            self._at(pinch.end_s - 0.02, lift)
            return pinch.end_s + 0.2
        self._player(self._rng.uniform(0.4, 0.8), start)

    def clear_disc(self) -> int:
        """A player takes every pawn off the disc, one after another, then those lying on the base
        plate (:meth:`pick_up_base`); returns how many will go."""
        n = len(self.disc.on_disc())
        for _ in range(n):
            self.remove_last()
        return n + (self.pick_up_base() if self.disc.base_pawns else 0)

    def creep_last(self, delay_s: float) -> None:
        """The pawn placed last slides off the rim by itself ``delay_s`` after the hands are free
        (if it is still on the level disc by then)."""
        def go(t: float) -> None:
            pawn = self._last_placed
            if pawn is not None and pawn.on_disc and self.disc.state == "level" and self.disc.held == 0:
                self.disc.advance(t)
                self.disc.creep_off(pawn, t)
        self._at(max(self._t, self._busy_until) + delay_s, go)

    def set_fault(self, cell: int, kind: str | None) -> None:
        """Make cell ``cell`` stuck/saturated/disconnected/noisy from now on (None clears it)."""
        if not isinstance(cell, int) or not 0 <= cell < len(self._cells):
            raise ValueError(f"cell must be 0..{len(self._cells) - 1}, got {cell!r}")
        if kind is not None and kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; expected one of {', '.join(FAULT_KINDS)}")
        self._cells[cell].set_fault(kind)
        if kind is not None:
            self._emit({"event": "fault", "t_ms": int(round(self._t * 1000)), "cell": cell, "kind": kind})

    # ----- time ---------------------------------------------------------------------------------
    @property
    def t_ms(self) -> int:
        """Simulated time of the last sample, in ms."""
        return int(round(self._t * 1000))

    @property
    def idle(self) -> bool:
        """True when no player action is pending and the disc is level and settled."""
        return self._busy_until <= self._t and self.disc.quiet and self.disc.held == 0

    def _run_until(self, t: float) -> None:
        while self._queue and self._queue[0][0] <= t:
            when, _, fn = heapq.heappop(self._queue)
            self.disc.advance(when)
            fn(when)
        self.disc.advance(t)

    def _load(self, t: float) -> tuple[float, float, float]:
        f, mx, my = self.disc.load(t)
        for tr in self._transients:
            a, b, c = tr.load(t)
            f += a
            mx += b
            my += c
        return f, mx, my

    def step(self) -> Sample:
        """Advance to the next logged sample (dropped rows are skipped) and return it."""
        rng = self._rng
        while True:
            t_prev = self._t
            self._k += 1
            t = self._k * self._period
            sums = [0.0] * len(self._cells)
            for j in range(self._n_sub):
                ts = t_prev + (t - t_prev) * (j + 1) / self._n_sub
                self._run_until(ts)
                for i, g in enumerate(self._statics.cell_forces(*self._load(ts))):
                    sums[i] += g
            self._t = t
            if self._transients:
                self._transients[:] = [tr for tr in self._transients if not tr.done(t)]
            raw = tuple(cell.read(s / self._n_sub, t) for cell, s in zip(self._cells, sums, strict=True))
            if self._gaps and rng.random() < 1 / 400:
                continue  # dropped row
            row_ms = max(self._last_row_ms, int(round(t * 1000 + rng.gauss(0, 0.8))))
            self._last_row_ms = row_ms
            return Sample(row_ms, raw)

    def run_for(self, ms: float) -> list[Sample]:
        """Advance ``ms`` milliseconds; returns the samples logged meanwhile."""
        end = self._t + ms / 1000
        out = []
        while self._t + self._period <= end + 1e-9:
            out.append(self.step())
        return out

    def long_gap(self, ms: float) -> None:
        """The host misses ``ms`` of rows (e.g. a USB hiccup): time passes, nothing is logged."""
        gaps, self._gaps = self._gaps, False
        end = self._t + ms / 1000
        while self._t + self._period <= end:
            self.step()
        self._gaps = gaps

    @property
    def truth(self) -> list[dict[str, Any]]:
        """Ground-truth events so far (JSON-ready dicts, spec vocabulary plus ``bump``)."""
        return sorted(self._truth, key=lambda e: e["t_ms"])

    @property
    def pawns(self) -> list[dict[str, Any]]:
        """The pawns on the disc now: size, mass_g, x_mm, y_mm."""
        return [{"size": p.size, "mass_g": round(p.mass_g, 3), "x_mm": round(p.x_mm, 2),
                 "y_mm": round(p.y_mm, 2)} for p in self.disc.on_disc()]

    @property
    def base_pawns(self) -> list[dict[str, Any]]:
        """The pawns lying on the base plate (fallen there, still weighed): size, mass_g, x_mm, y_mm."""
        return [{"size": b.pawn.size, "mass_g": round(b.pawn.mass_g, 3), "x_mm": round(b.x_mm, 2),
                 "y_mm": round(b.y_mm, 2)} for b in self.disc.base_pawns]
