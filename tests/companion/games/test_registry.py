"""The games registry and the GameRules protocol as other parts use them."""

from __future__ import annotations

import pytest

from companion.games import GAMES, ActionFormatError, IllegalAction, games_registry, get_game
from companion.games.dingo_disc import Match, NewGame, Roll


def test_registry_holds_dingo_disc_and_is_read_only():
    assert {"dingo-disc", "dingo-cards", "pinuid-dobbal", "dodos-riding-dinos"} <= set(GAMES)
    with pytest.raises(TypeError):
        GAMES["other"] = None  # type: ignore[index]
    assert set(games_registry()) == set(GAMES)
    with pytest.raises(KeyError, match="unknown game 'chess'; known games: " + ", ".join(sorted(GAMES))):
        get_game("chess")


def test_rules_object_follows_the_protocol():
    rules = get_game("dingo-disc")
    state = rules.initial_state({"type": "new_game", "version": 2, "players": ["Anna", "Bob"]})
    state = rules.apply(state, rules.action_from_json({"type": "first_player", "seat": 1}))
    assert rules.state_from_json(state.to_json()) == state
    with pytest.raises(ActionFormatError):
        rules.action_from_json({"type": "roll"})
    with pytest.raises(IllegalAction) as err:
        rules.apply(state, Roll(number=3))
    assert err.value.rule == "wrong-phase" and err.value.reason
    match = rules.new_match(NewGame(version=1, players=("A", "B")))
    assert isinstance(match, Match) and len(match.history) == 1
    with pytest.raises(IndexError, match="nothing to undo"):
        match.undo()
