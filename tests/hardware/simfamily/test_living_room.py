"""The living-room family: its new parameters, their physics, and the other families left as they were."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest

from companion.bench.sensing import trace_text
from companion.bench.sensing_families import parse_families, split
from companion.sensing.trace import read_trace
from hardware.sim_alt.loads import STEP_MS, LoadTimeline
from hardware.simfamily import FAMILIES, HELD_BACK, TUNED
from hardware.simfamily.families import _inside_margin, irregular_cells, pawn_set
from hardware.simfamily.generate import Rig, generate, play
from hardware.simfamily.room import Room

from .conftest import SCORED_FIELDS, trace_digest

LR = FAMILIES["living-room"]


def _room(seed: int = 1, duration_ms: float = 240_000, cells: int = 4) -> Room:
    room = Room(random.Random(seed), duration_ms, cells, tare_g=900.0, tare_z_gmm=30_000.0, pawn_z_mm=60.0)
    for c in range(cells):
        room.set_sigma(c, 0.2)
    return room


def test_living_room_is_tuned_now_and_in_all() -> None:
    # held back for one session (s4), tuned from s5 on: kids-club took its place
    assert "living-room" in TUNED and "living-room" not in HELD_BACK
    assert "living-room" in parse_families("all")
    tuned, held = split(parse_families("all"), None)
    assert "living-room" in tuned and "living-room" not in held


def test_the_other_families_traces_did_not_change() -> None:
    # digests taken before the living-room parameters existed: their defaults draw nothing
    # (if one of these families is changed on purpose, take the new digest and say so in the commit)
    assert trace_digest(3, family_name="pedestal-free", cells=4, rate_hz=80, kind="game", minutes=0.4) == (
        "39eb76e1d377d634"
    )
    assert trace_digest(4, family_name="creep-felt", cells=3, rate_hz=10, kind="bump_only", minutes=0.4) == (
        "e7d30f2708577532"
    )


@pytest.mark.parametrize("seed", range(20))
def test_three_cells_off_120_degrees_at_their_own_radii_and_the_base_stands(seed: int) -> None:
    pts = irregular_cells(3, random.Random(seed))
    assert pts is not None and len(pts) == 3
    radii = [math.hypot(x, y) for x, y in pts]
    assert all(80 - 1e-9 <= r <= 140 + 1e-9 for r in radii)
    assert _inside_margin(pts) >= 30


def test_irregular_layouts_really_differ_from_the_even_ring() -> None:
    spread, aspect = [], []
    for seed in range(30):
        pts = irregular_cells(3, random.Random(seed))
        angles = sorted(math.degrees(math.atan2(y, x)) % 360 for x, y in pts)
        gaps = [b - a for a, b in zip(angles, [*angles[1:], angles[0] + 360], strict=True)]
        spread.append(max(abs(g - 120) for g in gaps))
        four = irregular_cells(4, random.Random(seed))
        d = [math.dist(four[i], four[(i + 1) % 4]) for i in range(4)]
        aspect.append(min(d) / max(d))
        assert all(math.hypot(x, y) < 150 for x, y in four)
    assert max(spread) > 25 and min(aspect) < 0.75
    assert irregular_cells(1, random.Random(0)) is None


@pytest.mark.parametrize("cells", [3, 4])
def test_cells_of_an_irregular_base_carry_the_load_and_its_moments(cells: int) -> None:
    rig = Rig(LR, f"statics/{cells}", cells=cells, rate_hz=80, noise_g=0.0, duration_ms=5000)
    assert rig.nominal != Rig(FAMILIES["pedestal-free"], "x", cells=cells, rate_hz=80, noise_g=0,
                              duration_ms=5000).nominal
    for f, mx, my in ((10.0, 500.0, -300.0), (300.0, -9000.0, 1.0)):
        forces = rig.platform.cell_forces(f, mx, my)
        assert sum(forces) == pytest.approx(f)
        assert sum(c * x for c, (x, _) in zip(forces, rig.real, strict=True)) == pytest.approx(mx)
        assert sum(c * y for c, (_, y) in zip(forces, rig.real, strict=True)) == pytest.approx(my)


def test_pawn_sets_of_every_archetype_within_their_ranges() -> None:
    seen = set()
    for seed in range(60):
        kind, m = pawn_set(random.Random(seed))
        seen.add(kind)
        assert 1.5 <= m["small"] < m["medium"] < m["large"] <= 12.5
        assert m["medium"] / m["small"] >= 1.8 and m["large"] / m["medium"] >= 1.4
        if kind == "rod":
            assert m["medium"] == pytest.approx(2 * m["small"], rel=0.035)
            assert m["large"] == pytest.approx(3 * m["small"], rel=0.035)
    assert seen == {"standard", "light", "wooden", "rod"}


def test_the_header_declares_the_drawn_pawn_set_and_the_hx711s_share_a_bias() -> None:
    biases = []
    for seed in range(8):
        rig = Rig(LR, seed, cells=4, rate_hz=80, noise_g=0.1, duration_ms=1000)
        assert rig.header.pawn_mass_g == rig.masses
        meta = rig.meta("game", seed, 1.0)
        assert meta["pawn_set"] == rig.pawn_set and meta["cell_layout"] == "irregular"
        mean_period = sum(c.period_ms for c in rig.adc) / 4
        assert mean_period * (1 + rig.rate_bias) == pytest.approx(12.5, rel=0.035)
        biases.append(rig.rate_bias)
        assert rig.header.rate_hz == 80  # the host knows the mode, not the oscillator
    assert min(biases) >= -0.03 and max(biases) <= 0.10 and max(biases) > 0.03


def test_vibration_weighs_the_tare_and_averages_out() -> None:
    room = _room(seed=5, duration_ms=600_000)
    room.leans = []
    assert room.vibrations
    n = 300_000
    f = [25.0] * n
    mx = [1000.0] * n
    my = [-500.0] * n
    fa, ma, ya = room.apply((f, mx, my))
    for v in room.vibrations:
        i0 = int(round(v.t0_ms / STEP_MS))
        i1 = min(n, i0 + len(v.accel))
        if i1 - i0 < 1000:
            continue
        k = (i0 + i1) // 2
        a = v.accel[k - i0]
        assert fa[k] - 25.0 == pytest.approx(a * (900.0 + 25.0))
        mean = sum(fa[i0:i1]) / (i1 - i0) - 25.0
        assert abs(mean) < 0.02 * max(abs(x) for x in v.accel) * 925
        assert max(abs(x) for x in v.accel) < 3.6e-3  # below what people notice (~5 mg)
    quiet = [i for i in range(0, n, 997)
             if not any(v.t0_ms <= i * STEP_MS < v.end_ms for v in room.vibrations)]
    assert all(fa[i] == 25.0 and ma[i] == 1000.0 for i in quiet)


def test_a_lean_shifts_the_moment_by_beta_sum_m_z_and_keeps_the_force() -> None:
    room = _room(seed=2, duration_ms=600_000)
    room.vibrations = []
    assert room.leans
    lean = room.leans[0]
    n = 300_000
    fa, ma, ya = room.apply(([10.0] * n, [0.0] * n, [0.0] * n))
    k = int((lean.t0_ms + lean.ramp_ms + lean.hold_ms / 2) / STEP_MS)
    if any(other.t0_ms <= k * STEP_MS <= other.end_ms for other in room.leans[1:]):
        pytest.skip("overlapping leans in this draw")
    expect = math.sin(lean.tilt_rad) * (30_000.0 + 10.0 * 60.0)
    assert math.hypot(ma[k], ya[k]) == pytest.approx(expect, rel=1e-6)
    towards = math.atan2(math.sin(lean.dir_rad), math.cos(lean.dir_rad))
    assert math.atan2(ya[k], ma[k]) == pytest.approx(towards)
    assert abs(fa[k] - 10.0) < 0.01
    assert 0.02 <= math.degrees(lean.tilt_rad) <= 0.15


def test_mains_hum_is_rejected_by_a_whole_number_of_cycles_and_passes_at_80_sps() -> None:
    room = _room(seed=3)
    room.hum, room.mains_hz = True, 50.0
    cr = room.cells[0]
    cr.hum_share, cr.fast_share, cr.slow_share, cr.warm_g = 0.2, 0.0, 0.0, 0.0
    cr.steps_g = [0.0] * len(cr.steps_g)
    slow = [room.reading(0, 1000 + 100 * k, 100.0) for k in range(50)]
    fast = [room.reading(0, 7000 + 12.5 * k, 12.5) for k in range(400)]
    assert max(abs(x) for x in slow) < 1e-9
    rms = math.sqrt(sum(x * x for x in fast) / len(fast))
    assert 0.3 * 0.2 * math.sqrt(0.2) < rms < 0.2 * math.sqrt(0.2)


def test_the_noise_budget_is_kept_and_the_relaxations_are_slow() -> None:
    room = _room(seed=4, duration_ms=3_600_000)
    for cr in room.cells:
        assert 0.2 <= cr.white_share <= 0.65
        cr.warm_g, cr.steps_g = 0.0, [0.0] * len(cr.steps_g)
        cr.hum_share = 0.0
    xs = [room.reading(1, 200.0 * k, 100.0) for k in range(20_000)]
    cr = room.cells[1]
    var = sum(x * x for x in xs) / len(xs)
    assert var == pytest.approx(0.04 * (cr.fast_share + cr.slow_share), rel=0.5)
    step = [xs[k + 1] - xs[k] for k in range(len(xs) - 1)]
    assert sum(d * d for d in step) / len(step) < 1.2 * var  # correlated from read to read (white: 2x)


def test_temperature_moves_the_zero_slowly() -> None:
    room = _room(seed=6, duration_ms=1_200_000)
    assert room.temp_steps
    for cr in room.cells:
        cr.fast_share = cr.slow_share = cr.hum_share = 0.0
    t0, tau, amp, _ = room.temp_steps[0]
    before = room.reading(2, t0 - 1, 12.5)
    after = room.reading(2, t0 + 10 * tau, 12.5)
    later = sum(g for (t, _, _, _), g in zip(room.temp_steps, room.cells[2].steps_g, strict=True)
                if t0 < t <= t0 + 10 * tau)
    assert after - before == pytest.approx(room.cells[2].steps_g[0] + later, abs=0.02 + abs(later))
    assert 0.05 <= abs(room.cells[2].steps_g[0]) <= 0.75 and 15_000 <= tau <= 90_000


def test_a_sliding_finger_moves_the_pawn_a_few_mm_before_it_lets_go() -> None:
    rig = Rig(LR, "slide", cells=4, rate_hz=80, noise_g=0.0, duration_ms=30_000)
    table = rig.table
    table.b = replace(table.b, finger_slide=1.0)
    table.place("large", 60.0, 0.0, press_g=0.0, press_ms=600)  # no press: the pawn alone
    placed = [e for e in table.truth if e["event"] == "placed"][0]
    assert 2 <= placed["slid_mm"] <= 8
    f, mx, my = rig.timeline.arrays()
    m = table.last_placed.mass
    end = int((table.t + 200) / STEP_MS)
    assert f[end] == pytest.approx(m) and mx[end] == pytest.approx(m * 60.0)
    # between touch-down and the drag the pawn stood off its final place by slid_mm
    offs = [math.hypot(mx[i] - f[i] * 60.0, my[i]) / f[i] for i in range(end) if abs(f[i] - m) < 1e-9]
    assert max(offs) == pytest.approx(placed["slid_mm"], abs=0.15)


def test_fast_players_take_turns_every_one_to_two_seconds() -> None:
    rig = Rig(LR, "fast", cells=4, rate_hz=80, noise_g=0.1, duration_ms=200_000)
    table = rig.table
    table.b = replace(table.b, fast_players=1.0)
    play(table, 120_000, skill=(0.9, 1.0), hands=0.0, removals=0.0)
    t = [e["t_ms"] for e in table.truth if e["event"] == "placed"]
    gaps = sorted(b - a for a, b in zip(t, t[1:], strict=False))
    assert 700 < gaps[len(gaps) // 2] < 2300


def test_mass_and_pawns_are_conserved_over_a_living_room_game() -> None:
    rig = Rig(LR, "mass", cells=4, rate_hz=80, noise_g=0.1, duration_ms=120_000)
    play(rig.table, 110_000, skill=(0.5, 0.95), hands=0.14, removals=0.05)
    table = rig.table
    f, mx, my = rig.timeline.arrays()
    i = int((table.t + 3000) / STEP_MS)
    assert f[i] == pytest.approx(sum(p.mass for p in table.pawns) + sum(p.mass for p, _, _ in table.base))
    assert mx[i] == pytest.approx(sum(p.mass * p.x for p in table.pawns)
                                  + sum(p.mass * x for p, x, _ in table.base), abs=1e-3)
    placed = sum(e["event"] == "placed" for e in table.truth)
    gone = sum(e["event"] in ("removed", "fell") for e in table.truth)
    assert placed - gone == len(table.pawns)
    assert any("slid_mm" in e for e in table.truth if e["event"] == "placed")


@pytest.mark.parametrize(
    ("kind", "rate", "cells"), [("game", 10, 3), ("bump_only", 80, 4), ("faults", 10, 4)]
)
def test_living_room_traces_parse_and_their_truth_follows_the_spec(kind: str, rate: int, cells: int) -> None:
    header, samples, truth = generate(2, family_name="living-room", cells=cells, rate_hz=rate, noise_g=0.25,
                                      kind=kind, minutes=0.6)
    back, rows = read_trace(trace_text(header, samples))
    assert list(rows) == samples and back.pawn_mass_g == header.pawn_mass_g
    assert [(c.x_mm, c.y_mm) for c in back.cells] == [(c.x_mm, c.y_mm) for c in header.cells]
    meta = truth[0]
    assert meta["event"] == "scenario" and meta["family"] == "living-room" and "room" in meta
    assert [e["t_ms"] for e in truth[1:]] == sorted(e["t_ms"] for e in truth[1:])
    for e in truth[1:]:
        for key in SCORED_FIELDS.get(e["event"], ()):
            assert key in e, (e, key)
        if e["event"] == "placed":
            assert abs(e["mass_g"] / header.pawn_mass_g[e["size"]] - 1) <= 0.031
    again = generate(2, family_name="living-room", cells=cells, rate_hz=rate, noise_g=0.25, kind=kind,
                     minutes=0.6)
    assert again[1] == samples and again[2] == truth


def test_room_on_an_empty_timeline_leaves_no_lasting_change() -> None:
    rig = Rig(LR, "room", cells=4, rate_hz=80, noise_g=0.0, duration_ms=400_000)
    assert rig.room is not None
    rig.timeline = LoadTimeline(400_000)
    f, mx, _ = rig.room.apply(rig.timeline.arrays())
    end = max([v.end_ms for v in rig.room.vibrations] + [le.end_ms for le in rig.room.leans] + [0.0])
    if end + 1000 < 400_000:
        i = int((end + 1000) / STEP_MS)
        assert f[i] == 0.0 and mx[i] == 0.0
