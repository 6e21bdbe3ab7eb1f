"""Calibration math on synthetic cells with known truth, and its sanity checks."""

from __future__ import annotations

import random

import pytest

from companion.calibration import (
    CalibrationError,
    offsets_from,
    pawn_masses_from,
    rest_check,
    scales_from,
    stillness_issues,
    summarise,
)
from companion.sensing.trace import Sample

R = 120.0
POSITIONS = [(R, 0.0), (0.0, R), (-R, 0.0), (0.0, -R)]
OFFSETS = [84213.0, -11873.0, 230511.0, -40012.0]
CPG = [412.7, 405.1, -398.3, 420.9]  # cell 2 wired the other way round


def shares(x: float, y: float) -> list[float]:
    """Load share of each cell for a point load at (x, y) on a rigid plate on four equal springs."""
    return [0.25 + (x * xi + y * yi) / (2 * R * R) for xi, yi in POSITIONS]


def window(loads: list[tuple[float, float, float]], *, cpg=CPG, offsets=OFFSETS, noise_g=0.05,
           n=80, seed=1, order=(0, 1, 2, 3), jitter_g=0.0):
    """Samples of the cells under point loads (grams, x, y); ``order`` permutes the wiring."""
    rng = random.Random(seed)
    grams = [0.0] * 4
    for g, x, y in loads:
        for i, s in enumerate(shares(x, y)):
            grams[i] += g * s
    rows = []
    for k in range(n):
        wobble = jitter_g * (1 if k % 2 else -1)
        raw = [round(offsets[i] + (grams[i] + wobble + rng.gauss(0, noise_g)) * cpg[i]) for i in range(4)]
        rows.append(Sample(k * 12, tuple(raw[j] for j in order)))
    return summarise(rows, 4)


def weight_windows(weight: float = 200.0, **kw):
    return [window([(weight, x, y)], seed=10 + k, **kw) for k, (x, y) in enumerate(POSITIONS)]


def test_recovers_offsets_scales_and_pawn_masses() -> None:
    empty = window([])
    offsets, issues = offsets_from(empty)
    assert not issues
    assert all(abs(o - t) < 20 for o, t in zip(offsets, OFFSETS, strict=True))
    result = scales_from(offsets, weight_windows(), 200.0, POSITIONS, empty)
    for got, true in zip(result.counts_per_gram, CPG, strict=True):
        assert got == pytest.approx(true, rel=0.005)
    assert [round(result.shares_g[k][k]) for k in range(4)] == [150] * 4
    # cell 2 reads the wrong way round: reported, and handled with a negative scale
    assert [(i.severity, i.cell) for i in result.issues] == [("warning", 2)]
    assert "wrong way round" in result.issues[0].message
    pawns = {"small": window([(2.1, 30.0, 10.0)], seed=3), "medium": window([(4.6, -20.0, 40.0)], seed=4),
             "large": window([(7.9, 0.0, -50.0)], seed=5)}
    masses, notes = pawn_masses_from(offsets, result.counts_per_gram, pawns)
    assert masses == pytest.approx({"small": 2.1, "medium": 4.6, "large": 7.9}, abs=0.06)
    assert not notes


def test_cell_that_does_not_change_is_an_error() -> None:
    empty = window([])
    cpg = list(CPG)
    cpg[1] = 0.01  # a dead cell: its reading hardly moves
    offsets, _ = offsets_from(window([], cpg=cpg))
    with pytest.raises(CalibrationError, match="cell 1: does not change"):
        scales_from(offsets, weight_windows(cpg=cpg), 200.0, POSITIONS, empty)


def test_cells_wired_in_another_order_are_caught() -> None:
    order = (1, 0, 2, 3)  # cells 0 and 1 swapped on the header
    offs = [OFFSETS[j] for j in order]
    offsets, _ = offsets_from(window([], order=order))
    assert all(abs(a - b) < 20 for a, b in zip(offsets, offs, strict=True))
    result = scales_from(offsets, weight_windows(order=order), 200.0, POSITIONS)
    errors = [i for i in result.issues if i.severity == "error"]
    assert {i.cell for i in errors} == {0, 1}
    assert "another order" in errors[0].message


