"""``Pipeline.told_fallen``: pawns the host says fell in a tip whose fall the sensors did not see lie on
the base plate, still weighed: the pipeline moves them from the disc to ``base_pawns``."""

from __future__ import annotations

import pytest

from companion.sensing.falls import Pawn
from companion.sensing.pipeline import Pipeline
from tests.companion.sensing.conftest import MASSES, Table


def _pipe(pawns: list[Pawn]) -> Pipeline:
    pipe = Pipeline(Table().header)
    pipe.pawns = list(pawns)
    return pipe


def _pawn(size: str, x: float | None, y: float | None) -> Pawn:
    return Pawn(size, MASSES[size], x, y)


def test_the_pawns_told_fallen_move_to_the_base_plate_those_nearest_the_low_rim_first() -> None:
    # the disc tips towards -y (the pawns' moment): of the two smalls, the one at -110 mm fell
    medium, small_up, small_down = _pawn("medium", 0, -60), _pawn("small", 0, 140), _pawn("small", 0, -110)
    pipe = _pipe([medium, small_up, small_down])
    assert pipe.told_fallen({"small": 1, "medium": 1}) == []
    assert pipe.pawns == [small_up]
    assert sorted(pipe.base_pawns, key=lambda p: p.size) == [medium, small_down]
    assert [p["size"] for p in pipe.snapshot()["pawns"]] == ["small"]  # the page's disc


def test_on_a_balanced_disc_the_outermost_pawns_are_taken_as_fallen() -> None:
    # moment about 0: the direction of the tip is not known, so the outermost small fell
    inner, outer, medium = _pawn("small", -60, 0), _pawn("small", 120, 0), _pawn("medium", -27.4, 0)
    pipe = _pipe([inner, outer, medium])
    pipe.told_fallen({"small": 1})
    assert pipe.pawns == [inner, medium] and pipe.base_pawns == [outer]


def test_without_positions_the_latest_placed_pawn_of_the_size_is_taken_as_fallen() -> None:
    first = Pawn("small", 2.0, None, None)  # a little lighter: equal pawns would not tell which moved
    medium, last = _pawn("medium", None, None), _pawn("small", None, None)
    pipe = _pipe([first, medium, last])
    pipe.told_fallen({"small": 1, "large": 0})
    assert pipe.pawns == [first, medium] and pipe.base_pawns == [last]


@pytest.mark.parametrize(("counts", "message"), [
    ({"huge": 1}, "there is no pawn size 'huge'"),
    ({"small": -1}, "the count of small pawns must be a whole number of at least 0, got -1"),
    ({"small": 1.0}, "must be a whole number"),
    ({"small": True}, "must be a whole number"),
    ({"small": 3}, "3 small pawns cannot have fallen: the sensors track 2 small pawns on the disc"),
    ({"small": 1, "large": 1}, "1 large pawn cannot have fallen: the sensors track 0 large pawns"),
    ([("small", 1)], "counts by size"),
])
def test_a_bad_told_fall_raises_naming_the_problem_and_changes_nothing(counts, message: str) -> None:
    pawns = [_pawn("small", 0, 100), _pawn("medium", 50, 0), _pawn("small", 0, -100)]
    pipe = _pipe(pawns)
    pipe.base_pawns = [_pawn("large", 160, 0)]
    with pytest.raises(ValueError, match=message):
        pipe.told_fallen(counts)
    assert pipe.pawns == pawns and pipe.base_pawns == [_pawn("large", 160, 0)]


def _pick_up_after_told(told: dict[str, int] | None) -> list[dict]:
    """A mass-only table (one cell): a small and a medium set down; then (at 9 s) the host says the
    small fell, or says nothing; at 10 s a pinch lifts a small pawn's weight away. The events from 9 s."""
    tab = Table(cells=1, noise_g=0.05)
    tab.place(2.0, "small", 0.0, 0.0)
    tab.place(5.0, "medium", 0.0, 0.0)
    tab.remove(10.0, "small", 0.0, 0.0)
    pipe = Pipeline(tab.header)
    before: list[dict] = []
    after: list[dict] = []
    for s in tab.samples(16.0):
        if s.t_ms >= 9000 and told is not None:
            pipe.told_fallen(told)
            told = None
        (before if s.t_ms < 9000 else after).extend(pipe.feed(s))
    assert [(e["event"], e["size"]) for e in before] == [("placed", "small"), ("placed", "medium")]
    return after


def test_a_pawn_told_fallen_picked_up_off_the_base_plate_is_no_removal() -> None:
    assert [e["event"] for e in _pick_up_after_told(None)] == ["removed"]  # untold: off the disc
    assert _pick_up_after_told({"small": 1}) == []  # told: it lay on the base plate
