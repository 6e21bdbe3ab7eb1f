"""The computer at the table: "show the best move" and a computer player for the games that have one.

The search runs outside the controller's lock (about a second of thought); its result is applied
only if the game has not moved on meanwhile, so a late answer never overwrites a player's move.
"""

from __future__ import annotations

from typing import Any

from companion.table.errors import RequestError

THINK_S = 1.0
"""Seconds of thought per decision (the issue's budget on a Raspberry Pi)."""


def hint(controller: Any, seconds: float = THINK_S) -> dict:
    """The best move now as ``{"action", "text", ...}``; 409 naming why when there is none."""
    from companion.players import best_move

    game, state, _ = controller.current()
    try:
        return best_move(game, state, seconds=seconds)
    except ValueError as exc:
        raise RequestError(str(exc), 409) from exc


def computer_move(controller: Any, strength: str = "mcts", seconds: float = THINK_S) -> dict:
    """Let the computer make the current decision (``strength``: random, greedy or mcts)."""
    from companion.players import STRENGTHS, computer_action

    if strength not in STRENGTHS:
        raise RequestError(f"'strength' must be one of {list(STRENGTHS)}, got {strength!r}")
    game, state, version = controller.current()
    try:
        action = computer_action(game, state, strength=strength, seconds=seconds)
    except ValueError as exc:
        raise RequestError(str(exc), 409) from exc
    if controller.version != version:
        raise RequestError("the game moved on while the computer was thinking; ask again", 409)
    return controller.apply(action.to_json(), by="companion")
