"""Coming back after a crash: the unfinished game is resumed, and the host may abandon it.

``run`` continues the newest unfinished logged game by itself (nothing is lost, the table
carries on) and puts a ``resume`` prompt on the page: "Continued the unfinished game from
<time>" with the choices ``Continue`` (the prompt goes away) and ``Abandon`` (the session is
marked abandoned in the log, kept in the history, and the table goes back to the new-game set-up).
``POST /api/abandon`` abandons the game in progress the same way at any time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from companion.table.errors import RequestError
from companion.table.game import TIP_STILL
from companion.table.summary import log_span

log = logging.getLogger(__name__)

RESUME_PROMPT = "resume"
"""The prompt kind; it informs the host and never holds the game up (the status LED ignores it)."""


def started_text(started_at: Any) -> str:
    """``"Sun 29 Nov 14:05"`` (local time of the Pi) for a session start in Unix seconds."""
    try:
        return time.strftime("%a %d %b %H:%M", time.localtime(float(started_at)))
    except (TypeError, ValueError, OverflowError, OSError):
        return "an earlier start"


class ResumeMixin:
    """``resume_unfinished`` and ``abandon`` of the table controller (uses its lock and parts)."""

    _lock: Any
    _store: Any
    _game: Any
    _match: Any
    _pending: Any
    _session_id: int | None
    _log_closed: bool
    _tipping: str
    _started_at: float | None
    _ended_at: float | None
    _status: dict[str, str]
    _feed_add: Callable[[dict, str], dict]
    _changed: Callable[[list[dict]], dict]
    _end_session: Callable[..., None]
    _computer_reset: Callable[[], None]

    def resume_unfinished(self) -> int | None:
        """Continue the newest unfinished logged game (after a crash or restart); its id or None.

        The host is asked on the page whether to continue it or abandon it (a ``resume`` prompt).
        """
        if self._store is None:
            return None
        with self._lock:
            try:
                unfinished = self._store.unfinished()
                if not unfinished:
                    return None
                info = unfinished[0]
                sid = int(info.id)
                match = self._game.replay(self._store.effective_actions(sid))
            except Exception as exc:  # noqa: BLE001 - a damaged log must not stop the table
                log.exception("cannot resume the unfinished game")
                self._status["log"] = f"could not resume the last game: {exc}"
                return None
            self._match = match
            self._session_id = sid
            self._log_closed = False
            self._computer_reset()
            span = log_span(self._store, sid)  # the game's length counts from its first logged action
            self._started_at = round(span[0], 3) if span is not None else getattr(info, "started_at", None)
            self._ended_at = None
            when = started_text(getattr(info, "started_at", None))
            names = ", ".join(str(p.get("name", "?")) for p in getattr(info, "players", None) or []
                              if isinstance(p, dict))
            self._pending.add({
                "kind": RESUME_PROMPT, "title": f"Continued the unfinished game from {when}",
                "text": (f"Session {sid} ({names}) was not finished when the companion stopped; it goes "
                         "on where it was. Abandon it to keep it in the history and set up a new game."),
                "choices": {"Continue": None, "Abandon": lambda source: self._abandon_locked()},
                "resolves": "end_game",  # once the game is over there is nothing left to abandon
            })
            self._feed_add({"event": "resumed"}, f"Resumed the unfinished game from {when} (session {sid})")
            self._changed([])
            return sid

    def abandon(self, *, source: str = "page") -> dict:
        """Give up the game in progress (logged as abandoned, kept in history); back to the set-up."""
        with self._lock:
            entry = self._abandon_locked()
            return self._changed([entry])

    def _abandon_locked(self) -> dict:
        phase = self._game.state_json(self._match).get("phase")
        if self._match is None or phase in (None, "setup"):
            raise RequestError("no game in progress to abandon", 409)
        if phase == "over":
            raise RequestError("the game is over and saved: nothing to abandon; start a new game", 409)
        sid = self._session_id
        self._end_session(abandon=True)
        self._match = self._game.new_match(None)
        self._computer_reset()
        self._pending.clear()
        self._tipping = TIP_STILL
        self._log_closed = False
        where = f" (session {sid}, kept in the history)" if sid is not None else ""
        return self._feed_add({"event": "abandoned"}, f"Abandoned the game{where}; set up a new game")
