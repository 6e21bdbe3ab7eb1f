"""companion.players: the wall-clock wrapper of the computer players."""

from __future__ import annotations

import random

import pytest

from companion.games.pinuid_dobbal import PinuidDobbalRules, Roll, apply, legal_actions
from companion.players import STRENGTHS, best_move, computer_action

RULES = PinuidDobbalRules()


@pytest.mark.parametrize("strength", STRENGTHS)
def test_computer_action_is_legal_within_the_time(strength):
    s = apply(RULES.initial_state({"type": "new_game", "players": ["A", "B"]}), Roll((2, 1, 3)))
    assert computer_action("pinuid-dobbal", s, strength, 0.05, random.Random(2)) in legal_actions(s)


def test_best_move_refuses_a_roll():
    s = RULES.initial_state({"type": "new_game", "players": ["A", "B"]})
    with pytest.raises(ValueError, match="no player decides"):
        best_move("pinuid-dobbal", s, 0.01)
