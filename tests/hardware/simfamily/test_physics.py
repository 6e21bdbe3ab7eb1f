"""Physics checks of the table families: statics, Newton-Euler loads, moments, clocks, determinism."""

from __future__ import annotations

import math
import random

import pytest

from hardware.sim_alt.loads import STEP_MS, LoadTimeline, Platform, ring_positions
from hardware.simfamily import FAMILIES, HELD_BACK, TUNED
from hardware.simfamily.adc import Cell, Link, sample_rows
from hardware.simfamily.disc import Body, Integrator, disc_bodies
from hardware.simfamily.families import _support, draw_build
from hardware.simfamily.generate import Rig, generate, play

QUIET = Link(missed=0, glitch=0, dropped=0, jitter_ms=0)
NEW = [name for name, fam in FAMILIES.items() if not fam.legacy]


def _integrate_to_rest(kind: str, pawns: list[Body], seed: int = 1, rim: str = "felt") -> Integrator:
    rng = random.Random(seed)
    sup = _support(kind, rim, rng, 320.0, False)
    bodies = disc_bodies(320.0, sup.com_mm) + pawns
    integ = Integrator(sup, bodies, lambda t: [], 0.0, th0=1e-7)
    still = 0
    while integ.t < 15_000 and still < 100:
        integ.run_grid_step()
        still = 0 if integ.moving() else still + 1
    return integ


def test_every_family_is_tuned_or_held_back_and_the_split_is_fixed() -> None:
    assert set(TUNED) | set(HELD_BACK) == set(FAMILIES)
    assert not set(TUNED) & set(HELD_BACK)
    assert {"sim", "sim_alt"} <= set(TUNED)
    assert {FAMILIES[f].supports[0] for f in HELD_BACK} >= {"rocker"}


@pytest.mark.parametrize("kind", ["pedestal", "pivot", "rocker"])
def test_a_tipped_disc_at_rest_is_in_static_equilibrium(kind: str) -> None:
    # a heavy pawn far out tips the disc; once it lies still on the stop the cells carry exactly the
    # weight, at the horizontal centre of mass of every mass (all of it rests on the base)
    rng = random.Random(1)
    top = _support(kind, "felt", rng, 320.0, False).top_mm
    integ2 = _integrate_to_rest(kind, [Body(1, 30.0, 125.0, 5.0, top + 8, 5.0, 5.0, "large")])
    assert abs(integ2.th) > 0.9 * integ2.sup.stop_rad, "the disc should lie on its stop"
    f, mu, mv = integ2.res.f[-1], integ2.res.mu[-1], integ2.res.mv[-1]
    assert f == pytest.approx(30.0, abs=0.05)  # the tare is the empty level disc
    x_com = sum(b.mass * integ2.sup.place(b.s, b.z, integ2.th)[0] for b in integ2.bodies if b.on)
    assert mu == pytest.approx(x_com, abs=2.0)
    assert mv == pytest.approx(30.0 * 5.0, abs=0.5)


@pytest.mark.parametrize("kind", ["pedestal", "pivot", "rocker"])
def test_vertical_impulse_is_conserved_through_a_tip(kind: str) -> None:
    # the disc starts and ends at rest, so the cells' average excess over the weight is zero:
    # the rim strike and the fall cancel (Newton-Euler from the change of momentum)
    integ = _integrate_to_rest(kind, [Body(1, 12.0, 100.0, 0.0, 15.0, 5.0, 5.0, "large")])
    excess = sum(f - 12.0 for f in integ.res.f) * STEP_MS / 1000
    assert abs(excess) < 0.02  # g*s, against strikes of tens of grams


def test_residual_moment_of_a_tipped_empty_disc_spans_hundreds_to_thousands() -> None:
    moments = []
    for name in NEW:
        for seed in range(25):
            build = draw_build(FAMILIES[name], random.Random(f"{name}/{seed}"))
            sup = build.support
            half = build.disc_mass_g / 2
            x = sum(half * sup.place(s, sup.com_mm, sup.stop_rad)[0] for s in (75, -75))
            moments.append(abs(x))
    assert min(moments) < 700
    assert max(moments) > 7000
    assert max(moments) < 20_000


def test_cells_carry_the_load_and_its_moments() -> None:
    rig = Rig(FAMILIES["pedestal-free"], "statics", cells=4, rate_hz=80, noise_g=0.0, duration_ms=5000)
    pos = rig.real
    for f, mx, my in ((10.0, 500.0, -300.0), (300.0, -9000.0, 1.0)):
        forces = rig.platform.cell_forces(f, mx, my)
        assert sum(forces) == pytest.approx(f)
        assert sum(c * x for c, (x, _) in zip(forces, pos, strict=True)) == pytest.approx(mx)
        assert sum(c * y for c, (_, y) in zip(forces, pos, strict=True)) == pytest.approx(my)


