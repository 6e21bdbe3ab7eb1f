"""The sensing benchmark's matcher, checked on hand-made truth and events."""

from pathlib import Path

import pytest

from companion.bench.sensing import corpus_plan, run_table
from companion.bench.sensing_score import Tally, match_in_window, score_trace

GAME = {"event": "scenario", "t_ms": 0, "kind": "game", "duration_ms": 60_000}


def placed(t: int, size: str = "small", x: float = 50.0, y: float = 10.0, zone: str | None = "red",
           number: int | None = 4, on_line: bool = False) -> dict:
    return {"event": "placed", "t_ms": t, "size": size, "mass_g": 2.0, "x_mm": x, "y_mm": y,
            "zone": zone, "number": number, "on_line": on_line}


def test_match_in_window_is_one_to_one_and_respects_windows() -> None:
    assert match_in_window([1000, 1100], [1900], 250, 2500) == [0, None]
    assert match_in_window([1000], [600], 250, 2500) == [None]  # too early
    assert match_in_window([1000], [3600], 250, 2500) == [None]  # too late
    assert match_in_window([1000, 5000], [5100, 1200], 250, 2500) == [1, 0]


def test_placements_recall_precision_size_zone_position() -> None:
    truth = [GAME, placed(1000), placed(5000, "large", -40, 60, "yellow", 3),
             placed(9000, on_line=True, zone=None, number=None), placed(13_000)]
    events = [placed(1800), placed(5900, "medium", -43, 64, "yellow", 3), placed(9800, zone="blue"),
              placed(30_000)]
    f = score_trace(truth, events).figures()
    assert f["placement_recall"] == pytest.approx(3 / 4)
    assert f["placement_precision"] == pytest.approx(3 / 4)
    assert f["size_accuracy"] == pytest.approx(2 / 3)
    assert f["zone_number_accuracy"] == pytest.approx(2 / 2)  # the on-line pawn is not scored
    assert f["position_error_p95_mm"] == pytest.approx(5.0)


def test_tip_recall_and_latency() -> None:
    truth = [GAME, {"event": "tipped", "t_ms": 1000}, {"event": "tipped", "t_ms": 20_000}]
    events = [{"event": "tipped", "t_ms": 1080}, {"event": "tipped", "t_ms": 40_000}]
    t = score_trace(truth, events)
    f = t.figures()
    assert f["tip_recall"] == 0.5 and f["tip_precision"] == 0.5
    assert t.tip_latency_ms == [80]
    assert f["tip_before_first_landing"] is None  # no pawn fell


def test_tip_detected_before_the_first_pawn_lands() -> None:
    truth = [GAME, {"event": "tipped", "t_ms": 1000}, dict(fell(1300, small=1), lands_t_ms=1400),
             {"event": "tipped", "t_ms": 20_000}, dict(fell(20_200, small=1), lands_t_ms=20_300)]
    events = [{"event": "tipped", "t_ms": 1250}, {"event": "tipped", "t_ms": 20_350}]
    assert score_trace(truth, events).figures()["tip_before_first_landing"] == 0.5


def fell(t: int, **pawns: int) -> dict:
    return {"event": "fell", "t_ms": t, "pawns": pawns, "mass_g": 1.0}


def test_fall_episodes_exact_wrong_and_flagged() -> None:
    truth = [GAME,
             {"event": "tipped", "t_ms": 1000}, fell(1400, small=1), fell(1700, large=1),
             {"event": "tipped", "t_ms": 20_000}, fell(20_500, medium=1), fell(20_600, medium=1),
             {"event": "tipped", "t_ms": 40_000}, fell(40_500, small=1),
             fell(50_000, large=1)]  # a lone slide-off
    events = [fell(1500, small=1, large=1),  # exact, grouped differently
              dict(fell(20_700, large=1), confident=False),  # wrong but flagged
              fell(40_600, medium=1),  # wrong and confident
              ]  # the slide-off is missed: wrong and silent
    t = score_trace(truth, events)
    assert t.fall_episodes == 4
    assert t.fall_exact == 1
    assert t.fall_flagged == 1
    assert t.fall_wrong_confident == 2


