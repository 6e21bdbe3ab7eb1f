"""JSON forms: every action type round-trips; malformed actions and states name the problem."""

from __future__ import annotations

import pytest

from companion.games.base import ActionFormatError, StateFormatError
from companion.games.dingo_disc import ACTION_TYPES, Fall, NewGame, Place, action_from_json, state_from_json


def test_every_action_type_round_trips():
    examples = {
        "new_game": {"type": "new_game", "version": 2, "players": ["A", "B"],
                     "options": {"draw_window": "cycle"}},
        "first_player": {"type": "first_player", "seat": 1, "drawn": True},
        "roll_colour": {"type": "roll_colour", "colour": "purple"},
        "take_dice": {"type": "take_dice"},
        "roll": {"type": "roll", "number": 4, "colour": "blue"},
        "give": {"type": "give", "giver": 2, "size": "medium"},
        "place": {"type": "place", "size": "large", "zone": None, "number": None, "x_mm": 1.5, "y_mm": -3,
                  "sensed": True},
        "accept_placement": {"type": "accept_placement"},
        "redo_placement": {"type": "redo_placement"},
        "fall": {"type": "fall", "pawns": {"small": 1, "large": 2}, "tipped": True, "placed_fell": None,
                 "confident": False},
        "confirm_fall": {"type": "confirm_fall", "pawns": {"medium": 1}},
        "correct_fall": {"type": "correct_fall", "pawns": {}, "placed_fell": False},
        "correct_size": {"type": "correct_size", "size": "small"},
        "hand": {"type": "hand", "duration_ms": 1200},
        "dismiss_flag": {"type": "dismiss_flag", "id": 3},
        "removed": {"type": "removed", "size": "large"},
        "end_game": {"type": "end_game"},
    }
    assert set(examples) == {cls.type for cls in ACTION_TYPES}
    for data in examples.values():
        action = action_from_json(data)
        again = action_from_json(action.to_json())
        assert again == action and again.to_json() == action.to_json()
    assert action_from_json(examples["fall"]) == Fall(pawns=(1, 0, 2), tipped=True, confident=False)
    assert action_from_json({"type": "place", "size": "small"}) == Place(size="small")
    assert action_from_json(examples["new_game"]) == NewGame(version=2, players=("A", "B"),
                                                             options=(("draw_window", "cycle"),))


@pytest.mark.parametrize(("data", "message"), [
    ([1], "an action must be a JSON object"),
    ({"type": "jump"}, "unknown action type 'jump'"),
    ({"number": 3}, "unknown action type None"),
    ({"type": "roll", "number": "3"}, "roll.number must be a whole number"),
    ({"type": "roll", "number": True}, "roll.number must be a whole number"),
    ({"type": "roll", "number": 3, "colour": "pink"}, "roll.colour must be one of red"),
    ({"type": "give", "giver": 1}, "give: missing field 'size'"),
    ({"type": "fall", "pawns": {"tiny": 1}}, "fall.pawns: unknown size 'tiny'"),
    ({"type": "fall", "pawns": {"small": -1}}, "fall.pawns.small must be a whole number >= 0"),
    ({"type": "fall", "pawns": [1, 0, 0]}, "fall.pawns must be an object"),
    ({"type": "place", "size": "small", "x_mm": float("nan")}, "place.x_mm must be a finite number"),
    ({"type": "new_game", "version": 1, "players": "AB"}, "new_game.players must be a list of names"),
    ({"type": "take_dice", "now": True}, "take_dice: unknown field 'now' (fields: none)"),
    ({"type": "hand", "duration_ms": None}, "hand.duration_ms must not be null"),
])
def test_malformed_actions_name_the_problem(data, message):
    with pytest.raises(ActionFormatError) as err:
        action_from_json(data)
    assert str(err.value).startswith(message)


def test_malformed_states_name_the_field(h):
    good = h.turn(h.start(1)).to_json()
    assert state_from_json(good).to_json() == good
    for path, value, message in [
        (("game",), "chess", "state: game must be 'dingo-disc'"),
        (("phase",), "dancing", "state.phase must be one of"),
        (("players",), [], "state.players must list 2 to 6 players"),
        (("disc", "small"), -1, "state.disc has a negative count"),
        (("dice", "number"), "4", "state.dice.number must be a whole number"),
        (("fall_window",), {"seat": 0}, "state.fall_window: missing field 'round'"),
        (("options", "draw_window"), "never", "state.options.draw_window must be one of round, cycle"),
    ]:
        bad = state_from_json(good).to_json()
        target = bad
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        with pytest.raises(StateFormatError, match=message.replace("(", r"\(")):
            state_from_json(bad)
    with pytest.raises(StateFormatError, match="state: missing field 'flags'"):
        state_from_json({k: v for k, v in good.items() if k != "flags"})
