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
    import random

    from companion.players import STRENGTHS

    if strength not in STRENGTHS:
        raise RequestError(f"'strength' must be one of {list(STRENGTHS)}, got {strength!r}")
    game, state, version = controller.current()
    if getattr(state, "phase", None) in ("roll", "over"):
        raise RequestError(f"no player decides now (phase {state.phase})", 409)
    try:
        action, record = decide(game, state, strength, random.SystemRandom().randrange(2**32), seconds)
    except ValueError as exc:
        raise RequestError(str(exc), 409) from exc
    if controller.version != version:
        raise RequestError("the game moved on while the computer was thinking; ask again", 409)
    return controller.apply(action.to_json(), by="companion", sensed=[record])


def decide(game: str, state: Any, strength: str, seed: int, seconds: float = THINK_S,
           clock: Any = None) -> tuple[Any, dict]:
    """A computer seat's move in ``state`` and the record that derives it again:
    ``(typed action, {"event": "computer", "strength", "seed", "iterations"})``.

    The choice is the pure core's with ``random.Random(seed)``; the search (``mcts``) runs in slices
    for about ``seconds`` and the record keeps how many iterations it ran (see :func:`rederive`).
    """
    import random
    import time

    from companion.players import GAMES_WITH_COMPUTER, STRENGTHS, _search

    if game not in GAMES_WITH_COMPUTER:
        raise ValueError(f"{game} has no computer player")
    if strength not in STRENGTHS:
        raise ValueError(f"unknown strength {strength!r} (strengths: {', '.join(STRENGTHS)})")
    from companion.games.pinuid_dobbal.ai import choose, to_action

    rng = random.Random(seed)
    if strength == "mcts":
        search, raw = _search(state, seconds, rng, clock or time.perf_counter)
        iterations = search.iterations
    else:
        raw, iterations = choose(state, strength, rng), 0
    record = {"event": "computer", "strength": strength, "seed": seed, "iterations": iterations}
    return to_action(state, raw), record


def rederive(state: Any, record: dict) -> Any:
    """The move a logged computer ``record`` (see :func:`decide`) chose in ``state``, derived again
    (pure: the same seed and number of iterations give the same move)."""
    import random

    from companion.games.pinuid_dobbal.ai import choose, to_action

    return to_action(state, choose(state, str(record["strength"]), random.Random(int(record["seed"])),
                                   budget=int(record.get("iterations") or 0)))
