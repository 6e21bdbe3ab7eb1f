"""JSON forms: actions and states round trip; bad input is refused with a message naming the problem."""

from __future__ import annotations

import pytest

from companion.games.base import ActionFormatError, IllegalAction, StateFormatError
from companion.games.pinuid_dobbal import (
    Assign,
    Move,
    NewGame,
    PinuidDobbalRules,
    PutBack,
    Remove,
    Roll,
    action_from_json,
    state_from_json,
)

RULES = PinuidDobbalRules()


@pytest.mark.parametrize("action", [Roll((1, 2, 3)), Assign(2), Move("a1", "a3"), Remove("c7"), PutBack("a1"),
                                    NewGame(players=("A", "B"), options=(("width", 7),))])
def test_action_json_round_trip(action):
    assert action_from_json(action.to_json()) == action


@pytest.mark.parametrize(("data", "message"), [
    ([], "JSON object"),
    ({"type": "jump"}, "unknown action type"),
    ({"type": "move", "from": "a1"}, "missing field 'to'"),
    ({"type": "move", "from": "a1", "to": 3}, "move.to must be a square"),
    ({"type": "move", "from": "a1", "to": "a2", "die": 1}, "unknown field 'die'"),
    ({"type": "roll", "dice": [1, 2]}, "three numbers"),
    ({"type": "roll", "dice": [1, 2, True]}, r"roll.dice\[2\]"),
    ({"type": "assign"}, "missing field 'play'"),
    ({"type": "new_game", "players": "Anna"}, "list of names"),
])
def test_bad_action_json_names_the_field(data, message):
    with pytest.raises(ActionFormatError, match=message):
        action_from_json(data)


@pytest.mark.parametrize(("options", "message"), [
    ({"colour": "red"}, "unknown option 'colour'"),
    ({"width": 5}, "option width must be one of"),
    ({"move_diagonals": 1}, "option move_diagonals"),
    ({"dice": "1-4"}, "option dice"),
])
def test_bad_setup_options_are_refused_by_name(options, message):
    with pytest.raises(IllegalAction, match=message):
        RULES.initial_state({"type": "new_game", "players": ["A", "B"], "options": options})


def test_setup_spec_lists_every_option_with_its_default():
    spec = RULES.setup_spec()
    assert (spec.min_players, spec.max_players) == (2, 2)
    names = [o.name for o in spec.options]
    assert names == ["width", "height", "opening", "dice", "play_pin_die", "move_diagonals",
                     "adjacent_diagonals", "play_pin_own_back_line", "double_normal_turn", "removal_limit",
                     "win_needs_all_moves", "seat_1", "seat_2"]
    s = RULES.initial_state({"type": "new_game", "players": ["A", "B"]})
    assert s.to_json()["options"] == {o.name: o.default for o in spec.options}


def test_square_outside_the_board_is_illegal_with_a_reason():
    s = RULES.apply(RULES.initial_state({"type": "new_game", "players": ["A", "B"]}), Roll((1, 2, 1)))
    with pytest.raises(IllegalAction, match="not a square of this 6 x 7 board") as err:
        RULES.apply(s, Move("a1", "z9"))
    assert err.value.rule == "off-board"


def test_state_json_round_trip_mid_turn():
    setup = {"type": "new_game", "players": ["A", "B"], "options": {"play_pin_die": "chosen"}}
    s = RULES.initial_state(setup)
    for a in (Roll((1, 2, 3)), Assign(3), Move("b1", "b2")):
        s = RULES.apply(s, a)
        assert state_from_json(s.to_json()) == s
    js = s.to_json()
    assert js["game"] == "pinuid-dobbal" and js["players"] == ["A", "B"] and js["phase"] == "move"


@pytest.mark.parametrize(("change", "message"), [
    (lambda js: js.update(game="chess"), "game must be"),
    (lambda js: js.update(play_pin="z1"), "play_pin must be a square"),
    (lambda js: js["pins"][0].append("q9"), r"pins\[0\]\[5\]"),
    (lambda js: js.update(phase="dance"), "phase must be one of"),
    (lambda js: js.pop("turn"), "missing field 'turn'"),
    (lambda js: js["options"].update(width=99), "option width"),
])
def test_bad_state_json_names_the_field(change, message):
    js = RULES.initial_state({"type": "new_game", "players": ["A", "B"]}).to_json()
    change(js)
    with pytest.raises(StateFormatError, match=message):
        state_from_json(js)
