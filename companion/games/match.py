"""``GameMatch``: any registered game with its history of actions; exact undo, replay and JSON form.

The match keeps every state it went through (states are immutable values, so a snapshot costs a
reference), which makes undo exact whatever the game: ``undo`` drops the last action and its state.
``GameMatch.replay(rules, actions)`` rebuilds a match from its logged actions (``new_game`` first).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from companion.games.base import ActionFormatError


class GameMatch:
    """A game in progress: the rules, the actions applied (``new_game`` first) and the state after each."""

    def __init__(self, rules: Any, setup: Any) -> None:
        """Start with the ``new_game`` action ``setup`` (typed or JSON); IllegalAction/ActionFormatError
        if the setup is refused."""
        if isinstance(setup, dict):
            setup = rules.action_from_json(setup)
        if getattr(setup, "type", None) != "new_game":
            kind = getattr(setup, "type", setup)
            raise ActionFormatError(f"a match starts with a new_game action, got {kind!r}")
        self.rules = rules
        self._states: list[Any] = [rules.initial_state(setup)]
        self._history: list[Any] = [setup]

    @property
    def state(self) -> Any:
        """The current state."""
        return self._states[-1]

    @property
    def history(self) -> tuple[Any, ...]:
        """Every action applied, ``new_game`` first."""
        return tuple(self._history)

    @property
    def states(self) -> tuple[Any, ...]:
        """The state after each action of :attr:`history` (same length)."""
        return tuple(self._states)

    def apply(self, action: Any) -> Any:
        """Apply ``action`` (typed or JSON); on IllegalAction nothing changes. Returns the new state."""
        if isinstance(action, dict):
            action = self.rules.action_from_json(action)
        new = self.rules.apply(self._states[-1], action)
        self._history.append(action)
        self._states.append(new)
        return new

    def undo(self) -> Any:
        """Drop the last action and return it; the state is the one before it. ``new_game`` stays."""
        if len(self._history) == 1:
            raise IndexError("nothing to undo: only new_game has been played")
        self._states.pop()
        return self._history.pop()

    @classmethod
    def replay(cls, rules: Any, actions: Iterable[Any]) -> GameMatch:
        """Rebuild a match from its actions (typed or JSON; the first must be ``new_game``)."""
        it = iter(actions)
        setup = next(it, None)
        if setup is None:
            raise ActionFormatError("a match's history must start with a new_game action (it is empty)")
        match = cls(rules, setup)
        for action in it:
            match.apply(action)
        return match

    def to_json(self) -> dict[str, Any]:
        """``{"game": name, "actions": [...]}``: everything needed to rebuild the match."""
        return {"game": self.rules.name, "actions": [a.to_json() for a in self._history]}

    @classmethod
    def from_json(cls, rules: Any, data: Any) -> GameMatch:
        """Rebuild from :meth:`to_json` output (or a plain list of action objects)."""
        actions = data.get("actions") if isinstance(data, dict) else data
        if not isinstance(actions, list):
            raise ActionFormatError("a match is {\"actions\": [...]} or a list of actions")
        return cls.replay(rules, actions)
