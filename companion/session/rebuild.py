"""Coming back after a crash or power cut: rebuild a logged game from its action log.

``rebuild_match(store, session_id)`` replays the session's effective actions (the log with every
undo applied) through the session's game module (``companion.games.GAMES[info.game]``) and returns
the ``GameMatch`` at the same point. The controller resumes the session ``store.unfinished()``
offers this way (or ``abandon``s it).
"""

from __future__ import annotations

from typing import Any

from companion.session.base import SessionError
from companion.session.store import SessionStore

ALIASES = {"dingo_disc": "dingo-disc"}
"""Game names of early logs and the registry key they mean."""


def game_rules(name: str | None) -> Any:
    """The registered module of game ``name`` (None: the Dingo Disc); SessionError if unknown."""
    from companion.games import GAMES

    key = ALIASES.get(name or "dingo-disc", name or "dingo-disc")
    rules = GAMES.get(key)
    if rules is None:
        raise SessionError(f"{name!r} is not a game this companion knows ({', '.join(sorted(GAMES))})")
    return rules


def replay_actions(actions: list[dict[str, Any]], game: str | None = None) -> Any:
    """A ``GameMatch`` rebuilt from action JSONs (``new_game`` first; its ``game`` unless given)."""
    from companion.games.match import GameMatch

    if not actions or actions[0].get("type") != "new_game":
        raise SessionError("the log does not start with new_game: it cannot rebuild the game")
    rules = game_rules(game or actions[0].get("game"))
    return GameMatch.replay(rules, actions)


def rebuild_match(store: SessionStore, session_id: int, *, upto_seq: int | None = None) -> Any:
    """The session's match rebuilt from its log (optionally only up to log row ``upto_seq``).

    Raises ``SessionError`` if the game is not one the companion knows or the log cannot be
    replayed (the rules core's ``IllegalAction``/``ActionFormatError`` is chained as the cause).
    """
    info = store.session(session_id)
    try:
        rules = game_rules(info.game)
    except SessionError as exc:
        raise SessionError(f"session {session_id} cannot be rebuilt: {exc}") from None
    actions = store.effective_actions(session_id, upto_seq)
    try:
        return replay_actions(actions, rules.name)
    except SessionError:
        raise
    except Exception as exc:  # IllegalAction / ActionFormatError from the rules core
        raise SessionError(f"session {session_id} cannot be replayed: {exc}") from exc