def test_scale_far_from_the_others_is_a_warning() -> None:
    cpg = [412.7, 405.1, 398.3, 640.0]
    offsets, _ = offsets_from(window([], cpg=cpg))
    result = scales_from(offsets, weight_windows(cpg=cpg), 200.0, POSITIONS)
    far = [i for i in result.issues if "far from the others" in i.message]
    assert [i.cell for i in far] == [3]


def test_wrong_number_of_placements_and_bad_weight() -> None:
    offsets, _ = offsets_from(window([]))
    with pytest.raises(CalibrationError, match="one placement per cell"):
        scales_from(offsets, weight_windows()[:3], 200.0, POSITIONS)
    with pytest.raises(CalibrationError, match="must be positive"):
        scales_from(offsets, weight_windows(), 0, POSITIONS)


def test_pawns_in_the_wrong_order_or_missing() -> None:
    offsets, _ = offsets_from(window([]))
    wins = {"small": window([(7.9, 0, 0)]), "medium": window([(4.6, 0, 0)]), "large": window([(2.1, 0, 0)])}
    with pytest.raises(CalibrationError, match="small < medium < large"):
        pawn_masses_from(offsets, CPG, wins)
    wins = {"small": window([]), "medium": window([(4.6, 0, 0)]), "large": window([(7.9, 0, 0)])}
    with pytest.raises(CalibrationError, match="nothing was detected"):
        pawn_masses_from(offsets, CPG, wins)


def test_two_mediums_weigh_a_large_is_noted() -> None:
    offsets, _ = offsets_from(window([]))
    wins = {"small": window([(2.1, 0, 0)]), "medium": window([(4.6, 0, 0)]), "large": window([(9.2, 0, 0)])}
    _, notes = pawn_masses_from(offsets, CPG, wins)
    assert notes and "two medium" in notes[0].message


def test_rest_position_drift() -> None:
    offsets, _ = offsets_from(window([]))
    new, drift, issues = rest_check(offsets, CPG, window([(0.05, 0, 0)], seed=9), 2.1)
    assert abs(drift) < 0.2 and not issues
    new, drift, issues = rest_check(offsets, CPG, window([(1.5, 50, 0)], seed=9), 2.1)
    assert drift == pytest.approx(1.5, abs=0.05)
    assert issues and "does not come back" in issues[0].message
    assert new != offsets


def test_moving_table_is_caught() -> None:
    empty = window([])
    shaky = window([(200.0, R, 0)], jitter_g=5.0)
    assert {i.cell for i in stillness_issues(shaky, empty, "weight")} == {0, 1, 2, 3}
    assert not stillness_issues(window([(200.0, R, 0)]), empty, "weight")


def test_saturated_or_stuck_empty_disc() -> None:
    rows = [Sample(k, (8388607, 5 + k % 3, 17, 100 + k)) for k in range(40)]
    offsets, issues = offsets_from(summarise(rows, 4))
    assert [(i.cell, "full scale" in i.message or "same value" in i.message) for i in issues] == [
        (0, True), (2, True)]


def test_a_pawn_weighed_between_two_empty_readings_cancels_a_drift() -> None:
    # every cell drifts 0.1 g (about a minute of a warming cell) from the tare before to the one after
    drift = 0.1
    before = window([], noise_g=0.0)
    pawns = {size: window([(g, 0.0, 0.0), (drift / 2 * 4, 0.0, 0.0)], noise_g=0.0)
             for size, g in (("small", 2.0), ("medium", 4.5), ("large", 8.0))}
    after = window([(drift * 4, 0.0, 0.0)], noise_g=0.0)
    tares = dict.fromkeys(pawns, before)
    one_sided, _ = pawn_masses_from(OFFSETS, CPG, pawns, tares)
    assert one_sided["small"] == pytest.approx(2.0 + 2 * drift, abs=0.01)  # half the drift, 4 cells
    between, _ = pawn_masses_from(OFFSETS, CPG, pawns, tares, dict.fromkeys(pawns, after))
    assert between == pytest.approx({"small": 2.0, "medium": 4.5, "large": 8.0}, abs=0.01)