def test_confident_falls_calibration_counts_confident_reports_only() -> None:
    truth = [GAME,
             {"event": "tipped", "t_ms": 1000}, fell(1400, small=1),
             {"event": "tipped", "t_ms": 20_000}, fell(20_500, medium=1),
             {"event": "tipped", "t_ms": 40_000}, fell(40_500, small=1)]
    events = [fell(1500, small=1),  # confident and exact
              fell(20_600, large=1),  # confident and wrong
              dict(fell(40_600, medium=1), confident=False),  # unsure: not a confident report
              fell(70_000, small=1),  # confident, outside every episode: wrong
              dict(fell(90_000, small=1), confident=False)]  # unsure, outside: not counted
    t = score_trace(truth, events)
    assert (t.fall_confident, t.fall_confident_exact) == (3, 1)
    assert t.figures()["fall_confident_precision"] == 1 / 3


def test_hands_removed_and_faults() -> None:
    truth = [GAME, {"event": "hand", "t_ms": 1000, "duration_ms": 2000},
             {"event": "hand", "t_ms": 10_000, "duration_ms": 500},
             {"event": "removed", "t_ms": 20_000, "size": "small", "mass_g": 2.0},
             {"event": "fault", "t_ms": 30_000, "cell": 2, "kind": "stuck"},
             {"event": "fault", "t_ms": 40_000, "cell": 1, "kind": "noisy"}]
    events = [{"event": "hand", "t_ms": 3100, "duration_ms": 2000},
              {"event": "removed", "t_ms": 21_000, "size": "small", "mass_g": 2.0},
              {"event": "fault", "t_ms": 31_000, "cell": 2, "kind": "disconnected"},
              {"event": "fault", "t_ms": 46_000, "cell": 1, "kind": "noisy"}]  # too late
    f = score_trace(truth, events).figures()
    assert f["hand_recall"] == 0.5 and f["hand_precision"] == 1.0
    assert f["removed_recall"] == 1.0
    assert f["fault_recall_5s"] == 0.5
    assert f["fault_kind_accuracy"] == 0.0


def test_bump_only_false_events_per_hour() -> None:
    truth = [{"event": "scenario", "t_ms": 0, "kind": "bump_only", "quiet_from_ms": 60_000,
              "duration_ms": 60_000 + 1_800_000}, placed(5000), {"event": "bump", "t_ms": 90_000}]
    events = [placed(5800), {"event": "hand", "t_ms": 90_100, "duration_ms": 100},
              {"event": "settled", "t_ms": 90_100}]
    t = score_trace(truth, events)
    f = t.figures()
    assert f["false_events_per_hour"] == pytest.approx(4.0)
    assert t.quiet_false_kinds == {"hand": 1, "settled": 1}
    assert f["placement_recall"] == 1.0


def test_tallies_merge() -> None:
    a = score_trace([GAME, placed(1000)], [placed(1500)])
    b = score_trace([GAME, placed(1000)], [])
    total = Tally()
    total.merge(a)
    total.merge(b)
    assert total.figures()["placement_recall"] == 0.5
    assert len(total.pos_err_mm) == 1


def test_corpus_plan_covers_noise_range_and_fault_kinds() -> None:
    plan = corpus_plan(3, False, 80, 4)
    games = [p for p in plan if p["kind"] == "game"]
    assert [round(p["noise_g"], 2) for p in games] == [0.05, 0.15, 0.25]
    faults = [p for p in plan if p["kind"] == "faults"]
    assert sorted(p["seed"] % 4 for p in faults) == [0, 0, 1, 1, 2, 2, 3, 3]
    by_kind = {k: {round(p["noise_g"], 2) for p in faults if p["seed"] % 4 == k} for k in range(4)}
    assert all(len(v) == 2 for v in by_kind.values())
    assert len({p["seed"] for p in plan}) == len(plan)
    with pytest.raises(ValueError, match="--seeds"):
        corpus_plan(0, False, 80, 4)


class SilentPipeline:
    """A stand-in pipeline that detects nothing (the real one is measured by the bench itself)."""

    def __init__(self, header: object) -> None:
        self.fed = 0

    def feed(self, sample: object) -> list[dict]:
        self.fed += 1
        return []

    def finish(self) -> list[dict]:
        return []


