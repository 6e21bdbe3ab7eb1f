"""The Dingo Disc rules core: both versions of the rulebook, pure (see docs/rules.md, docs/actions.md)."""

from __future__ import annotations

from typing import Any

from companion.games.dingo_disc.actions import (
    ACTION_TYPES,
    COLOURS,
    SIZES,
    AcceptPlacement,
    Action,
    ConfirmFall,
    CorrectFall,
    CorrectSize,
    DismissFlag,
    EndGame,
    Fall,
    FirstPlayer,
    Give,
    Hand,
    NewGame,
    Place,
    RedoPlacement,
    Removed,
    Roll,
    RollColour,
    TakeDice,
    action_from_json,
)
from companion.games.dingo_disc.expected import expected
from companion.games.dingo_disc.match import Match
from companion.games.dingo_disc.rules import apply, initial_state
from companion.games.dingo_disc.state import State, state_from_json


class DingoDiscRules:
    """The ``GameRules`` object of Dingo Disc (registered as ``"dingo-disc"``)."""

    name = "dingo-disc"

    def initial_state(self, setup: Any) -> State:
        """State after ``new_game`` (an action or its JSON object)."""
        if isinstance(setup, dict):
            setup = action_from_json(setup)
        return initial_state(setup)

    def apply(self, state: State, action: Action) -> State:
        """Pure transition; raises IllegalAction."""
        return apply(state, action)

    def action_from_json(self, data: Any) -> Action:
        """Typed action from JSON; raises ActionFormatError."""
        return action_from_json(data)

    def state_from_json(self, data: Any) -> State:
        """State from ``State.to_json()``; raises StateFormatError."""
        return state_from_json(data)

    def new_match(self, setup: Any) -> Match:
        """A :class:`Match` started by ``setup`` (a NewGame or its JSON object)."""
        if isinstance(setup, dict):
            setup = action_from_json(setup)
        if not isinstance(setup, NewGame):
            raise TypeError("new_match needs a new_game action")
        return Match(setup)


__all__ = [
    "ACTION_TYPES", "COLOURS", "SIZES", "AcceptPlacement", "Action", "ConfirmFall", "CorrectFall",
    "CorrectSize", "DingoDiscRules", "DismissFlag", "EndGame", "Fall", "FirstPlayer", "Give", "Hand", "Match",
    "NewGame", "Place",
    "RedoPlacement", "Removed", "Roll", "RollColour", "State", "TakeDice", "action_from_json", "apply",
    "expected", "initial_state", "state_from_json",
]
