"""``Match``: a Dingo Disc game with its history; the generic :class:`GameMatch` over the Disc's rules."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from companion.games.base import ActionFormatError
from companion.games.dingo_disc.actions import Action, NewGame, action_from_json
from companion.games.match import GameMatch


def _rules() -> Any:
    from companion.games.dingo_disc.module import DINGO_DISC

    return DINGO_DISC


class Match(GameMatch):
    """A Dingo Disc match (history, states, exact undo): ``GameMatch(DingoDiscRules(), setup)``."""

    def __init__(self, setup: NewGame) -> None:
        """Start a match with the ``new_game`` action ``setup`` (raises IllegalAction if invalid)."""
        self.rules = _rules()
        self._states = [self.rules.initial_state(setup)]
        self._history = [setup]

    @classmethod
    def replay(cls, actions: Iterable[Action]) -> Match:  # type: ignore[override]
        """Rebuild a match from its actions (the first must be ``new_game``)."""
        it = iter(actions)
        setup = next(it, None)
        if not isinstance(setup, NewGame):
            raise ActionFormatError("a match's history must start with a new_game action")
        match = cls(setup)
        for action in it:
            match.apply(action)
        return match

    @classmethod
    def from_json(cls, data: Any) -> Match:  # type: ignore[override]
        """Rebuild from ``to_json()`` output (or a plain list of action objects)."""
        actions = data.get("actions") if isinstance(data, dict) else data
        if not isinstance(actions, list):
            raise ActionFormatError("a match is {\"actions\": [...]} or a list of actions")
        return cls.replay(action_from_json(a) for a in actions)
