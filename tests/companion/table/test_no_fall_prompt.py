"""The controller asks "Did any pawns fall?" after a tip in which the sensors saw no fall."""

from __future__ import annotations

import pytest

from companion.table.controller import RequestError
from tests.companion.table.test_controller import FakeStore, roll_to_place, started

PLACED = {"event": "placed", "t_ms": 900, "size": "small", "mass_g": 2.1, "x_mm": 0.0, "y_mm": 60.0,
          "zone": "blue", "number": 4}
TIP = [{"event": "tipped", "t_ms": 2000}, {"event": "settled", "t_ms": 2600}]


def anna_placed(store=None):
    """Anna (seat 0) places a small on blue 4; Ben's turn, Anna's fall window open."""
    c = started(store=store)
    roll_to_place(c)
    c.sensed([PLACED])
    return c


def no_fall(c) -> dict | None:
    return next((p for p in c.message()["pending"] if p["kind"] == "tip_no_fall"), None)


def test_a_tip_with_no_fall_seen_asks_the_host_and_nothing_fell_changes_nothing():
    store = FakeStore()
    c = anna_placed(store)
    c.sensed(TIP)
    prompt = no_fall(c)
    assert prompt is not None and prompt["seat"] == 0
    assert prompt["choices"] == ["Nothing fell", "These pawns fell"]
    assert ("events", 7, ["tipped", "settled"]) in store.calls  # the settled is logged though it asked
    state = c.message()["state"]
    msg = c.resolve_prompt(prompt["id"], "Nothing fell")
    assert msg["state"] == state and msg["pending"] == []
    assert msg["feed"][0]["text"] == "The disc tipped but no fall was seen. Did any pawns fall? Nothing fell"


def test_the_counted_pawns_apply_the_fall_the_sensors_would_have_proposed():
    store = FakeStore()
    c = anna_placed(store)
    c.sensed([{"event": "tipped", "t_ms": 2000}, {"event": "fell", "t_ms": 2100, "pawns": {}, "mass_g": 0.0},
              {"event": "settled", "t_ms": 2600}])
    prompt = no_fall(c)
    msg = c.resolve_prompt(prompt["id"], "These pawns fell", pawns={"small": 1})
    history = c._game.history_json(c._match)
    assert history[-1] == {"type": "fall", "pawns": {"small": 1, "medium": 0, "large": 0}, "tipped": True,
                           "confident": True, "placed_fell": None}
    assert ("action", 7, "fall", "page", None) in store.calls  # logged as the host's answer
    # the placed pawn fell: Anna's attempt failed, she places again (attempt 2)
    state = msg["state"]
    assert state["phase"] == "place" and state["current"] == 0 and state["attempt"] == 2
    assert state["players"][0]["supply"]["small"] == 6 and msg["pending"] == []
    assert msg["feed"][0]["text"].endswith("These pawns fell: 1 small")


@pytest.mark.parametrize(("pawns", "says"), [
    ({"small": -1}, "cannot be negative"),
    ({"tiny": 1}, "no pawn size 'tiny'"),
    ({"small": 2}, "only 1 small pawn is on the disc"),
    ({"large": 1}, "only 0 large pawns are on the disc"),
    ({}, "no pawn counted"),
    (None, "needs 'pawns'"),
])
def test_a_bad_count_is_refused_naming_the_problem_and_changes_nothing(pawns, says):
    c = anna_placed()
    c.sensed(TIP)
    prompt, before = no_fall(c), c.message()
    with pytest.raises(RequestError, match=says) as info:
        c.resolve_prompt(prompt["id"], "These pawns fell", pawns=pawns)
    assert info.value.status == 400
    after = c.message()
    assert after["version"] == before["version"] and after["state"] == before["state"]
    assert after["pending"] == before["pending"]


def test_counts_with_nothing_fell_are_refused():
    c = anna_placed()
    c.sensed(TIP)
    with pytest.raises(RequestError, match="takes no pawn counts"):
        c.resolve_prompt(no_fall(c)["id"], "Nothing fell", pawns={"small": 1})
    assert no_fall(c) is not None


def test_a_fall_entered_by_hand_during_the_tip_means_no_question():
    c = anna_placed()
    c.sensed(TIP[:1])
    c.apply({"type": "fall", "pawns": {"small": 1}, "tipped": True})
    c.sensed(TIP[1:])
    assert no_fall(c) is None


def test_a_fall_seen_by_the_sensors_means_no_question():
    c = anna_placed()
    c.sensed([TIP[0], {"event": "fell", "t_ms": 2100, "pawns": {"small": 1}, "mass_g": 2.1}, TIP[1]])
    assert no_fall(c) is None


def test_a_fall_entered_after_the_question_closes_it():
    c = anna_placed()
    c.sensed(TIP)
    c.apply({"type": "fall", "pawns": {"small": 1}, "tipped": True})
    assert no_fall(c) is None


def test_the_question_closes_once_the_next_player_takes_the_dice():
    c = anna_placed()
    c.sensed(TIP)
    assert no_fall(c)["seat"] == 0
    msg = c.apply({"type": "take_dice"})  # from now falls are Ben's: the answer would go to him
    assert no_fall(c) is None
    assert any(e["text"] == "The tip's question is closed: the game moved on" for e in msg["feed"])


def test_no_question_before_the_game_is_in_play():
    c = started()  # phase roll, nothing on the disc
    c.sensed(TIP)
    assert no_fall(c) is None
    c.new_game({"version": 1, "players": ["A", "B"]})  # phase first_player
    c.sensed(TIP)
    assert no_fall(c) is None


def test_the_panel_confirm_answers_nothing_fell():
    c = anna_placed()
    c.sensed(TIP)
    state = c.message()["state"]
    msg = c.press_button("confirm")
    assert msg["pending"] == [] and msg["state"] == state
