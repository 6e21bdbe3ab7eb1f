"""Unit tests of the composed tip tests (``companion.sensing.tips``, ``residual``): ``ResidualTest`` and
``TipTests`` fed directly with samples, a ``Signals`` view and a ``PressView``, no ``Pipeline``."""

from __future__ import annotations

import math
import random

from companion.sensing.layout import DiscLayout
from companion.sensing.residual import ResidualTest
from companion.sensing.settings import SensingSettings
from companion.sensing.tips import TipTests
from companion.sensing.tipviews import PressView, Signals
from companion.sensing.trace import CellSpec, TraceHeader

from .conftest import MASSES

DT = 12.5  # ms (80 Hz)
BASE = (300.0, 200.0, -150.0)  # the level before the segment: F, Mx, My
ZERO = (0.0, 0.0)


def _residual() -> ResidualTest:
    return ResidualTest(block_n=4, dt=DT, cells_r_mm=120.0, arrive_g=1.2)


def _press(t_ms: float, force: float, *, start: float = 100.0, attack: float = 30.0,
           tremor: float = 0.0) -> float:
    """A pawn (7.9 g) landing at ``start`` and a finger pressing it with ``force``."""
    if t_ms < start:
        return 0.0
    k = min(1.0, (t_ms - start) / attack)
    return MASSES["large"] + force * k * (1.0 + tremor * math.sin(2 * math.pi * 9.0 * t_ms / 1000.0))


def _run(residual: ResidualTest, n: int, load, noise: float = 8.0, seed: int = 1) -> list[float]:
    """Feed ``n`` samples of ``load(t) -> (dF, dMx, dMy)`` above ``BASE``; the times it fired."""
    rng = random.Random(seed)
    fired = []
    for k in range(n):
        t = k * DT
        f, mx, my = load(t)
        out = residual.step(BASE[0] + f + rng.gauss(0, 0.05), BASE[1] + mx + rng.gauss(0, noise),
                            BASE[2] + my + rng.gauss(0, noise), BASE, ZERO, sigma_blk=6.0, floor=140.0)
        if out > 0.0:
            fired.append(t)
    return fired


P = (110.0, -60.0)  # where the pawn stands (the finger presses it there)


def test_a_finger_pressing_at_a_fixed_point_explains_its_moment_whatever_its_force() -> None:
    """A finger presses a pawn hard (120 g) with a 9 Hz tremor of 15 %: the moment follows the
    force at the pawn's place, and the residual test never fires (the old gate muted all tests
    while the force was beyond a pawn; this test explains the press instead)."""
    def load(t: float) -> tuple[float, float, float]:
        f = _press(t, 120.0, tremor=0.15)
        return f, f * P[0], f * P[1]
    assert _run(_residual(), 160, load) == []


def test_the_disc_going_over_while_the_finger_still_presses_is_seen_by_its_residual() -> None:
    """A light finger (4 g, as a player presses a pawn near the disc's limit) still presses, and
    from 600 ms the disc's own moment grows outwards along the load (600 g*mm/s): fired within
    900 ms of that start (the CUSUM needs twelve sigmas), with the finger still on the pawn.
    (The residual a tip needs grows with the contact's force: its centre of pressure is known
    to ``WANDER_MM``.)"""
    ux, uy = (BASE[1] + 8 * P[0]) / 1.0, (BASE[2] + 8 * P[1]) / 1.0
    norm = math.hypot(ux, uy)
    ux, uy = ux / norm, uy / norm

    def load(t: float) -> tuple[float, float, float]:
        f = _press(t, 4.0, tremor=0.1)
        tilt = 0.6 * max(0.0, t - 600.0)
        return f, f * P[0] + tilt * ux, f * P[1] + tilt * uy
    fired = _run(_residual(), 160, load)
    assert fired and 600.0 < fired[0] <= 1500.0, fired


def test_a_residual_that_moves_inwards_is_no_tip() -> None:
    """A disc righting itself (or a wobble coming back) moves the load inwards: no tip."""
    norm = math.hypot(BASE[1] + 8 * P[0], BASE[2] + 8 * P[1])
    ux, uy = (BASE[1] + 8 * P[0]) / norm, (BASE[2] + 8 * P[1]) / norm

    def load(t: float) -> tuple[float, float, float]:
        f = _press(t, 20.0)
        back = 0.6 * max(0.0, t - 600.0)
        return f, f * P[0] - back * ux, f * P[1] - back * uy
    assert _run(_residual(), 160, load) == []


def test_one_block_jump_of_the_moment_is_not_a_tip() -> None:
    """A contact shifting once (a second finger touching down) jumps the moment in one block and
    stays: one block adds at most ``CLIP`` sigmas, so a single jump never reaches ``H``."""
    def load(t: float) -> tuple[float, float, float]:
        f = _press(t, 20.0)
        jump = 400.0 if 700.0 <= t < 760.0 else 0.0
        return f, f * P[0] + jump, f * P[1]
    assert _run(_residual(), 160, load) == []


