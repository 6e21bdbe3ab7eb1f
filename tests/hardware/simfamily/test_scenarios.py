"""Each failure-mode scenario really contains its failure mode (checked on its ground truth)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from hardware.simfamily.scenarios import SCENARIOS


def _of(truth: list[dict], event: str) -> list[dict]:
    return [e for e in truth if e.get("event") == event]


def _release_before(truth: list[dict], t: int) -> int:
    return max(e["t_ms"] for e in _of(truth, "placed") if e["t_ms"] <= t + 500)


def _tip_during_press(truth: list[dict]) -> None:
    tip = _of(truth, "tipped")[0]
    assert tip["cause"] == "press" and tip["t_ms"] < _release_before(truth, tip["t_ms"])


def _tip_at_release(truth: list[dict]) -> None:
    tip = _of(truth, "tipped")[0]
    assert tip["cause"] == "release" and abs(tip["t_ms"] - _release_before(truth, tip["t_ms"])) <= 60


def _tip_after_creep(truth: list[dict]) -> None:
    tip = _of(truth, "tipped")[0]
    release = max(e["t_ms"] for e in _of(truth, "placed") if e["t_ms"] <= tip["t_ms"])
    assert tip["cause"] == "creep" and tip["t_ms"] - release >= 200 and tip["creep_from_ms"] <= tip["t_ms"]


def _skewed(truth: list[dict]) -> None:
    periods = [c["period_ms"] for c in truth[0]["clocks"]]
    phases = [c["phase_ms"] for c in truth[0]["clocks"]]
    assert not _of(truth, "tipped") and len(_of(truth, "placed")) >= 3
    assert max(periods) / min(periods) > 1.01 and max(phases) - min(phases) > 1.0


def _first_fall_fast(truth: list[dict]) -> None:
    tip = _of(truth, "tipped")[0]["t_ms"]
    assert min(f["t_ms"] for f in _of(truth, "fell")) - tip <= 100


def _rim(kind: str) -> Callable[[list[dict]], None]:
    def check(truth: list[dict]) -> None:
        assert _of(truth, "tipped") and _of(truth, "rim_contact")[0]["rim"] == kind
    return check


def _ringing(truth: list[dict]) -> None:
    assert 8 <= _of(truth, "ringing")[0]["freq_hz"] <= 40


def _relevel(by: str) -> Callable[[list[dict]], None]:
    def check(truth: list[dict]) -> None:
        assert any(e["by"] == by for e in _of(truth, "relevel"))
        assert not _of(truth, "hand")  # righting the disc is part of the game, not a rule-breaking hand
    return check


CHECKS: dict[str, Callable[[list[dict]], None]] = {
    "tip_during_press": _tip_during_press,
    "tip_at_release": _tip_at_release,
    "tip_after_slow_creep": _tip_after_creep,
    "fast_press_skewed_clocks": _skewed,
    "first_pawn_falls_within_100ms": _first_fall_fast,
    "pawn_lands_on_base_plate": lambda tr: _of(tr, "fell") and any(
        f.get("lands_on") == "base" for f in _of(tr, "fell")),
    "hard_rim_strike": _rim("hard"),
    "felt_pad_rim": _rim("felt"),
    "ringing_rim_strike": _ringing,
    "bouncing_rim": _rim("bounce"),
    "survivors_slide_downhill": lambda tr: _of(tr, "moved") and _of(tr, "tipped"),
    "hand_relevels_tipped_disc": _relevel("hand"),
    "rocker_large_residual_moment": lambda tr: _of(tr, "tipped") and tr[0]["build"]["com_mm"] >= 60,
    "spring_pivot_rights_itself": _relevel("self"),
    "long_pinch": lambda tr: _of(tr, "removed")[0]["pinch_ms"] >= 800,
    "two_finger_steadying": lambda tr: 10 <= _of(tr, "hand")[0]["force_g"] <= 100,
    "palm_steadying": lambda tr: _of(tr, "hand")[0]["force_g"] >= 150,
    "miscalibrated_cells": lambda tr: len(_of(tr, "placed")) >= 3 and tr[0]["family"] == "creep-felt",
    "cell_fault": lambda tr: _of(tr, "fault")[0]["kind"] == "stuck",
}


def test_every_scenario_has_a_check() -> None:
    assert set(CHECKS) == set(SCENARIOS)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_contains_its_failure_mode(name: str) -> None:
    header, samples, truth = SCENARIOS[name](0)
    meta = truth[0]
    assert meta["event"] == "scenario" and meta["failure_mode"] == name
    assert [e["t_ms"] for e in truth[1:]] == sorted(e["t_ms"] for e in truth[1:])
    assert len(samples) > 1500 and len(header.cells) == 4
    result = CHECKS[name](truth)
    assert result is None or result


@pytest.mark.parametrize("name", ["tip_during_press", "first_pawn_falls_within_100ms", "palm_steadying"])
def test_scenarios_run_at_10_sps_on_3_cells_and_are_deterministic(name: str) -> None:
    a = SCENARIOS[name](2, cells=3, rate_hz=10, noise_g=0.25)
    b = SCENARIOS[name](2, cells=3, rate_hz=10, noise_g=0.25)
    assert a[1] == b[1] and a[2] == b[2]
    assert len(a[0].cells) == 3 and a[0].rate_hz == 10
    result = CHECKS[name](a[2])
    assert result is None or result
