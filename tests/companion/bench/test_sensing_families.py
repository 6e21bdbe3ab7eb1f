"""``bench sensing --families``: the leave-one-out split, the family plans and the new figures."""

from __future__ import annotations

import argparse

import pytest

from companion.bench.sensing import FAMILY_TARGETS, corpus_plan, run_table
from companion.bench.sensing_families import parse_families, run_families, split, verdict
from companion.bench.sensing_score import Tally, score_trace
from hardware.simfamily import FAMILIES, HELD_BACK

GAME = {"event": "scenario", "t_ms": 0, "kind": "game", "duration_ms": 3_600_000}


class Silent:
    def __init__(self, header: object) -> None:
        pass

    def feed(self, sample: object) -> list:
        return []

    def finish(self) -> list:
        return []


def test_default_split_holds_back_the_documented_families() -> None:
    tuned, held = split(list(FAMILIES), None)
    assert held == list(HELD_BACK)
    assert set(tuned) == set(FAMILIES) - set(HELD_BACK)


def test_holdout_leaves_any_family_out() -> None:
    tuned, held = split(list(FAMILIES), "sim_alt")
    assert held == ["sim_alt"]
    assert "rocker" in tuned and "sim_alt" not in tuned
    with pytest.raises(ValueError, match="unknown family"):
        split(list(FAMILIES), "no-such-family")


def test_parse_families() -> None:
    assert parse_families("all") == list(FAMILIES)
    assert parse_families("rocker, sim") == ["rocker", "sim"]
    with pytest.raises(ValueError, match="unknown family"):
        parse_families("rocker,nope")


def test_family_plan_is_the_corpus_plan_with_the_family() -> None:
    plan = corpus_plan(2, False, 80, 4, family="creep-felt")
    base = corpus_plan(2, False, 80, 4)
    assert [dict(p, family="creep-felt") for p in base] == plan
    with pytest.raises(ValueError, match="unknown table family"):
        corpus_plan(1, True, 80, 4, family="nope")


def test_false_events_during_play_count_unmatched_detections_by_kind() -> None:
    truth = [GAME, {"event": "placed", "t_ms": 1000, "size": "small", "x_mm": 50.0, "y_mm": 0.0,
                    "zone": "red", "number": 4},
             {"event": "tipped", "t_ms": 10_000},
             {"event": "fell", "t_ms": 10_500, "pawns": {"small": 1}},
             {"event": "hand", "t_ms": 20_000, "duration_ms": 1000}]
    events = [{"event": "placed", "t_ms": 1500, "size": "small", "x_mm": 50.0, "y_mm": 0.0, "zone": "red",
               "number": 4},
              {"event": "placed", "t_ms": 30_000, "size": "small"},        # false
              {"event": "tipped", "t_ms": 10_100},
              {"event": "tipped", "t_ms": 40_000},                          # false
              {"event": "fell", "t_ms": 10_900, "pawns": {"small": 1}},
              {"event": "fell", "t_ms": 50_000, "pawns": {"small": 1}},     # false
              {"event": "hand", "t_ms": 22_000, "duration_ms": 900},
              {"event": "hand", "t_ms": 60_000, "duration_ms": 900},        # false
              {"event": "settled", "t_ms": 61_000}]                         # bookkeeping: not false
    tally = score_trace(truth, events)
    assert tally.play_false == 4
    assert tally.play_false_kinds == {"placed": 1, "tipped": 1, "fell": 1, "hand": 1}
    assert tally.figures()["false_events_per_hour_play"] == pytest.approx(4.0)


def test_false_events_in_play_stop_at_the_first_fault() -> None:
    truth = [dict(GAME, kind="faults"), {"event": "fault", "t_ms": 1_800_000, "cell": 0, "kind": "stuck"}]
    events = [{"event": "tipped", "t_ms": 100_000}, {"event": "tipped", "t_ms": 2_000_000},
              {"event": "fault", "t_ms": 1_801_000, "cell": 0, "kind": "stuck"}]
    tally = score_trace(truth, events)
    assert tally.play_false == 1 and tally.play_ms == 1_800_000
    assert tally.figures()["fault_recall_5s"] == 1.0


