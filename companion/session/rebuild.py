"""Coming back after a crash or power cut: rebuild a logged game from its action log.

``rebuild_match(store, session_id)`` replays the session's effective actions (the log with every
undo applied) through the rules core and returns the ``Match`` at the same point. The controller
calls it at start-up for the session ``store.unfinished()`` offers (or ``abandon``s it).
"""

from __future__ import annotations

from typing import Any

from companion.session.base import SessionError
from companion.session.store import SessionStore

DINGO_NAMES = ("dingo-disc", "dingo_disc")


def replay_actions(actions: list[dict[str, Any]]) -> Any:
    """A Dingo Disc ``Match`` rebuilt from action JSONs (``new_game`` first)."""
    from companion.games.dingo_disc import Match, action_from_json

    if not actions or actions[0].get("type") != "new_game":
        raise SessionError("the log does not start with new_game: it cannot rebuild the game")
    return Match.replay(action_from_json(a) for a in actions)


def rebuild_match(store: SessionStore, session_id: int, *, upto_seq: int | None = None) -> Any:
    """The session's ``Match`` rebuilt from its log (optionally only up to log row ``upto_seq``).

    Raises ``SessionError`` if the game is not one the rules core knows or the log cannot be
    replayed (the rules core's ``IllegalAction``/``ActionFormatError`` is chained as the cause).
    """
    info = store.session(session_id)
    if info.game not in DINGO_NAMES:
        raise SessionError(f"session {session_id} is a {info.game!r} game; only Dingo Disc can be rebuilt")
    actions = store.effective_actions(session_id, upto_seq)
    try:
        return replay_actions(actions)
    except SessionError:
        raise
    except Exception as exc:  # IllegalAction / ActionFormatError from the rules core
        raise SessionError(f"session {session_id} cannot be replayed: {exc}") from exc
