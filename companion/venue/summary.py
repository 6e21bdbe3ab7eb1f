"""What the venue sees of a game: whose turn, the scores, the result (pure, no I/O).

Reads the generic keys of a game's state JSON when present (``outcome``, ``to_move``, ``next``:
the game-module protocol of ``companion.games.base``) and falls back to the Dingo Disc's own
state JSON (``phase``, ``current``, ``expected``, ``winner``, ``draw``, per-player ``rank`` and
``left``). Unknown games still give the names and the phase.
"""

from __future__ import annotations

from typing import Any

OVER_PHASES = ("over", "finished", "ended")


def _names(state: dict[str, Any]) -> list[str]:
    out = []
    for i, p in enumerate(state.get("players") or []):
        if isinstance(p, dict):
            out.append(str(p.get("name") or f"seat {i}"))
        else:
            out.append(str(p))
    return out


def is_over(state: dict[str, Any]) -> bool:
    """True once the game has a result."""
    return isinstance(state.get("outcome"), dict) or state.get("phase") in OVER_PHASES


def to_move(state: dict[str, Any]) -> list[int]:
    """The seats that act now (empty when over, in setup, or for chance only)."""
    generic = state.get("to_move")
    if isinstance(generic, dict):
        return [s for s in generic.get("seats") or [] if isinstance(s, int) and s >= 0]
    if is_over(state):
        return []
    expected = state.get("expected") or {}
    seat = expected.get("player") if isinstance(expected, dict) else None
    if not isinstance(seat, int):
        seat = state.get("current")
    return [seat] if isinstance(seat, int) and not isinstance(seat, bool) else []


def scores(state: dict[str, Any]) -> list[float | None]:
    """A number per seat: the outcome's scores, a player's ``score``, else pawns left (Dingo Disc)."""
    names = _names(state)
    outcome = state.get("outcome")
    if isinstance(outcome, dict) and isinstance(outcome.get("scores"), list):
        return [_num(s) for s in outcome["scores"]]
    out: list[float | None] = []
    for p in state.get("players") or []:
        value = None
        if isinstance(p, dict):
            value = _num(p.get("score"))
            if value is None:
                value = _num(p.get("left"))
        out.append(value)
    return out if out else [None] * len(names)


def score_kind(state: dict[str, Any]) -> str:
    """What :func:`scores` counts: ``points`` or ``pawns_left`` (fewer is better) or ``none``."""
    outcome = state.get("outcome")
    if isinstance(outcome, dict) and isinstance(outcome.get("scores"), list):
        return "points"
    players = [p for p in state.get("players") or [] if isinstance(p, dict)]
    if any(_num(p.get("score")) is not None for p in players):
        return "points"
    if any(_num(p.get("left")) is not None for p in players):
        return "pawns_left"
    return "none"


def ranks(state: dict[str, Any]) -> list[int] | None:
    """The rank of each seat once over (1 = first, equal for ties), else None."""
    names = _names(state)
    outcome = state.get("outcome")
    if isinstance(outcome, dict) and isinstance(outcome.get("ranking"), list):
        result: list[int | None] = [None] * len(names)
        place = 1
        for group in outcome["ranking"]:
            seats = group if isinstance(group, list) else [group]
            for seat in seats:
                if isinstance(seat, int) and 0 <= seat < len(result):
                    result[seat] = place
            place += len(seats)
        if all(isinstance(r, int) for r in result):
            return [int(r) for r in result if r is not None]
    if not is_over(state):
        return None
    players = state.get("players") or []
    given = [p.get("rank") if isinstance(p, dict) else None for p in players]
    if given and all(isinstance(r, int) and not isinstance(r, bool) for r in given):
        return [int(r) for r in given]
    winner = state.get("winner")
    winners = winner if isinstance(winner, list) else [winner]
    winners = [w for w in winners if isinstance(w, int)]
    if winners or state.get("draw"):
        return [1 if (seat in winners or state.get("draw")) else 2 for seat in range(len(names))]
    return None


def winners(state: dict[str, Any]) -> list[int]:
    """The winning seats (several for a shared win, empty for a draw or before the end)."""
    outcome = state.get("outcome")
    if isinstance(outcome, dict) and isinstance(outcome.get("winners"), list):
        return [w for w in outcome["winners"] if isinstance(w, int)]
    if not is_over(state) or state.get("draw"):
        return []
    r = ranks(state)
    return [seat for seat, rank in enumerate(r) if rank == 1] if r else []


def is_draw(state: dict[str, Any]) -> bool:
    """True for a drawn game."""
    outcome = state.get("outcome")
    if isinstance(outcome, dict):
        return bool(outcome.get("draw"))
    return bool(state.get("draw")) and is_over(state)


def next_text(state: dict[str, Any]) -> str:
    """What happens next, in a sentence (``next`` or the Disc's ``expected.prompt``)."""
    generic = state.get("next")
    if isinstance(generic, str):
        return generic
    expected = state.get("expected") or {}
    prompt = expected.get("prompt") if isinstance(expected, dict) else None
    return str(prompt) if prompt else ""


def summarise(state: dict[str, Any]) -> dict[str, Any]:
    """The venue's view of one state: game, phase, players (name, score, rank), to move, result."""
    names = _names(state)
    score_list = scores(state)
    rank_list = ranks(state) or [None] * len(names)
    moving = to_move(state)
    players = []
    for seat, name in enumerate(names):
        players.append({
            "seat": seat, "name": name,
            "score": score_list[seat] if seat < len(score_list) else None,
            "rank": rank_list[seat] if seat < len(rank_list) else None,
            "to_move": seat in moving,
        })
    over = is_over(state)
    return {
        "game": str(state.get("game") or "unknown"),
        "phase": "over" if over else str(state.get("phase") or ("setup" if not names else "playing")),
        "players": players,
        "to_move": moving,
        "score_kind": score_kind(state),
        "next": next_text(state),
        "over": over,
        "winners": winners(state) if over else [],
        "draw": is_draw(state) if over else False,
    }


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value