def test_a_fast_press_on_skewed_cells_is_no_residual() -> None:
    """Free-running HX711 clocks: a cell that lags reads the force of the past, so during a fast
    press (150 g in 15 ms) the moment is not the force times the press point. The test anchors
    only once the press has settled (blocks longer than the skew), and the residual stays small."""
    lag = 10.0  # ms: part of the moment comes from cells reading this late

    def load(t: float) -> tuple[float, float, float]:
        f = _press(t, 150.0, attack=15.0)
        f_late = _press(t - lag, 150.0, attack=15.0)
        mx = 0.5 * (f + f_late) * P[0]
        my = 0.5 * (f + f_late) * P[1]
        return f, mx, my
    assert _run(_residual(), 120, load) == []


# ---------------------------------------------------------------------------- TipTests

def _header() -> TraceHeader:
    cells = tuple(CellSpec(120 * math.cos(math.radians(45 + 90 * i)),
                           120 * math.sin(math.radians(45 + 90 * i)), 0, 400.0) for i in range(4))
    return TraceHeader(80.0, cells, dict(MASSES), DiscLayout())


def _feed(tips: TipTests, samples: list[tuple[float, float, float]], t0: int, pv: PressView,
          base: tuple[float, float, float]) -> list[int]:
    """Feed one segment of samples to ``tips`` through its ``Signals`` view; when it fired."""
    sig = Signals()
    f: list[float] = [base[0]] * 40
    x: list[float] = [base[1]] * 40
    y: list[float] = [base[2]] * 40
    sig.f, sig.x, sig.y = f, x, y
    tips.begin_segment()
    fired = []
    fast = base
    for k, (a, b, c) in enumerate(samples):
        f.append(a)
        x.append(b)
        y.append(c)
        fast = tuple(p + 0.5 * (q - p) for p, q in zip(fast, (a, b, c), strict=True))
        sig.n = min(len(f), 60)
        sig.t = t0 + round(k * DT)
        sig.count = 1000 + k
        sig.fast = fast
        sig.base = base
        sig.zero = (0.0, 0.0)
        sig.sigma_f, sig.sigma_m = 0.05, 5.0
        tips.measure(sig, False, pv.placed)
        if tips.decide(sig, False, pv):
            fired.append(sig.t)
    return fired


def test_tip_tests_read_only_what_they_are_given() -> None:
    """``TipTests`` is a stage of its own: no pipeline, only a signals view and a press view.
    A quiet disc whose load moves outwards by 600 g*mm with the force unchanged is a tip (the
    excess moment), reported by the excess test."""
    tips = TipTests(_header(), SensingSettings(), positional=True)
    base = (200.0, 400.0, 300.0)
    pv = PressView(base, (0.0, 0.0, 0.0), False, False, 20.0)
    ux, uy = 0.8, 0.6
    samples = [(base[0], base[1] + min(600.0, 6.0 * k) * ux, base[2] + min(600.0, 6.0 * k) * uy)
               for k in range(80)]
    fired = _feed(tips, samples, 10_000, pv, base)
    assert fired and tips.fired_by == "excess"


def test_a_forced_tip_soon_after_a_tip_episode_with_no_pawn_placed_is_a_tip() -> None:
    """Right after a tip episode (its ``settled``) the refractory window used to mute every test
    unless a pawn had been placed since, so a second tip 1-3 s later (a knock, a pawn sliding)
    was never reported. Now only what a disc righting itself does is excluded: its load moving
    inwards. A load moving outwards beyond anything on the disc can explain is a tip."""
    tips = TipTests(_header(), SensingSettings(), positional=True)
    tips.episode_over(9_000)
    base = (200.0, 400.0, 300.0)
    pv = PressView(base, (0.0, 0.0, 0.0), False, False, 20.0)
    out = [(base[0], base[1] + min(600.0, 6.0 * k) * 0.8, base[2] + min(600.0, 6.0 * k) * 0.6)
           for k in range(80)]
    assert _feed(tips, out, 10_000, pv, base)  # 1 s after the episode
    tips = TipTests(_header(), SensingSettings(), positional=True)
    tips.episode_over(9_000)
    back = [(base[0], base[1] - min(300.0, 6.0 * k) * 0.8, base[2] - min(300.0, 6.0 * k) * 0.6)
            for k in range(80)]
    assert _feed(tips, back, 10_000, pv, base) == []  # righting: inwards


def test_a_one_reading_impulse_of_the_moment_is_no_tip() -> None:
    """A wobbling disc landing back on a flat support is an impact, averaged into one reading:
    the moment jumps far (here past the centre) and is back at the next reading, the force
    unchanged (pedestal-sync, 3 cells: a false tip, fired because the smoothed signals and the
    two-reading mean carried the one reading into two decisions). A tilt has no such jumps.
    The same jump, held, is still a tip."""
    base = (200.0, 360.0, 760.0)
    pv = PressView(base, (0.0, 0.0, 0.0), False, False, 20.0)
    quiet = [base] * 20
    impulse = quiet + [(base[0], -180.0, -860.0)] + [(base[0], 350.0, 740.0)] * 40
    tips = TipTests(_header(), SensingSettings(), positional=True)
    assert _feed(tips, impulse, 10_000, pv, base) == []
    held = quiet + [(base[0], base[1] + 500.0 * 0.43, base[2] + 500.0 * 0.9)] * 40
    tips = TipTests(_header(), SensingSettings(), positional=True)
    assert _feed(tips, held, 10_000, pv, base)
