"""One short trace per failure mode of issue 14, each with its ground truth (regression tests).

Every function has the signature ``name(seed=0, *, cells=4, rate_hz=80, noise_g=0.1) -> Scenario``
with ``Scenario = (header, samples, truth)`` like ``hardware.simfamily.generate`` (first truth record
``scenario`` with ``"failure_mode": name``). Each scripts a few careful placements, then the failure
mode, then a quiet tail; it checks that the physics really produced the mode (a tip that started
while the finger pressed, a pawn that landed on the base plate, ...) and otherwise retries with the
next derived seed, so the result is deterministic per seed. ``SCENARIOS`` maps names to functions.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from companion.sensing.trace import Sample, TraceHeader
from hardware.simfamily.adc import CellFault
from hardware.simfamily.families import Build, Family, _support, family
from hardware.simfamily.generate import Rig
from hardware.simfamily.table import Table

Scenario = tuple[TraceHeader, list[Sample], list[dict[str, Any]]]
DURATION_MS = 24_000


def _rig(
    name: str,
    seed: int,
    attempt: int,
    cells: int,
    rate_hz: float,
    noise_g: float,
    *,
    fam: str = "pedestal-free",
    support: str = "pedestal",
    rim: str = "felt",
    creep: bool = False,
    ledge: float | None = None,
    clock: str | None = None,
    **sup_changes: float,
) -> Rig:
    base: Family = family(fam)
    rng = random.Random(f"scenario/{name}/{seed}/{attempt}/build")
    disc_mass = rng.uniform(280, 400)
    sup = _support(support, rim, rng, disc_mass, creep)
    if sup_changes:
        sup = replace(sup, **sup_changes)
    build = Build(
        base.name,
        sup,
        disc_mass,
        ledge if ledge is not None else 150.0,
        clock or ("sync" if base.clock == "sync" else "free"),
        0.0,
        base.pinch_ms,
    )
    return Rig(
        base,
        f"{name}/{seed}/{attempt}",
        cells=cells,
        rate_hz=rate_hz,
        noise_g=noise_g,
        duration_ms=DURATION_MS,
        build=build,
    )


def _load_towards(table: Table, angle: float, ratio: float) -> None:
    """Careful placements on one side until the moment is about ``ratio`` of what the disc holds."""
    rng = table.rng
    for _ in range(12):
        mx, my = table.moment()
        if math.hypot(mx, my) >= ratio * table.sup.hold(table.weight()) * 0.85:
            break
        r = rng.uniform(70, 120)
        a = angle + rng.gauss(0, 0.25)
        x, y = r * math.cos(a), r * math.sin(a)
        size = rng.choice(("small", "medium"))
        trial = [*table.pawns, table.new_pawn(size, x, y)]
        table.next_pid -= 1
        if not table.balanced(trial, ratio, (4.0, x, y)):
            continue
        table.place(size, x, y, press_g=rng.uniform(1, 3), slide_ok=False)
        table.t += rng.uniform(800, 1500)


def _spare(table: Table, size: str, x: float, y: float) -> float:
    """How much more moment the disc would hold with a pawn of ``size`` at (x, y) (g*mm, < 0: it tips)."""
    m = table.masses[size]
    mx, my = table.moment()
    return table.sup.hold(table.weight() + m) - math.hypot(mx + m * x, my + m * y)


def _finish(rig: Rig, name: str, seed: int, fault: CellFault | None = None) -> Scenario:
    rig.duration_ms = max(rig.duration_ms, rig.table.t + 3000)  # the whole episode, settled
    meta = rig.meta("failure_mode", seed, rig.duration_ms / 60000)
    meta["failure_mode"] = name
    return rig.finish(meta, rig.sample(fault=fault))


def _tips(truth: list[dict]) -> list[dict]:
    return [e for e in truth if e.get("event") == "tipped"]


def _retry(
    name: str, seed: int, build: Callable[[int], Scenario], ok: Callable[[list[dict]], bool]
) -> Scenario:
    for attempt in range(40):
        sc = build(attempt)
        if ok(sc[2]):
            return sc
    raise RuntimeError(f"scenario {name} (seed {seed}): the physics did not produce it in 40 attempts")


def _tip_scenario(
    name: str,
    seed: int,
    cells: int,
    rate_hz: float,
    noise_g: float,
    *,
    cause: str,
    press_g: float,
    steady: bool,
    ratio: float,
    excess: float,
    **rig_kw: Any,
) -> Scenario:
    def build(attempt: int) -> Scenario:
        rig = _rig(name, seed, attempt, cells, rate_hz, noise_g, **rig_kw)
        table = rig.table
        angle = table.rng.uniform(0, 2 * math.pi)
        _load_towards(table, angle, ratio)
        # the pawn that breaks the balance, at a radius where it leaves ``excess`` (of the hold) over
        size = "large" if excess > 0 else "medium"
        for r in range(30, 146, 2):
            x, y = r * math.cos(angle), r * math.sin(angle)
            if _spare(table, size, x, y) < -excess * table.sup.hold(table.weight()):
                break
        table.place(
            size, x, y, press_g=press_g, press_ms=table.rng.uniform(200, 400), steady=steady, slide_ok=False
        )
        table.t += 3000
        return _finish(rig, name, seed)

    return _retry(name, seed, build, lambda tr: any(e.get("cause") == cause for e in _tips(tr)))


def tip_during_press(seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1) -> Scenario:
    """The finger pressing the pawn adds the moment that tips the disc: the tip starts before the release."""
    return _tip_scenario(
        "tip_during_press",
        seed,
        cells,
        rate_hz,
        noise_g,
        cause="press",
        press_g=60,
        steady=False,
        ratio=0.6,
        excess=-0.5,
    )


def tip_at_release(seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1) -> Scenario:
    """The placing hand steadies the far side while the finger presses; the disc goes as it lets go."""
    return _tip_scenario(
        "tip_at_release",
        seed,
        cells,
        rate_hz,
        noise_g,
        cause="release",
        press_g=4,
        steady=True,
        ratio=0.75,
        excess=0.05,
    )


def tip_after_slow_creep(
    seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1
) -> Scenario:
    """A compliant support top creeps under a disc loaded just within its limit; it tips several hundred
    ms after the release."""

    def build(attempt: int) -> Scenario:
        rig = _rig(
            "tip_after_slow_creep",
            seed,
            attempt,
            cells,
            rate_hz,
            noise_g,
            creep=True,
            creep_ms=500.0,
            creep_frac=0.2,
        )
        table = rig.table
        angle = table.rng.uniform(0, 2 * math.pi)
        _load_towards(table, angle, 0.6)
        hold = table.sup.hold(table.weight())
        for r in range(30, 146, 1):
            x, y = r * math.cos(angle), r * math.sin(angle)
            if _spare(table, "large", x, y) < 0.1 * hold:
                break
        if not 0.02 * hold < _spare(table, "large", x, y) < 0.12 * hold:
            return _finish(rig, "tip_after_slow_creep", seed)
        table.place("large", x, y, press_g=0.3, steady=False, slide_ok=False)
        table.t += 3000
        return _finish(rig, "tip_after_slow_creep", seed)

    def ok(truth: list[dict]) -> bool:
        return any(
            e.get("cause") == "creep"
            and e["t_ms"] - next(p["t_ms"] for p in reversed(truth) if p.get("event") == "placed") >= 200
            for e in _tips(truth)
        )

    return _retry("tip_after_slow_creep", seed, build, ok)


def fast_press_skewed_clocks(
    seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1
) -> Scenario:
    """Free-running HX711 clocks (cells up to a period apart, rates 3 % apart) and fast, hard presses
    (attack ~10 ms): a moment jump that is only timing. No tip."""

    def build(attempt: int) -> Scenario:
        rig = _rig(
            "fast_press_skewed_clocks",
            seed,
            attempt,
            cells,
            rate_hz,
            noise_g,
            fam="pedestal-free",
            clock="free",
            flat_mm=6.0,
        )
        table = rig.table
        for k in range(5):
            a = table.rng.uniform(0, 2 * math.pi)
            r = table.rng.uniform(30, 70)
            x, y = r * math.cos(a), r * math.sin(a)
            size = ("small", "medium", "large")[k % 3]
            f_max = max(5.0, 0.6 * _spare(table, size, x, y) / r)
            table.place(size, x, y, press_g=min(250.0, f_max), press_ms=120, slide_ok=False)
            table.t += 2500
        return _finish(rig, "fast_press_skewed_clocks", seed)

    def ok(truth: list[dict]) -> bool:
        periods = [c["period_ms"] for c in truth[0]["clocks"]]
        return not _tips(truth) and max(periods) / min(periods) > 1.01

    return _retry("fast_press_skewed_clocks", seed, build, ok)


def first_pawn_falls_within_100ms(
    seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1
) -> Scenario:
    """A hard press at the rim throws the disc over fast: a pawn at the low rim leaves within 100 ms."""

    def build(attempt: int) -> Scenario:
        rig = _rig(
            "first_pawn_falls_within_100ms",
            seed,
            attempt,
            cells,
            rate_hz,
            noise_g,
            support="pivot",
            rim="hard",
        )
        table = rig.table
        rng = table.rng
        angle = rng.uniform(0, 2 * math.pi)
        x, y = 146 * math.cos(angle), 146 * math.sin(angle)
        table.place("small", x, y, press_g=2, slide_ok=False)
        table.pawns[-1].mu_s, table.pawns[-1].mu_k = 0.05, 0.03
        table.t += 1500
        a2 = angle + rng.uniform(-0.05, 0.05)
        table.place(
            "large", 140 * math.cos(a2), 140 * math.sin(a2), press_g=rng.uniform(150, 250), slide_ok=False
        )
        table.t += 3000
        return _finish(rig, "first_pawn_falls_within_100ms", seed)

    def ok(truth: list[dict]) -> bool:
        tips = _tips(truth)
        falls = [e for e in truth if e.get("event") == "fell"]
        return bool(tips) and any(0 <= f["t_ms"] - tips[0]["t_ms"] <= 100 for f in falls)

    return _retry("first_pawn_falls_within_100ms", seed, build, ok)


def _tip_with(
    name: str,
    seed: int,
    cells: int,
    rate_hz: float,
    noise_g: float,
    ok: Callable[[list[dict]], bool],
    uphill: int = 0,
    **rig_kw: Any,
) -> Scenario:
    def build(attempt: int) -> Scenario:
        rig = _rig(name, seed, attempt, cells, rate_hz, noise_g, **rig_kw)
        table = rig.table
        rng = table.rng
        angle = rng.uniform(0, 2 * math.pi)
        for _ in range(uphill):  # pawns on the high side that will slide down the slope
            r = rng.uniform(30, 60)
            a = angle + math.pi + rng.uniform(-0.3, 0.3)
            table.place("medium", r * math.cos(a), r * math.sin(a), press_g=1, slide_ok=False)
            tan_stop = math.tan(table.sup.stop_rad)
            table.pawns[-1].mu_s, table.pawns[-1].mu_k = 0.97 * tan_stop, 0.93 * tan_stop
            table.t += 800
        _load_towards(table, angle, 0.7)
        for _ in range(3):  # a few pawns near the low rim, ready to go
            a = angle + rng.uniform(-0.4, 0.4)
            r = rng.uniform(120, 140)
            x, y = r * math.cos(a), r * math.sin(a)
            if _spare(table, "small", x, y) > 0:
                table.place("small", x, y, press_g=2, slide_ok=False)
                table.t += 800
        for r in range(30, 146, 2):
            x, y = r * math.cos(angle), r * math.sin(angle)
            if _spare(table, "large", x, y) < -0.2 * table.sup.hold(table.weight()):
                break
        table.place("large", x, y, press_g=5, slide_ok=False)
        table.t += 3000
        return _finish(rig, name, seed)

    return _retry(name, seed, build, ok)


def _has(event: str, **fields: Any) -> Callable[[list[dict]], bool]:
    return lambda truth: any(
        e.get("event") == event and all(e.get(k) == v for k, v in fields.items()) for e in truth
    )


def pawn_lands_on_base_plate(
    seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1
) -> Scenario:
    """A pawn that falls off lands on the base plate (wider than the disc) and stays weighed there."""
    return _tip_with(
        "pawn_lands_on_base_plate",
        seed,
        cells,
        rate_hz,
        noise_g,
        lambda tr: any(
            e.get("event") == "fell" and e.get("lands_on") == "base" and "off_base_t_ms" not in e for e in tr
        ),
        ledge=185.0,
    )


def hard_rim_strike(seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1) -> Scenario:
    """The rim hits a hard stop: a sharp pulse."""
    return _tip_with(
        "hard_rim_strike", seed, cells, rate_hz, noise_g, _has("rim_contact", rim="hard"), rim="hard"
    )


def felt_pad_rim(seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1) -> Scenario:
    """The rim lands on a felt pad: no sharp strike at all."""
    return _tip_with(
        "felt_pad_rim", seed, cells, rate_hz, noise_g, _has("rim_contact", rim="felt"), rim="felt"
    )


def ringing_rim_strike(
    seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1
) -> Scenario:
    """The strike sets the platform ringing at 8-40 Hz for a few hundred ms."""
    return _tip_with("ringing_rim_strike", seed, cells, rate_hz, noise_g, _has("ringing"), rim="ringing")


def bouncing_rim(seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1) -> Scenario:
    """A springy stop: the disc bounces back up once or twice before it lies on the rim."""
    return _tip_with(
        "bouncing_rim", seed, cells, rate_hz, noise_g, _has("rim_contact", rim="bounce"), rim="bounce"
    )


def survivors_slide_downhill(
    seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1
) -> Scenario:
    """Pawns that stay on the tipped disc slide downhill and are found elsewhere after the re-levelling."""
    return _tip_with(
        "survivors_slide_downhill",
        seed,
        cells,
        rate_hz,
        noise_g,
        _has("moved"),
        uphill=2,
        support="pedestal",
        rim="felt",
    )


def hand_relevels_tipped_disc(
    seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1
) -> Scenario:
    """The disc stays tipped; a player lifts its low rim and brings it level (not a rule-breaking hand)."""
    return _tip_with(
        "hand_relevels_tipped_disc",
        seed,
        cells,
        rate_hz,
        noise_g,
        _has("relevel", by="hand"),
        support="rocker",
    )


def rocker_large_residual_moment(
    seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1
) -> Scenario:
    """A rocker hub with a high centre of mass: the tipped disc leaves thousands of g*mm on the cells."""
    return _tip_with(
        "rocker_large_residual_moment",
        seed,
        cells,
        rate_hz,
        noise_g,
        lambda tr: bool(_tips(tr)),
        support="rocker",
        com_mm=70.0,
        top_mm=74.0,
        curve_mm=20.0,
    )


def spring_pivot_rights_itself(
    seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1
) -> Scenario:
    """A spring-return pivot: it tips, pawns fall, the spring brings the disc back by itself."""
    return _tip_with(
        "spring_pivot_rights_itself",
        seed,
        cells,
        rate_hz,
        noise_g,
        _has("relevel", by="self"),
        support="pivot",
        spring_gmm_per_rad=4000.0,
        preload_gmm=1400.0,
    )


def _quiet_play(rig: Rig, n: int = 3) -> None:
    table = rig.table
    for _ in range(n):
        a = table.rng.uniform(0, 2 * math.pi)
        r = table.rng.uniform(30, 90)
        x, y = r * math.cos(a), r * math.sin(a)
        size = table.best_size(["small", "medium", "large"], x, y)
        if _spare(table, size, x, y) > 0.4 * table.sup.hold(table.weight()):
            table.place(size, x, y, press_g=8, slide_ok=False)
            table.t += 1500


def long_pinch(seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1) -> Scenario:
    """A pawn is lifted off with a pinch that grips it for about a second."""

    def build(attempt: int) -> Scenario:
        rig = _rig("long_pinch", seed, attempt, cells, rate_hz, noise_g)
        _quiet_play(rig)
        table = rig.table
        if table.pawns:
            table.remove(table.pawns[-1], pinch_ms=rig.rng_play.uniform(850, 1050))
        table.t += 2000
        return _finish(rig, "long_pinch", seed)

    return _retry(
        "long_pinch",
        seed,
        build,
        lambda tr: any(e.get("event") == "removed" and e["pinch_ms"] >= 800 for e in tr),
    )


def _hand(name: str, kind: str, seed: int, cells: int, rate_hz: float, noise_g: float) -> Scenario:
    def build(attempt: int) -> Scenario:
        rig = _rig(name, seed, attempt, cells, rate_hz, noise_g)
        _quiet_play(rig)
        rig.table.hand(kind, duration_ms=rig.rng_play.uniform(1500, 3500))
        rig.table.t += 2000
        return _finish(rig, name, seed)

    return _retry(name, seed, build, _has("hand", kind=kind))


def two_finger_steadying(
    seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1
) -> Scenario:
    """Two fingers steady the disc for a couple of seconds: tens of grams."""
    return _hand("two_finger_steadying", "fingers", seed, cells, rate_hz, noise_g)


def palm_steadying(seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1) -> Scenario:
    """A palm rests on the disc: hundreds of grams."""
    return _hand("palm_steadying", "palm", seed, cells, rate_hz, noise_g)


def miscalibrated_cells(
    seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1
) -> Scenario:
    """Every cell's calibration is 1-2 % off and the cells sit ~3 mm from their header positions."""

    def build(attempt: int) -> Scenario:
        rig = _rig(
            "miscalibrated_cells", seed, attempt, cells, rate_hz, noise_g, fam="creep-felt", clock="free"
        )
        _quiet_play(rig, 6)
        rig.table.t += 1500
        return _finish(rig, "miscalibrated_cells", seed)

    return _retry(
        "miscalibrated_cells", seed, build, lambda tr: sum(e.get("event") == "placed" for e in tr) >= 3
    )