def test_bench_runs_the_corpus_through_a_pipeline(tmp_path: Path) -> None:
    plan = [p for p in corpus_plan(1, True, 10, 3) if p["kind"] != "bump_only"][:2]
    tally = run_table(plan, pipeline_factory=SilentPipeline, dump=tmp_path)
    dumped = sorted(d.name for d in (tmp_path / "10Hz-3cells").iterdir())
    assert dumped == sorted(f"{p['kind']}-{p['seed']}" for p in plan)
    assert (tmp_path / "10Hz-3cells" / dumped[0] / "table.trace.csv").stat().st_size > 1000
    f = tally.figures()
    assert tally.placed_true > 0 and f["placement_recall"] == 0.0
    assert tally.trace_ms > 60_000 and f["realtime_factor"] is not None and f["realtime_factor"] > 0


def test_bench_reports_a_crashing_pipeline() -> None:
    class Broken(SilentPipeline):
        def feed(self, sample: object) -> list[dict]:
            raise RuntimeError("boom")
    errors: list[str] = []
    plan = corpus_plan(1, True, 10, 3)[:1]
    tally = run_table(plan, errors, pipeline_factory=Broken)
    assert len(errors) == 1 and "RuntimeError: boom" in errors[0]
    assert tally.figures()["placement_recall"] == 0.0


def test_events_after_a_cell_fault_are_left_out() -> None:
    truth = [GAME, placed(1000), {"event": "fault", "t_ms": 5000, "cell": 0, "kind": "stuck"}, placed(9000)]
    events = [placed(1500), {"event": "fault", "t_ms": 6000, "cell": 0, "kind": "stuck"},
              {"event": "hand", "t_ms": 9500, "duration_ms": 300}]
    t = score_trace(truth, events)
    assert (t.placed_true, t.placed_matched, t.hands_det, t.faults_matched) == (1, 1, 0, 1)


def test_a_placement_just_before_a_fault_reported_after_its_onset_counts() -> None:
    fault = {"event": "fault", "t_ms": 5000, "cell": 0, "kind": "stuck"}
    truth = [GAME, placed(4500), fault]
    events = [placed(5600), dict(fault, t_ms=6000), placed(8000)]  # the second: after, and no truth
    t = score_trace(truth, events)
    assert (t.placed_true, t.placed_matched, t.placed_det, t.play_false) == (1, 1, 1, 0)


def test_one_cell_tables_are_not_scored_on_position() -> None:
    one = dict(GAME, cells=1)
    t = score_trace([one, placed(1000)], [placed(1500, x=None, y=None, zone=None, number=None)])
    f = t.figures()
    assert f["placement_recall"] == 1.0 and f["zone_number_accuracy"] is None
    assert t.pos_err_mm == []


def test_placements_after_a_fault_on_four_cells_are_scored_apart() -> None:
    four = dict(GAME, cells=4)
    fault = {"event": "fault", "t_ms": 5000, "cell": 0, "kind": "stuck"}
    truth = [four, placed(1000), fault, placed(7000), placed(12_000), placed(20_000, "large")]
    events = [placed(1500), dict(fault, t_ms=6000), placed(12_600, zone="blue"), placed(20_500, "medium"),
              placed(30_000)]
    f = score_trace(truth, events).figures()
    assert f["placement_recall"] == 1.0  # only the placement before the fault
    assert f["after_fault_placement_recall"] == pytest.approx(2 / 2)  # 7000 is within 5 s of it
    assert f["after_fault_placement_precision"] == pytest.approx(2 / 3)
    assert f["after_fault_size_accuracy"] == pytest.approx(1 / 2)
    assert f["after_fault_zone_number_accuracy"] == pytest.approx(1 / 2)
    three = score_trace([dict(GAME, cells=3), fault, placed(12_000)], [placed(12_500)]).figures()
    assert three["after_fault_placement_recall"] is None


def test_fault_on_a_cell_that_had_not_failed_is_false() -> None:
    stuck = {"event": "fault", "t_ms": 5000, "cell": 1, "kind": "stuck"}
    assert score_trace([GAME], [dict(stuck, cell=2, kind="noisy")]).faults_false == 1
    later = [dict(stuck, t_ms=6000), dict(stuck, t_ms=9000, cell=2)]
    assert score_trace([GAME, stuck], later).faults_false == 1
    assert score_trace([GAME, stuck], [dict(stuck, t_ms=4000)]).figures()["false_faults"] == 1.0
