"""SetupSpec.resolve_options: the one option check the card game and Dodos share."""

from __future__ import annotations

import pytest

from companion.games import GAMES
from companion.games.base import IllegalAction, OptionError, SetupOption, SetupSpec

SPEC = SetupSpec(2, 4, (SetupOption("rounds", 4, (2, 4, 8)), SetupOption("bonus", True, (True, False)),
                        SetupOption("mode", "short", ("short", "long")), SetupOption("note", "", ("",))))


def test_defaults_fill_the_options_not_given():
    opts = SPEC.resolve_options([("mode", "long")])
    assert opts == {"rounds": 4, "bonus": True, "mode": "long", "note": ""}


@pytest.mark.parametrize(("given", "message"), [
    ([("colour", "red")], "unknown option 'colour' (options: rounds, bonus, mode, note)"),
    ([("rounds", 3)], "option rounds must be one of 2, 4, 8, got 3"),
    ([("rounds", 4.0)], "option rounds must be one of 2, 4, 8, got 4.0"),
    ([("rounds", True)], "option rounds must be one of 2, 4, 8, got True"),
    ([("bonus", 1)], "option bonus must be one of True, False, got 1"),
    ([("mode", "short"), ("note", "hi")], "option note must be one of , got 'hi'"),
])
def test_unknown_names_and_bad_values_are_named(given, message):
    with pytest.raises(OptionError) as err:
        SPEC.resolve_options(given)
    assert str(err.value) == message


def test_free_options_take_any_value():
    assert SPEC.resolve_options([("note", "hi")], free=("note",))["note"] == "hi"


def test_a_float_count_of_challengers_is_refused_with_its_name_not_a_crash():
    rules = GAMES["dodos-riding-dinos"]
    with pytest.raises(IllegalAction, match="option extra_challengers must be one of 0, 1"):
        rules.initial_state({"type": "new_game", "players": ["Ana", "Ben", "Cleo"],
                             "options": {"extra_challengers": 1.0}})
