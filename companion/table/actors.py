"""Who did an action, as the session log's ``actor`` column records it.

The actor is one string: who acted (``sensor`` for actions from sensed events, ``panel`` for the
panel's buttons, ``host`` for the page's actions, ``companion`` for dice it rolled or a first
player it drew), then the player concerned when there is one: ``"sensor: Anna (seat 0)"``.
"""

from __future__ import annotations

from typing import Any

ACTORS = ("sensor", "panel", "host", "companion")
BY_SOURCE = {"sensor": "sensor", "panel": "panel", "page": "host"}
"""The actor for each action source, unless the companion rolled or drew it itself."""

FALL_TYPES = frozenset({"fall", "removed"})
"""Actions whose player is the one the pawns go to (the fall-window owner, else the current player)."""


def actor_by(source: str, by: str | None = None) -> str:
    """``by`` if given, else the actor for ``source`` (``page`` -> ``host``, ...; unknown: the source)."""
    if by is not None:
        if by not in ACTORS:
            raise ValueError(f"actor must be one of {list(ACTORS)}, got {by!r}")
        return by
    return BY_SOURCE.get(source, str(source))


def concerned_seat(action: dict, before: dict) -> int | None:
    """The seat of the player an action concerns, from the action and the state it applied to."""
    kind = action.get("type")
    seat: Any = None
    if kind == "first_player":
        seat = action.get("seat")
    elif kind == "give":
        seat = action.get("giver")
    elif kind in FALL_TYPES:
        window = before.get("fall_window") or {}
        seat = window.get("seat", before.get("current"))
    if seat is None:
        seat = (before.get("expected") or {}).get("player")
    if seat is None:
        seat = before.get("current")
    return seat if isinstance(seat, int) and not isinstance(seat, bool) else None


def actor_for(by: str, action: dict, before: dict) -> str:
    """``by`` plus the player concerned: ``"host: Anna (seat 0)"``, or ``by`` alone when nobody is."""
    seat = concerned_seat(action, before)
    players = before.get("players") or []
    if seat is None or not 0 <= seat < len(players):
        return by
    player = players[seat]
    name = player.get("name", "?") if isinstance(player, dict) else player
    return f"{by}: {name} (seat {seat})"
