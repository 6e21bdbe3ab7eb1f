"""Perft: the number of distinct action sequences (leaves of the game tree) from a position.

As chess engines count moves to check a move generator, ``perft(state, plies)`` counts the sequences
of ``plies`` logged actions: a roll of the dice (every ordered outcome counts: the tree of chance is
counted like a player's choices), an assignment of the play-pin die, a move, a removal or putting back.
Skipped steps are no actions (the core skips them). ``perft_turns`` counts sequences of whole turns.
The golden counts are in tests/companion/games/pinuid_dobbal/golden/.
"""

from __future__ import annotations

from companion.games.pinuid_dobbal.ai import apply_raw, raw_actions
from companion.games.pinuid_dobbal.state import State


def perft(s: State, plies: int) -> int:
    """Action sequences of length ``plies`` from ``s`` (a game won earlier ends its sequence: counts 1)."""
    if plies == 0 or s.phase == "over":
        return 1
    b = s.options.board()
    acts = raw_actions(s, b)
    if plies == 1:
        return len(acts)
    return sum(perft(apply_raw(s, a, b), plies - 1) for a in acts)


def divide(s: State, plies: int) -> dict[str, int]:
    """``perft`` split by the first action (its JSON text), for finding where two generators differ."""
    from companion.games.pinuid_dobbal.ai import to_action

    b = s.options.board()
    out = {}
    for a in raw_actions(s, b):
        act = to_action(s, a).to_json()
        key = " ".join(str(v) for k, v in act.items() if k != "type") or act["type"]
        out[f"{act['type']} {key}"] = perft(apply_raw(s, a, b), plies - 1)
    return out


def perft_turns(s: State, turns: int) -> int:
    """Action sequences covering ``turns`` whole turns from a position waiting for a roll."""
    if turns == 0 or s.phase == "over":
        return 1
    b = s.options.board()
    total = 0
    stack = [s]
    turn = s.turn
    while stack:
        t = stack.pop()
        for a in raw_actions(t, b):
            u = apply_raw(t, a, b)
            if u.phase in ("roll", "over") and (u.turn > turn or u.phase == "over"):
                total += perft_turns(u, turns - 1)
            else:
                stack.append(u)
    return total
