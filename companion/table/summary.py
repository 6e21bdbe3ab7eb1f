"""What a finished (or running) Dingo Disc game comes to, per player: tips, penalties, length.

Pure over the match's actions and the states they met; the page's end screen and the history read it.
"""

from __future__ import annotations

from typing import Any


def _owner(before: dict) -> int | None:
    window = before.get("fall_window") or {}
    seat = window.get("seat", before.get("current"))
    return seat if isinstance(seat, int) and not isinstance(seat, bool) else None


def per_player(match: Any) -> dict[str, Any]:
    """``{"tips": [n per seat], "penalties": [n per seat], "actions": n}`` of a Disc match
    (empty lists for other games)."""
    if match is None or getattr(match.rules, "name", None) != "dingo-disc":
        return {"tips": [], "penalties": [], "actions": 0}
    states, history = match.states, match.history
    players = states[-1].to_json().get("players") or []
    tips, penalties = [0] * len(players), [0] * len(players)
    for before_state, action in zip(states[:-1], history[1:], strict=True):
        a = action.to_json()
        kind = a.get("type")
        if kind not in ("fall", "confirm_fall", "roll"):
            continue
        before = before_state.to_json()
        tipped = a.get("tipped") if kind == "fall" else (before.get("pending_fall") or {}).get("tipped")
        seat = _owner(before) if kind != "roll" else before.get("current")
        if not isinstance(seat, int) or not 0 <= seat < len(players):
            continue
        if kind == "roll" and a.get("number") == 1:
            penalties[seat] += 1
        elif kind != "roll" and tipped and (kind == "confirm_fall" or a.get("confident", True)):
            tips[seat] += 1
    return {"tips": tips, "penalties": penalties, "actions": len(history) - 1}


def log_span(store: Any, session_id: int | None) -> tuple[float, float] | None:
    """``(first, last)`` wall-clock times of a logged game's actions (``reopen`` rows left out): the
    whole game as the session log saw it, so a restart in the middle does not shorten it; None when
    there is no log or it cannot be read."""
    if store is None or session_id is None:
        return None
    try:
        times = [float(r.at) for r in store.actions(session_id) if r.action.get("type") != "reopen"]
    except Exception:  # noqa: BLE001 - a summary must never stop the table
        return None
    return (min(times), max(times)) if times else None
