"""The Dingo Disc rules core: both versions of the rulebook, pure (see docs/rules.md, docs/actions.md)."""

from __future__ import annotations

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
from companion.games.dingo_disc.module import DINGO_DISC, FREE_FIELDS, DingoDiscRules
from companion.games.dingo_disc.rules import apply, initial_state
from companion.games.dingo_disc.state import State, state_from_json

__all__ = [
    "ACTION_TYPES", "COLOURS", "DINGO_DISC", "FREE_FIELDS", "SIZES", "AcceptPlacement", "Action",
    "ConfirmFall", "CorrectFall", "CorrectSize", "DingoDiscRules", "DismissFlag", "EndGame", "Fall",
    "FirstPlayer", "Give", "Hand", "Match", "NewGame", "Place", "RedoPlacement", "Removed", "Roll",
    "RollColour", "State", "TakeDice", "action_from_json", "apply", "expected", "initial_state",
    "state_from_json",
]
