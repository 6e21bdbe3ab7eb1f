"""The live TableSimulator: determinism, placements, presses, bumps, tips, faults."""

import math
import statistics

import pytest

from companion.sensing.trace import Sample, TraceHeader
from hardware.sim import TableSimulator


def load(header: TraceHeader, samples: list[Sample]) -> tuple[float, float, float]:
    """Median calibrated mass and centre of pressure over samples (missed reads skipped)."""
    fs, xs, ys = [], [], []
    for s in samples:
        if None in s.raw:
            continue
        g = [(r - c.offset) / c.counts_per_gram for r, c in zip(s.raw, header.cells, strict=True)]
        f = sum(g)
        fs.append(f)
        if abs(f) > 0.5:
            xs.append(sum(a * c.x_mm for a, c in zip(g, header.cells, strict=True)) / f)
            ys.append(sum(a * c.y_mm for a, c in zip(g, header.cells, strict=True)) / f)
    return (statistics.median(fs), statistics.median(xs) if xs else math.nan,
            statistics.median(ys) if ys else math.nan)


def quiet_sim(**kw: object) -> TableSimulator:
    return TableSimulator(noise_g=0.0, glitches=False, gaps=False, drift=False, mount_error_mm=0.0, **kw)  # type: ignore[arg-type]


def test_same_seed_same_trace_and_different_seed_differs() -> None:
    def run(seed: int) -> tuple[list[Sample], list[dict]]:
        sim = TableSimulator(seed=seed)
        sim.place("large", 50, 20)
        sim.bump()
        return sim.run_for(3000), sim.truth
    assert run(5) == run(5)
    assert run(5)[0] != run(6)[0]


def test_placement_shows_mass_position_and_finger_press() -> None:
    sim = quiet_sim(seed=2)
    sim.run_for(500)
    sim.place("medium", 40.0, -30.0)
    during = sim.run_for(3000)
    placed = [e for e in sim.truth if e["event"] == "placed"]
    assert len(placed) == 1 and placed[0]["size"] == "medium"
    mass = placed[0]["mass_g"]
    assert abs(mass / sim.header.pawn_mass_g["medium"] - 1) <= 0.05
    f, x, y = load(sim.header, sim.run_for(500))
    assert f == pytest.approx(mass, abs=0.05)
    assert (x, y) == pytest.approx((40.0, -30.0), abs=1.0)
    peak = max(load(sim.header, [s])[0] for s in during)
    assert peak > mass + 15  # the finger pressed it down
    before_release = [s for s in during if s.t_ms < placed[0]["t_ms"] - 30]
    assert max(load(sim.header, [s])[0] for s in before_release) > mass + 15
    assert sim.pawns[0]["size"] == "medium"


def test_place_at_lands_in_that_zone_and_number() -> None:
    sim = quiet_sim(seed=4)
    sim.place_at("small", "green", 4)
    sim.run_for(3000)
    placed = [e for e in sim.truth if e["event"] == "placed"][0]
    assert (placed["zone"], placed["number"]) == ("green", 4)


def test_bump_leaves_no_lasting_change() -> None:
    sim = quiet_sim(seed=1)
    sim.place("large", -60, 10)
    sim.run_for(3000)
    before = load(sim.header, sim.run_for(500))
    sim.bump(30.0)
    ring = sim.run_for(300)
    after = load(sim.header, sim.run_for(1500)[-40:])
    assert max(abs(load(sim.header, [s])[0] - before[0]) for s in ring) > 5
    assert after == pytest.approx(before, abs=0.05)
    assert [e["event"] for e in sim.truth].count("bump") == 1


def test_hand_press_and_removal() -> None:
    sim = quiet_sim(seed=3)
    sim.place("small", 30, 30)
    sim.run_for(2500)
    sim.press(100, 0, force_g=400, duration_ms=1000)
    samples = sim.run_for(2500)
    hand = [e for e in sim.truth if e["event"] == "hand"][0]
    assert hand["duration_ms"] == 1000
    mid = [s for s in samples if hand["t_ms"] + 400 < s.t_ms < hand["t_ms"] + 600]
    assert load(sim.header, mid)[0] == pytest.approx(400, rel=0.15)
    sim.remove_last()
    sim.run_for(2500)
    assert [e["event"] for e in sim.truth][-1] == "removed"
    assert load(sim.header, sim.run_for(300))[0] == pytest.approx(0.0, abs=0.05)
    assert sim.pawns == []


def test_knock_over_tips_slides_and_settles() -> None:
    sim = quiet_sim(seed=7)
    sim.disc.p.pedestal_mm = 5.0  # limit ~1.5 kg*mm: the balanced pairs below stay up
    for x in (120, -120, 135, -135):
        sim.place("large", x, 5)
    sim.run_for(8000)
    assert "tipped" not in [e["event"] for e in sim.truth]
    sim.knock_over()
    sim.run_for(6000)
    kinds = [e["event"] for e in sim.truth]
    assert "tipped" in kinds and kinds[-1] == "settled"
    tip_t = next(e["t_ms"] for e in sim.truth if e["event"] == "tipped")
    falls = [e for e in sim.truth if e["event"] == "fell"]
    assert all(e["t_ms"] > tip_t for e in falls)
    assert len(sim.pawns) == 4 - len(falls)
    f, _, _ = load(sim.header, sim.run_for(500))
    assert f == pytest.approx(sum(p["mass_g"] for p in sim.pawns), abs=0.05)