def test_slowest_trace_and_worst_feed_are_kept_when_merging() -> None:
    a, b = Tally(trace_realtime=[2000.0], feed_us=[10.0] * 999 + [900.0]), Tally(trace_realtime=[800.0],
                                                                              feed_us=[20.0] * 1000)
    total = Tally()
    total.merge(a)
    total.merge(b)
    f = total.figures()
    assert f["slowest_trace_realtime_factor"] == 800.0
    assert f["feed_p999_ms"] == pytest.approx(0.02)  # b's p99.9 (20 us) is worse than a's (10 us)


def test_verdicts_use_the_targets_of_the_rate() -> None:
    assert verdict(80, "tip_latency_p95_ms", 150) == "ok"
    assert verdict(80, "tip_latency_p95_ms", 151) == "MISSED"
    assert verdict(10, "tip_latency_p95_ms", 300) == "ok"
    assert verdict(10, "false_events_per_hour", 0.5) == "MISSED"
    assert verdict(80, "position_error_p50_mm", 9) == ""
    assert FAMILY_TARGETS[80]["placement_recall"] == (">=", 0.99)


def test_a_silent_pipeline_scores_nothing_on_a_family_trace() -> None:
    plan = [p for p in corpus_plan(1, True, 10, 3, family="rocker") if p["kind"] == "game"]
    tally = run_table(plan, pipeline_factory=Silent)
    f = tally.figures()
    assert tally.placed_true > 0 and f["placement_recall"] == 0.0
    assert f["false_events_per_hour_play"] == 0.0


def test_run_families_prints_a_table_with_the_held_back_column(capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(families="sim_alt", holdout="sim_alt", rates="10", cells="3", seeds=1,
                              quick=True, json=False, dump=None, long_game_hours=0.0)
    assert run_families(args) == 0
    out = capsys.readouterr().out
    assert "| figure | sim_alt* | TUNED | HELD BACK | target |" in out
    assert "falls exactly right" in out and "false events/h, play" in out


def test_a_dumped_corpus_replayed_gives_the_figures_of_the_run_that_dumped_it(tmp_path) -> None:
    import json

    common = dict(families="sim_alt", holdout="sim_alt", rates="10", cells="3", seeds=1, quick=True,
                  json=True, long_game_hours=0.0)
    first = argparse.Namespace(**common, dump=tmp_path, from_dump=None)
    again = argparse.Namespace(**common, dump=None, from_dump=tmp_path)
    import contextlib
    import io

    outs = []
    for args in (first, again):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert run_families(args) == 0
        outs.append(json.loads(buf.getvalue()))
    a, b = (o["tables"]["10Hz/3cells"]["sim_alt"] for o in outs)
    assert a["placements"] > 0 and a["placements"] == b["placements"]
    speed = {"slowest_trace_realtime_factor", "realtime_factor", "parse_only_realtime_factor"}
    assert {k: v for k, v in a["figures"].items() if k not in speed} == \
        {k: v for k, v in b["figures"].items() if k not in speed}


def test_from_dump_names_a_missing_directory(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(families="sim_alt", holdout=None, rates="10", cells="3", seeds=1, quick=True,
                              json=False, dump=None, long_game_hours=0.0, from_dump=tmp_path / "nowhere")
    assert run_families(args) == 2
    assert "nowhere: no such directory" in capsys.readouterr().err


def test_first_seed_gives_a_fresh_corpus_with_the_same_mix() -> None:
    old = corpus_plan(6, False, 80, 4, family="rocker")
    fresh = corpus_plan(6, False, 80, 4, family="rocker", first=7)
    assert not {p["seed"] for p in old} & {p["seed"] for p in fresh}
    assert [(p["kind"], p["noise_g"]) for p in old] == [(p["kind"], p["noise_g"]) for p in fresh]
    assert corpus_plan(2, False, 80, 4, first=0) == corpus_plan(2, False, 80, 4)
    with pytest.raises(ValueError, match="--first-seed"):
        corpus_plan(1, True, 80, 4, first=-1)
