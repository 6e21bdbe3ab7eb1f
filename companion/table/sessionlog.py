"""The current game's session in the session log: started, written, ended, reopened by an undo.

The store is optional (no log: nothing is written, and the page says so). A write that fails is
logged and said in the status lines; it never stops the game.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from companion.table.actors import actor_by
from companion.table.summary import log_span

log = logging.getLogger(__name__)


class SessionLog:
    """The session of the game in progress (``session_id``) and of the one that ended (``closed_sid``)."""

    def __init__(self, store: Any, status: dict[str, str]) -> None:
        """``store``: a ``SessionStore`` or None; ``status``: the table's status lines (``"log"`` is set)."""
        self.store = store
        self._status = status
        self.session_id: int | None = None
        self.closed = False  # the current (over) game's session was ended in the log
        self.closed_sid: int | None = None  # ... this one (an undo reopens it)
        if store is None:
            status["log"] = "no session log: this game is not being saved"

    @property
    def recording(self) -> bool:
        """True while a session is open in a log."""
        return self.store is not None and self.session_id is not None

    @property
    def shown_id(self) -> int | None:
        """The session id the page shows: the open one, else the one that just ended."""
        return self.session_id if self.session_id is not None else self.closed_sid

    @property
    def reopenable(self) -> bool:
        """False when the game's session has ended and the store cannot reopen it (no undo then)."""
        return not self.closed or hasattr(self.store, "reopen")

    def write(self, write: Callable[[], Any]) -> bool:
        """Run one store write; False (said in the status lines) if it failed."""
        try:
            write()
        except Exception:  # noqa: BLE001 - logging must never stop the game
            log.exception("session log write failed")
            self._status["log"] = "session log failing: this game is not being saved"
            return False
        return True

    def start(self, first: dict, header: Any) -> None:
        """A new game: open its session (``first``: its new_game action; ``header``: the trace's)."""
        self.closed, self.closed_sid = False, None
        self.session_id = None
        if self.store is None:
            return
        try:
            self.session_id = int(self.store.start_session(setup=first, header=header))  # its game: setup's
        except Exception:  # noqa: BLE001
            log.exception("session log: cannot start a session")
            self._status["log"] = "session log unavailable: this game is not being saved"

    def resumed(self, session_id: int) -> None:
        """The logged game ``session_id`` goes on (after a restart)."""
        self.session_id, self.closed = session_id, False

    def action(self, action: dict, **how: Any) -> None:
        """Log an applied ``action`` (``source``, ``actor``, ``sensed``, ``t_ms``), if recording."""
        if self.recording:
            sid = self.session_id
            self.write(lambda: self.store.append_action(sid, action, **how))

    def events(self, events: list[dict], *, even_none: bool = False) -> None:
        """Log the sensed ``events`` that carry a ``t_ms`` (not attached to an action), if recording;
        ``even_none``: write also when none of them does."""
        clean = [e for e in events if isinstance(e.get("t_ms"), int)]
        if (clean or even_none) and self.recording:
            sid = self.session_id
            self.write(lambda: self.store.append_events(sid, clean))

    def end(self, *, abandon: bool = False, ranking: list | None = None, outcome: dict | None = None) -> None:
        """End the open session: abandoned, or finished (an undo reopens it, see :meth:`reopen`)."""
        sid, self.session_id = self.session_id, None
        if self.store is None or sid is None:
            return
        if abandon:
            self.write(lambda: self.store.abandon(sid))
        else:
            end = self.store.end_session
            self.closed = self.write(lambda: end(sid, ranking=ranking, outcome=outcome))
            self.closed_sid = sid

    def finish(self, state: dict) -> tuple[float, float] | None:
        """The game is over (``state``: its state JSON): end its session with its ranking and outcome;
        the game's ``(first, last)`` logged times, or None (no log)."""
        sid = self.session_id
        ranking, outcome = finish_record(state)
        self.end(ranking=ranking, outcome=outcome)
        return log_span(self.store, sid)  # the whole game: a restart does not shorten it

    def reopen(self, source: str) -> bool:
        """Continue the ended session of this game in the log (``SessionStore.reopen``); False if not."""
        reopen, sid, actor = getattr(self.store, "reopen", None), self.closed_sid, actor_by(source)
        if reopen is None or sid is None or not self.write(lambda: reopen(sid, source=source, actor=actor)):
            return False
        self.session_id, self.closed_sid, self.closed = sid, None, False
        return True

    def flush(self) -> None:
        """Write out what the store buffers (shutdown); a failure is logged."""
        if self.store is not None:
            try:
                self.store.flush()
            except Exception:  # noqa: BLE001
                log.exception("session log: flush failed at shutdown")


def finish_record(state: dict) -> tuple[list[int] | None, dict]:
    """The session log's ``ranking`` (rank per seat, 1 = first, ties share) and ``outcome`` of a
    finished game's state JSON: the game's outcome (winners, ranking groups, scores, draw) plus
    ``winner`` and ``draw`` as the history has always read them."""
    players = state.get("players") or []
    outcome = state.get("outcome") or {}
    groups = outcome.get("ranking") or []
    ranking: list[int] | None = None
    if groups and sorted(s for g in groups for s in g) == list(range(len(players))):
        ranking = [0] * len(players)
        place = 1
        for group in groups:
            for seat in group:
                ranking[seat] = place
            place += len(group)
    elif players and all(isinstance(p, dict) and isinstance(p.get("rank"), int) for p in players):
        ranking = [p["rank"] for p in players]
    winners = outcome.get("winners") or []
    winner = state.get("winner", winners[0] if len(winners) == 1 else None)
    draw = state.get("draw", bool(outcome.get("draw")))
    return ranking, {"winner": winner, "draw": draw, **outcome}