def cell_fault(
    seed: int = 0, *, cells: int = 4, rate_hz: float = 80, noise_g: float = 0.1, kind: str = "stuck"
) -> Scenario:
    """A cell fails (``kind``: stuck, saturated, disconnected, noisy) halfway through quiet play."""
    rig = _rig("cell_fault", seed, 0, cells, rate_hz, noise_g)
    _quiet_play(rig)
    fault = CellFault(rig.rng_play.randrange(cells), kind, int(max(rig.table.t, 10_000)))
    rig.table.truth.append({"event": "fault", "t_ms": fault.t_ms, "cell": fault.cell, "kind": kind})
    return _finish(rig, "cell_fault", seed, fault)


SCENARIOS: dict[str, Callable[..., Scenario]] = {
    f.__name__: f
    for f in (
        tip_during_press,
        tip_at_release,
        tip_after_slow_creep,
        fast_press_skewed_clocks,
        first_pawn_falls_within_100ms,
        pawn_lands_on_base_plate,
        hard_rim_strike,
        felt_pad_rim,
        ringing_rim_strike,
        bouncing_rim,
        survivors_slide_downhill,
        hand_relevels_tipped_disc,
        rocker_large_residual_moment,
        spring_pivot_rights_itself,
        long_pinch,
        two_finger_steadying,
        palm_steadying,
        miscalibrated_cells,
        cell_fault,
    )
}
