"""Computer players and hints for the games that have them, against the wall clock.

The searches in the game cores are pure (random source and iteration budget in); this module owns the
clock and the randomness: it runs a search in slices until ``seconds`` have passed. Only Pinuid Dobbal
has a computer player so far (``companion.games.pinuid_dobbal.ai``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

STRENGTHS = ("random", "greedy", "mcts")
GAMES_WITH_COMPUTER = ("pinuid-dobbal",)


def _search(state: Any, seconds: float, rng: random.Random, clock: Callable[[], float],
            slice_iterations: int = 32):
    from companion.games.pinuid_dobbal.ai import Search, raw_actions, winning_action

    acts = raw_actions(state)
    search = Search(state, rng)
    if len(acts) == 1:
        return search, acts[0]
    win = winning_action(state)
    if win is not None:
        return search, win
    deadline = clock() + seconds
    while True:
        search.run(slice_iterations)
        if clock() >= deadline:
            break
    return search, search.best()


def computer_action(game: str, state: Any, strength: str = "mcts", seconds: float = 1.0,
                    rng: random.Random | None = None, clock: Callable[[], float] = time.perf_counter) -> Any:
    """The typed action a computer player of ``strength`` takes in ``state`` (about ``seconds`` of thought
    for ``mcts``); ValueError if no player decides now or the game has no computer player."""
    if game not in GAMES_WITH_COMPUTER:
        raise ValueError(f"{game} has no computer player (games with one: {', '.join(GAMES_WITH_COMPUTER)})")
    from companion.games.pinuid_dobbal.ai import ai_action, to_action

    rng = rng or random.Random()
    if strength != "mcts":
        return ai_action(state, strength, rng)
    if state.phase in ("roll", "over"):
        raise ValueError(f"no player decides now (phase {state.phase})")
    _, raw = _search(state, seconds, rng, clock)
    return to_action(state, raw)


def best_move(game: str, state: Any, seconds: float = 1.0, rng: random.Random | None = None,
              clock: Callable[[], float] = time.perf_counter) -> dict[str, Any]:
    """"Show the best move": ``{"action", "text", "forced", "iterations", "options"}`` after about
    ``seconds`` of search; ValueError if no player decides now."""
    if game not in GAMES_WITH_COMPUTER:
        raise ValueError(f"{game} has no hints (games with them: {', '.join(GAMES_WITH_COMPUTER)})")
    from companion.games.pinuid_dobbal.ai import raw_actions, to_action
    from companion.games.pinuid_dobbal.describe import describe_action

    if state.phase in ("roll", "over") or not raw_actions(state):
        raise ValueError(f"no player decides now (phase {state.phase})")
    search, raw = _search(state, seconds, rng or random.Random(), clock)
    action = to_action(state, raw)
    return {"action": action.to_json(), "text": "Best: " + describe_action(state, action),
            "forced": len(raw_actions(state)) == 1, "iterations": search.iterations,
            "options": [{"action": to_action(state, a).to_json(), "visits": n, "win_rate": round(q, 3)}
                        for a, n, q in search.ranking()[:5]]}