def test_heavy_side_tips_by_itself_but_balanced_pawns_do_not() -> None:
    balanced = quiet_sim(seed=11)
    balanced.disc.p.pedestal_mm = 5.0
    balanced.place("large", 100, 0)
    balanced.place("large", -100, 0)
    balanced.run_for(5000)
    assert "tipped" not in [e["event"] for e in balanced.truth]
    heavy = quiet_sim(seed=11)
    heavy.disc.p.pedestal_mm = 2.0
    heavy.place("large", 140, 0)
    samples = heavy.run_for(6000)
    truth = heavy.truth
    kinds = [e["event"] for e in truth]
    assert kinds[:2] == ["placed", "tipped"] and "fell" in kinds and kinds[-1] == "settled"
    tip = truth[1]["t_ms"]
    assert 0 <= tip - truth[0]["t_ms"] <= 100  # tips as soon as the finger lets go
    # the rim strikes its stop 100-250 ms after the onset: a sharp spike of the load
    spike = max((load(heavy.header, [s])[0], s.t_ms) for s in samples if tip < s.t_ms < tip + 400)
    assert spike[0] > 30 and 90 <= spike[1] - tip <= 270
    assert load(heavy.header, heavy.run_for(300))[0] == pytest.approx(0.0, abs=0.05)


def test_fault_and_rate_and_raw_range() -> None:
    sim = TableSimulator(cells=3, rate_hz=10, seed=9)
    samples = sim.run_for(3000)
    assert 25 <= len(samples) <= 31
    steps = [b.t_ms - a.t_ms for a, b in zip(samples, samples[1:], strict=False)]
    assert all(s >= 0 for s in steps) and statistics.median(steps) == pytest.approx(100, abs=4)
    sim.set_fault(1, "saturated")
    after = sim.run_for(1000)
    assert len({s.raw[1] for s in after}) == 1 and after[0].raw[1] in (8388607, -8388608)
    assert sim.truth[-1] == {"event": "fault", "t_ms": sim.truth[-1]["t_ms"], "cell": 1, "kind": "saturated"}
    assert all(-8388608 <= v <= 8388607 for s in samples + after for v in s.raw if v is not None)
    with pytest.raises(ValueError, match="cell must be"):
        sim.set_fault(3, "stuck")
    with pytest.raises(ValueError, match="unknown pawn size"):
        sim.place("huge", 0, 0)
    with pytest.raises(ValueError, match="off the disc"):
        sim.place("small", 200, 0)


def test_a_pawn_at_the_rim_can_slide_off_alone() -> None:
    sim = quiet_sim(seed=5)
    sim.place("small", 0, -143)
    sim.creep_last(0.5)
    sim.run_for(5000)
    kinds = [e["event"] for e in sim.truth]
    assert kinds == ["placed", "fell"]
    assert sim.pawns == []
    assert load(sim.header, sim.run_for(300))[0] == pytest.approx(0.0, abs=0.05)


def _two_pawns_knocked_over(onto_base: bool):
    """A small pawn at the rim and a medium one inside it, knocked over; (sim, their mass)."""
    sim = quiet_sim(seed=6)
    sim.place("small", 0, 140)
    sim.place("medium", 0, 100)
    sim.run_for(3000)
    total = sum(p["mass_g"] for p in sim.pawns)
    sim.knock_over(onto_base=onto_base)
    sim.run_for(5000)
    return sim, total


def test_knocked_over_onto_the_base_plate_the_fallen_pawns_stay_weighed_until_picked_up() -> None:
    sim, total = _two_pawns_knocked_over(onto_base=True)
    falls = [e for e in sim.truth if e["event"] == "fell"]
    assert [e["lands_on"] for e in falls] == ["base", "base"] and sim.pawns == []
    assert all(0 < e["lands_t_ms"] - e["t_ms"] < 60 for e in falls)  # a 5-15 mm drop
    assert all(math.hypot(b["x_mm"], b["y_mm"]) > 150 for b in sim.base_pawns)  # just outside the rim
    f, _, y = load(sim.header, sim.run_for(300))
    assert f == pytest.approx(total, abs=0.05) and y > 150  # no mass lost: weighed off the disc's edge
    assert sim.clear_disc() == 2  # the base plate's pawns too
    sim.run_for(4000)
    assert [e["event"] for e in sim.truth][-2:] == ["picked_up", "picked_up"] and sim.base_pawns == []
    assert load(sim.header, sim.run_for(300))[0] == pytest.approx(0.0, abs=0.05)


def test_an_ordinary_knock_still_drops_the_pawns_on_the_table() -> None:
    sim, _ = _two_pawns_knocked_over(onto_base=False)
    falls = [e for e in sim.truth if e["event"] == "fell"]
    assert falls and all("lands_on" not in e for e in falls)
    left = sum(p["mass_g"] for p in sim.pawns)  # the fallen pawns' weight is gone
    assert sim.base_pawns == [] and load(sim.header, sim.run_for(300))[0] == pytest.approx(left, abs=0.05)
