"""``Match``: a game with its history of actions; exact replay, undo and JSON round trip."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from companion.games.base import ActionFormatError
from companion.games.dingo_disc.actions import Action, NewGame, action_from_json
from companion.games.dingo_disc.rules import apply, initial_state
from companion.games.dingo_disc.state import State


class Match:
    """A game in progress: the history of actions and the state after each (snapshots make undo exact)."""

    def __init__(self, setup: NewGame) -> None:
        """Start a match with the ``new_game`` action ``setup`` (raises IllegalAction if invalid)."""
        self._history: list[Action] = [setup]
        self._states: list[State] = [initial_state(setup)]

    @property
    def state(self) -> State:
        """The current state."""
        return self._states[-1]

    @property
    def history(self) -> tuple[Action, ...]:
        """Every action applied, ``new_game`` first."""
        return tuple(self._history)

    def apply(self, action: Action) -> State:
        """Apply ``action``; on IllegalAction nothing changes. Returns the new state."""
        new = apply(self._states[-1], action)
        self._history.append(action)
        self._states.append(new)
        return new

    def undo(self) -> Action:
        """Drop the last action and return it; the state is the one before it. ``new_game`` stays."""
        if len(self._history) == 1:
            raise IndexError("nothing to undo: only new_game has been played")
        self._states.pop()
        return self._history.pop()

    @classmethod
    def replay(cls, actions: Iterable[Action]) -> Match:
        """Rebuild a match from its actions (the first must be ``new_game``)."""
        it = iter(actions)
        setup = next(it, None)
        if not isinstance(setup, NewGame):
            raise ActionFormatError("a match's history must start with a new_game action")
        match = cls(setup)
        for action in it:
            match.apply(action)
        return match

    def to_json(self) -> dict[str, Any]:
        """``{"game": "dingo-disc", "actions": [...]}``: everything needed to rebuild the match."""
        return {"game": "dingo-disc", "actions": [a.to_json() for a in self._history]}

    @classmethod
    def from_json(cls, data: Any) -> Match:
        """Rebuild from ``to_json()`` output (or a plain list of action objects)."""
        actions = data.get("actions") if isinstance(data, dict) else data
        if not isinstance(actions, list):
            raise ActionFormatError("a match is {\"actions\": [...]} or a list of actions")
        return cls.replay(action_from_json(a) for a in actions)
