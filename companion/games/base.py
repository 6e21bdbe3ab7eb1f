"""The game-module protocol shared by every game the companion can referee.

A game module is pure: no I/O, no clock, no randomness, no threads. Its state and actions are
immutable values; :meth:`GameRules.apply` returns a new state or raises :class:`IllegalAction`.
"""

from __future__ import annotations

from typing import Any, Protocol


class ActionFormatError(ValueError):
    """An action's JSON form is malformed (unknown type, missing or bad field); names the field."""


class StateFormatError(ValueError):
    """A state's JSON form is malformed; names the field."""


class IllegalAction(Exception):
    """An action breaks a rule; the state it was applied to is unchanged.

    ``action`` is the offending action, ``rule`` a short stable rule id (e.g. ``not-your-turn``)
    and ``reason`` a human sentence. ``str(err)`` names the action type, the reason and the rule.
    """

    def __init__(self, action: Any, rule: str, reason: str) -> None:
        self.action = action
        self.rule = rule
        self.reason = reason
        kind = getattr(action, "type", type(action).__name__)
        super().__init__(f"{kind}: {reason} (rule: {rule})")


class GameRules(Protocol):
    """What a game module offers: a pure state machine over typed, JSON-serialisable actions."""

    name: str

    def initial_state(self, setup: Any) -> Any:
        """Return the state right after the setup action (``new_game``)."""
        ...

    def apply(self, state: Any, action: Any) -> Any:
        """Return the state after ``action``; raise :class:`IllegalAction` and change nothing if illegal."""
        ...

    def action_from_json(self, data: Any) -> Any:
        """Build a typed action from its JSON form; raise :class:`ActionFormatError` if malformed."""
        ...

    def state_from_json(self, data: Any) -> Any:
        """Build a state from ``state.to_json()``; raise :class:`StateFormatError` if malformed."""
        ...