def test_free_running_clocks_put_cells_of_one_row_apart_and_average_their_conversion() -> None:
    # a 100 g step at the centre at t = 1003 ms: with free clocks the first row that shows it has
    # some cells with the whole step, some with part of it (conversion averaging) or none yet
    tl = LoadTimeline(3000)
    tl.step(1003, 100.0, 0.0, 0.0)
    plat = Platform(ring_positions(4, 120, 0), [1.0] * 4)
    cells = [Cell(1.0, 0.0, 12.5 * (1 + d), ph, 0.0, 0.0, 0.0)
             for d, ph in ((0.0, 1.0), (0.02, 4.2), (-0.025, 7.9), (0.03, 11.6))]
    rows = sample_rows(random.Random(0), tl.arrays(), plat, cells, 2500, QUIET, [])
    first = next(r for r in rows if any(v > 2 for v in r.raw))
    assert any(2 < v < 23 for v in first.raw) or any(v < 2 for v in first.raw)
    partial = [v for r in rows for v in r.raw if 2 < v < 23]
    assert partial, "a conversion straddling the step reads part of it"
    late = rows[-1].raw
    assert all(v == pytest.approx(25.0, abs=0.01) for v in late)
    # the slowest cell sets the row rate; the others are read once per row
    span = (rows[-1].t_ms - rows[0].t_ms) / (len(rows) - 1)
    assert span == pytest.approx(12.5 * 1.03, rel=0.01)


def test_synchronous_clocks_read_one_conversion_per_row() -> None:
    tl = LoadTimeline(3000)
    tl.step(1003, 100.0, 0.0, 0.0)
    plat = Platform(ring_positions(4, 120, 0), [1.0] * 4)
    cells = [Cell(1.0, 0.0, 12.5, 3.0, 0.0, 0.0, 0.0) for _ in range(4)]
    rows = sample_rows(random.Random(0), tl.arrays(), plat, cells, 2500, QUIET, [])
    assert all(len(set(r.raw)) == 1 for r in rows)


def test_the_families_draw_different_clocks_and_the_sync_family_one_clock() -> None:
    free = Rig(FAMILIES["pedestal-free"], 3, cells=4, rate_hz=80, noise_g=0.1, duration_ms=1000)
    periods = [c.period_ms for c in free.adc]
    assert max(periods) / min(periods) > 1.001
    sync = Rig(FAMILIES["pedestal-sync"], 3, cells=4, rate_hz=80, noise_g=0.1, duration_ms=1000)
    assert len({(c.period_ms, c.phase_ms) for c in sync.adc}) == 1


def test_calibration_and_positions_in_the_header_are_off_as_the_family_says() -> None:
    rig = Rig(FAMILIES["ringing-bounce"], 5, cells=4, rate_hz=80, noise_g=0.1, duration_ms=1000)
    for cell, spec in zip(rig.adc, rig.header.cells, strict=True):
        err = abs(spec.counts_per_gram / cell.counts_per_gram - 1)
        assert 0.0099 < err < 0.0201
    off = [math.hypot(a[0] - b[0], a[1] - b[1]) for a, b in zip(rig.real, rig.nominal, strict=True)]
    assert max(off) > 0.5


@pytest.mark.parametrize("name", ["pedestal-free", "rocker"])
def test_total_mass_is_conserved_over_a_game(name: str) -> None:
    rig = Rig(FAMILIES[name], "mass", cells=4, rate_hz=80, noise_g=0.1, duration_ms=120_000)
    play(rig.table, 110_000, skill=(0.5, 0.95), hands=0.08, removals=0.05)
    table = rig.table
    f, mx, my = rig.timeline.arrays()
    i = int((table.t + 3000) / STEP_MS)
    on_disc = sum(p.mass for p in table.pawns) + sum(p.mass for p, _, _ in table.base)
    assert f[i] == pytest.approx(on_disc, abs=1e-6)
    assert mx[i] == pytest.approx(sum(p.mass * p.x for p in table.pawns)
                                  + sum(p.mass * x for p, x, _ in table.base), abs=1e-3)
    placed = sum(e["event"] == "placed" for e in table.truth)
    gone = sum(e["event"] in ("removed", "fell") for e in table.truth)
    assert placed - gone == len(table.pawns)


def test_generate_is_deterministic_per_seed() -> None:
    a = generate(7, family_name="pivot-spring", cells=3, rate_hz=10, kind="game", minutes=0.8)
    b = generate(7, family_name="pivot-spring", cells=3, rate_hz=10, kind="game", minutes=0.8)
    c = generate(8, family_name="pivot-spring", cells=3, rate_hz=10, kind="game", minutes=0.8)
    assert a[1] == b[1] and a[2] == b[2]
    assert a[1] != c[1]
    assert a[2][0]["family"] == "pivot-spring" and a[2][0]["kind"] == "game"


def test_legacy_families_call_their_own_generators() -> None:
    h, s, truth = generate(3, family_name="sim_alt", cells=4, rate_hz=10, kind="bump_only", minutes=0.5)
    assert truth[0]["generator"] == "sim_alt"
    with pytest.raises(ValueError, match="unknown table family"):
        generate(1, family_name="nope")
