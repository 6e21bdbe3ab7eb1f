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

from companion.table.current import CurrentMatch
from companion.table.errors import RequestError
from companion.table.feed import Feed
from companion.table.prompts import PendingPrompts
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


class Resume:
    """Continues the newest unfinished logged game, with its prompt, and abandons a game on request.

    Called with the controller's lock held; it is handed the log, the current match, the status
    lines, the open prompts and the feed, and two controller operations: ``adopt(match, session_id,
    started_at)`` (the table plays a logged game) and ``back_to_setup() -> session_id`` (the game in
    progress is abandoned in the log and the table goes back to the set-up).
    """

    def __init__(self, store: Any, current: CurrentMatch, status: dict[str, str], pending: PendingPrompts,
                 feed: Feed, *, adopt: Callable[[Any, int, float | None], None],
                 back_to_setup: Callable[[], int | None]) -> None:
        """``store``: the session store (None: nothing to resume)."""
        self._store = store
        self._current = current
        self._status = status
        self._pending = pending
        self._feed = feed
        self._adopt = adopt
        self._back_to_setup = back_to_setup

    def resume(self) -> int | None:
        """Continue the newest unfinished logged game (after a crash or restart); its id, or None
        (nothing to continue, or the log could not be read: said in the status lines)."""
        try:
            unfinished = self._store.unfinished()
            if not unfinished:
                return None
            info = unfinished[0]
            sid = int(info.id)
            match = self._current.game.replay(self._store.effective_actions(sid))
        except Exception as exc:  # noqa: BLE001 - a damaged log must not stop the table
            log.exception("cannot resume the unfinished game")
            self._status["log"] = f"could not resume the last game: {exc}"
            return None
        span = log_span(self._store, sid)  # the game's length counts from its first logged action
        self._adopt(match, sid, round(span[0], 3) if span is not None else getattr(info, "started_at", None))
        when = started_text(getattr(info, "started_at", None))
        names = ", ".join(str(p.get("name", "?")) for p in getattr(info, "players", None) or []
                          if isinstance(p, dict))
        self._pending.add({
            "kind": RESUME_PROMPT, "title": f"Continued the unfinished game from {when}",
            "text": (f"Session {sid} ({names}) was not finished when the companion stopped; it goes "
                     "on where it was. Abandon it to keep it in the history and set up a new game."),
            "choices": {"Continue": None, "Abandon": lambda source: self.abandon()},
            "resolves": "end_game",  # once the game is over there is nothing left to abandon
        })
        self._feed.add({"event": "resumed"}, f"Resumed the unfinished game from {when} (session {sid})")
        return sid

    def abandon(self) -> dict:
        """Give up the game in progress (logged as abandoned, kept in the history); its feed line.
        RequestError 409 when there is none (no game, or it is over and saved)."""
        phase = self._current.state().get("phase")
        if self._current.match is None or phase in (None, "setup"):
            raise RequestError("no game in progress to abandon", 409)
        if phase == "over":
            raise RequestError("the game is over and saved: nothing to abandon; start a new game", 409)
        sid = self._back_to_setup()
        where = f" (session {sid}, kept in the history)" if sid is not None else ""
        return self._feed.add({"event": "abandoned"}, f"Abandoned the game{where}; set up a new game")
