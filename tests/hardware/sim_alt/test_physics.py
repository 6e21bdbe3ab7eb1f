"""Physics sanity of the independent simulator: statics, HX711 averaging, a hand-checked tip."""

from __future__ import annotations

import math
import random

import pytest

from hardware.sim_alt.hx711 import Channel, Climate, Link, sample_trace
from hardware.sim_alt.loads import STEP_MS, LoadTimeline, Platform, ring_positions
from hardware.sim_alt.mechanics import G_MM, Build, Pawn, tip_episode

QUIET = Link(missed=0, flipped=0, rail=0, spike=0, dropped=0, late=0, jitter_ms=0)
STILL = Climate(0, 100, 0, 100, 0)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_cell_forces_carry_the_load_and_its_moments(n: int) -> None:
    rng = random.Random(n)
    pos = [(x + rng.uniform(-3, 3), y + rng.uniform(-3, 3)) for x, y in ring_positions(n, 115, 17)]
    plat = Platform(pos, [rng.uniform(0.8, 1.2) for _ in range(n)])
    for f, mx, my in ((10.0, 500.0, -300.0), (-40.0, 0.0, 2500.0), (300.0, -9000.0, 1.0)):
        forces = plat.cell_forces(f, mx, my)
        assert sum(forces) == pytest.approx(f, abs=1e-9)
        assert sum(c * x for c, (x, _) in zip(forces, pos, strict=True)) == pytest.approx(mx, abs=1e-6)
        assert sum(c * y for c, (_, y) in zip(forces, pos, strict=True)) == pytest.approx(my, abs=1e-6)


def test_four_cells_split_by_stiffness_not_symmetrically() -> None:
    pos = ring_positions(4, 100, 0)
    stiff = Platform(pos, [2.0, 1.0, 1.0, 1.0]).cell_forces(100, 0, 0)
    even = Platform(pos, [1.0] * 4).cell_forces(100, 0, 0)
    assert even == pytest.approx([25.0] * 4)
    assert stiff[0] > 25 > stiff[1]  # the stiffer cell takes more of a central load


def test_one_cell_weighs_only_and_two_cells_are_refused() -> None:
    assert Platform([(0, 0)], [1.0]).cell_forces(12.5, 999, -999) == [12.5]
    with pytest.raises(ValueError, match="2 cells"):
        Platform([(0, 0), (1, 0)], [1.0, 1.0])
    with pytest.raises(ValueError, match="collinear"):
        Platform([(0, 0), (1, 0), (2, 0)], [1.0] * 3)


def _read(rate_hz: float, tl: LoadTimeline, cells: int = 1) -> list:
    plat = Platform(ring_positions(cells, 100, 0), [1.0] * cells)
    chans = [Channel(400.0, 1000.0, 0.0, 0.0, 0.0)] * cells
    return sample_trace(random.Random(0), tl.arrays(), plat, chans, rate_hz, 3000, STILL, QUIET, [])


def test_10hz_reading_averages_a_short_pulse_over_its_conversion() -> None:
    tl = LoadTimeline(4000)
    tl.add(1500, [100.0] * (20 // STEP_MS), [0.0] * 10, [0.0] * 10)  # 100 g for 20 ms
    grams = [(s.raw[0] - 1000) / 400 for s in _read(10, tl)]
    # a 100 ms conversion sees 20 ms of 100 g (possibly split over two readings)
    assert max(grams) <= 20.5 and sum(grams) == pytest.approx(20.0, abs=0.6)
    fast = [(s.raw[0] - 1000) / 400 for s in _read(80, tl)]
    assert max(fast) > 60  # a 12.5 ms conversion is mostly inside the pulse


def _load_at(tl_arrays: tuple, t_ms: int) -> tuple[float, float, float]:
    f, mx, my = tl_arrays
    i = t_ms // STEP_MS
    return f[i], mx[i], my[i]


def test_hand_checked_tip_of_one_large_pawn() -> None:
    """A 300 g disc on a 3 mm support; a slippery 8 g pawn at 133 mm and a sticky 2 g one inside.

    By hand: limit = (300 + 10) * 3 = 930 g*mm < |M| = |(8*133 - 2*60, 2*40)| = 947.4, so it tips;
    tan(theta_rim) = 20/147 = 0.136 > mu 0.1: the large pawn slides off; mu 0.5 holds the small
    one. With no ledge (base radius 150) it lands on the table, its weight leaves the base, and
    the rest (2 g at (-60, 40)) rights itself (torque at the rim < 0) and weighs exactly as before.
    """
    b = Build(disc_mass=300, support_r=3.0, pivot_h=30, disc_com_b=8.0, disc_thick=6, rim_gap=20,
              pad_ms=(40, 40), ledge_r=150, drop_to_table=30)
    tl = LoadTimeline(20000)
    pawns = [Pawn(1, "large", 8.0, 133, 0, 0.1), Pawn(2, "small", 2.0, -60, 40, 0.5)]
    for p in pawns:
        tl.step(0, p.mass, p.mass * p.x, p.mass * p.y)
    ep = tip_episode(random.Random(1), b, pawns, 1000, tl)
    kinds = [e["event"] for e in ep.truth]
    assert kinds == ["tipped", "rim_contact", "fell", "relevel", "settled"]
    fell = ep.truth[2]
    assert fell["pid"] == 1 and fell["pawns"] == {"large": 1} and fell["lands_on"] == "table"
    assert math.hypot(*fell["from_mm"]) == pytest.approx(150, abs=1)
    assert ep.truth[3]["by"] == "self"
    assert [(p.pid, p.x, p.y) for p in ep.survivors] == [(2, pytest.approx(-60), pytest.approx(40))]
    # the tilt: linearised inverted pendulum theta = tau0/k (cosh(t sqrt(k/I)) - 1), k = g sum m b;
    # the driving excess is 17.4 g*mm, at most 60 g*mm with the release flick
    r_s = 3.0
    masses = [(150, -r_s - 75, 8.0), (150, -r_s + 75, 8.0), (8, 133 - r_s, 6 + 9), (2, -60 - r_s, 6 + 5)]
    inertia = sum(m * (a * a + bb * bb) for m, a, bb in masses)
    k = G_MM * sum(m * bb for m, _, bb in masses)
    theta_rim = math.asin(20 / 147)

    def t_rim(excess: float) -> float:
        return 1000 * math.acosh(1 + theta_rim * k / (G_MM * excess)) / math.sqrt(k / inertia)
    rim = ep.truth[1]["t_ms"] - 1000
    assert t_rim(60) * 0.95 <= rim <= t_rim(17.4) * 1.05
    arrays = tl.arrays()
    assert _load_at(arrays, 900) == pytest.approx((10.0, 944.0, 80.0))
    f, mx, my = _load_at(arrays, ep.end_ms + 100)
    assert (f, mx, my) == pytest.approx((2.0, -120.0, 80.0), abs=1e-6)
    # while the free tilt runs the disc rests on the support edge only: the base keeps the weight
    f_tilt, _, _ = _load_at(arrays, 1000 + rim // 2)
    assert f_tilt == pytest.approx(10.0, abs=0.2)
