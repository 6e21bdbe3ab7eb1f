"""``SessionStore``: the SQLite session log (contract 7 of ``docs/architecture.md``).

One file ``<data_dir>/sessions.db`` in WAL mode with ``synchronous=FULL``; one writer (every
method takes the store's lock, so the controller may call it from any thread). The action log
is append-only and each ``append_action`` is committed and fsynced before it returns, so an
acknowledged action survives a pulled plug. Raw samples are buffered and written as compressed
chunks every ``chunk_ms`` of trace time (at most that much trace is lost on power loss).
See ``docs/session-log.md``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from companion.sensing.trace import TraceHeader
from companion.session.base import (
    REOPEN,
    UNDO,
    SessionError,
    action_json,
    dumps_json,
    header_text,
    normalise_players,
)
from companion.session.records import ActionRecord, SessionInfo
from companion.session.schema import action_crc
from companion.session.tracelog import TraceLog


class SessionStore(TraceLog):
    """The session log. ``report`` says how it was opened (created, ok, recovered, memory)."""

    def start_session(
        self,
        game: str | None = None,
        players: Sequence[Any] | None = None,
        *,
        version: str | int = "",
        options: dict[str, Any] | None = None,
        start_player: int | None = None,
        header: TraceHeader | None = None,
        started_at: float | None = None,
        setup: Any = None,
    ) -> int:
        """Record a new session and return its id (durable on return).

        Either give ``players`` (names or ``{"name", "seat"}``), ``version`` and ``options``, or
        ``setup``: the game's ``new_game`` action (object with ``to_json`` or its dict), from which
        players, version and options are taken; ``setup`` is then logged as action 1 in the same
        transaction, so the log alone rebuilds the match (do not append it again). ``game``: the
        registry name; by default the setup's ``game``, else ``"dingo-disc"``.
        """
        if game is None:
            named = action_json(setup).get("game") if setup is not None else None
            game = named if isinstance(named, str) and named else "dingo-disc"
        if not isinstance(game, str) or not game:
            raise SessionError(f"game must be a non-empty string, got {game!r}")
        first: dict[str, Any] | None = None
        if setup is not None:
            first = action_json(setup)
            if first["type"] != "new_game":
                raise SessionError(f"setup must be a 'new_game' action, got type {first['type']!r}")
            if players is None:
                players = first.get("players") or []
            version = first.get("version", version)
            options = first.get("options", options)
        plist = normalise_players(players or [])
        if start_player is not None and start_player not in {p["seat"] for p in plist}:
            raise SessionError(f"start_player {start_player!r} is not one of the players' seats")
        opts = dumps_json(options or {}, "options")
        htext = header_text(header) if header is not None else None
        when = self._clock() if started_at is None else float(started_at)
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO sessions (game, version, options, players, start_player, started_at, status,"
                " trace_header) VALUES (?, ?, ?, ?, ?, ?, 'active', ?)",
                (game, str(version), opts, dumps_json(plist, "players"), start_player, when, htext),
            )
            sid = int(cur.lastrowid or 0)
            if first is not None:
                self._insert_action(db, sid, first, when, None, None, "setup", [])
            return sid

    @staticmethod
    def _insert_action(
        db: sqlite3.Connection,
        session_id: int,
        data: dict[str, Any],
        at: float,
        t_ms: int | None,
        actor: Any,
        source: str | None,
        sensed: list[dict[str, Any]],
    ) -> int:
        a_text = dumps_json(data, "action")
        s_text = dumps_json(sensed, "sensed")
        row = db.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM actions WHERE session_id=?", (session_id,)
        ).fetchone()
        seq = int(row[0]) + 1
        db.execute(
            "INSERT INTO actions (session_id, seq, at, t_ms, actor, source, action, sensed, crc)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                session_id,
                seq,
                at,
                t_ms,
                None if actor is None else dumps_json(actor, "actor"),
                source,
                a_text,
                s_text,
                action_crc(session_id, seq, a_text, s_text),
            ),
        )
        return seq

    def append_action(
        self,
        session_id: int,
        action: Any,
        *,
        actor: Any = None,
        source: str | None = None,
        sensed: Iterable[dict[str, Any]] = (),
        t_ms: int | None = None,
        at: float | None = None,
    ) -> int:
        """Append one action (object with ``to_json`` or its dict) and return its sequence number.

        ``actor``: who did it (e.g. a seat), ``source``: where it came from (``"page"``, ``"panel"``,
        ``"sensor"``), ``sensed``: the sensed events behind it, ``t_ms``: trace time if known.
        Without ``t_ms``, a session with a stored trace stamps the action with the trace time of
        the last sample received (so ``replay SESSION`` can put host actions and re-sensed events
        back in the order they happened); ``None`` before the first sample.
        An undo is logged as ``{"type": "undo"}`` (see ``append_undo``). Committed with
        ``synchronous=FULL`` before returning: once this returns, the action survives a crash or
        power loss.
        """
        data = action_json(action)
        s_list = list(sensed)
        if not all(isinstance(e, dict) for e in s_list):
            raise SessionError("sensed must be a list of event dicts")
        if source is not None and not isinstance(source, str):
            raise SessionError(f"source must be a string, got {source!r}")
        if t_ms is not None and (isinstance(t_ms, bool) or not isinstance(t_ms, int)):
            raise SessionError(f"t_ms must be an integer, got {t_ms!r}")
        when = self._clock() if at is None else float(at)
        with self._lock:
            row = self._active(session_id)
            with self._tx() as db:
                offset = self._t_offset.get(session_id, 0)
                if offset and t_ms is not None:
                    t_ms += offset
                elif t_ms is None:
                    t_ms = self._trace_now(session_id, row[1])
                s_list = self.shift_events(session_id, s_list)
                return self._insert_action(db, session_id, data, when, t_ms, actor, source, s_list)

    def append_undo(self, session_id: int, *, source: str | None = None) -> int:
        """Log that the last effective action was taken back (``Match.undo()``); returns its seq."""
        return self.append_action(session_id, {"type": UNDO}, source=source)

    def append_events(self, session_id: int, events: Iterable[dict[str, Any]]) -> None:
        """Log sensed events that are not attached to an action (tips, hands, faults, settled)."""
        evs = list(events)
        for e in evs:
            if (
                not isinstance(e, dict)
                or not isinstance(e.get("event"), str)
                or not isinstance(e.get("t_ms"), int)
            ):
                raise SessionError(f"event must be a dict with 'event' and integer 't_ms', got {e!r}")
        if not evs:
            return
        with self._lock:
            self._active(session_id)
            evs = self.shift_events(session_id, evs)
            with self._tx() as db:
                row = db.execute(
                    "SELECT COALESCE(MAX(idx), 0) FROM events WHERE session_id=?", (session_id,)
                ).fetchone()
                db.executemany(
                    "INSERT INTO events (session_id, idx, t_ms, event) VALUES (?, ?, ?, ?)",
                    [
                        (session_id, int(row[0]) + 1 + i, e["t_ms"], dumps_json(e, "event"))
                        for i, e in enumerate(evs)
                    ],
                )

    def end_session(
        self,
        session_id: int,
        *,
        ranking: Sequence[int] | None = None,
        outcome: dict[str, Any] | None = None,
        ended_at: float | None = None,
    ) -> None:
        """Mark a session finished with its ``ranking`` (rank per seat, 1 = first) and ``outcome``."""
        with self._lock:
            self._active(session_id)
            info = self.session(session_id)
            if ranking is not None:
                ranks = list(ranking)
                if len(ranks) != len(info.players) or not all(
                    isinstance(r, int) and not isinstance(r, bool) and r >= 1 for r in ranks
                ):
                    raise SessionError(
                        f"ranking must give a rank >= 1 for each of the {len(info.players)} "
                        f"players (by seat), got {ranking!r}"
                    )
            self._flush(session_id)
            with self._tx() as db:
                db.execute(
                    "UPDATE sessions SET status='finished', ended_at=?, outcome=?, ranking=? WHERE id=?",
                    (
                        self._clock() if ended_at is None else float(ended_at),
                        None if outcome is None else dumps_json(outcome, "outcome"),
                        None if ranking is None else dumps_json(list(ranking), "ranking"),
                        session_id,
                    ),
                )
            self._forget(session_id)

    def reopen(self, session_id: int, *, source: str | None = None, actor: Any = None) -> int:
        """Continue a finished session (e.g. its last action is undone after the game ended).

        Append-only: a row ``{"type": "reopen", "ended_at", "ranking", "outcome"}`` keeps what the
        session had ended with, and the session is ``active`` again (no end, ranking or outcome
        until the next ``end_session``). ``effective_actions`` (hence rebuild, replay, statistics)
        skips the row; exports list it. Returns its seq; ``SessionError`` unless the session is
        finished. Durable on return, like ``append_action``.
        """
        if source is not None and not isinstance(source, str):
            raise SessionError(f"source must be a string, got {source!r}")
        with self._lock:
            row = self._row(session_id)
            if row[0] != "finished":
                raise SessionError(
                    f"session {session_id} is {row[0]}; only a finished session can be reopened"
                )
            info = self.session(session_id)
            mark = {"type": REOPEN, "ended_at": info.ended_at, "ranking": info.ranking,
                    "outcome": info.outcome}
            t_ms = self._trace_now(session_id, row[1])
            with self._tx() as db:
                seq = self._insert_action(db, session_id, mark, self._clock(), t_ms, actor, source, [])
                db.execute(
                    "UPDATE sessions SET status='active', ended_at=NULL, outcome=NULL, ranking=NULL"
                    " WHERE id=?",
                    (session_id,),
                )
            return seq

    def abandon(self, session_id: int) -> None:
        """Mark a never-finished session abandoned (kept in history, no longer offered to resume)."""
        with self._lock:
            self._active(session_id)
            self._flush(session_id)
            with self._tx() as db:
                db.execute(
                    "UPDATE sessions SET status='abandoned', ended_at=? WHERE id=?",
                    (self._clock(), session_id),
                )
            self._forget(session_id)

    _INFO_SQL = (
        "SELECT s.id, s.game, s.version, s.options, s.players, s.start_player, s.started_at, s.ended_at,"
        " s.status, s.outcome, s.ranking,"
        " (SELECT COUNT(*) FROM actions a WHERE a.session_id=s.id),"
        " (SELECT MAX(at) FROM actions a WHERE a.session_id=s.id),"
        " EXISTS (SELECT 1 FROM trace_chunks c WHERE c.session_id=s.id)"
        " FROM sessions s"
    )

    @staticmethod
    def _info(r: tuple) -> SessionInfo:
        return SessionInfo(
            id=r[0],
            game=r[1],
            version=r[2],
            options=json.loads(r[3]),
            players=json.loads(r[4]),
            start_player=r[5],
            started_at=r[6],
            ended_at=r[7],
            status=r[8],
            outcome=None if r[9] is None else json.loads(r[9]),
            ranking=None if r[10] is None else json.loads(r[10]),
            n_actions=r[11],
            last_action_at=r[12],
            has_trace=bool(r[13]),
        )

    def session(self, session_id: int) -> SessionInfo:
        """One session's record (``SessionError`` if there is no such session)."""
        with self._lock:
            self._row(session_id)
            return self._info(self.db.execute(self._INFO_SQL + " WHERE s.id=?", (session_id,)).fetchone())

    def list_sessions(self, *, status: str | None = None, limit: int | None = None) -> list[SessionInfo]:
        """Sessions, newest first (optionally only those with ``status``)."""
        sql, args = self._INFO_SQL, []
        if status is not None:
            sql += " WHERE s.status=?"
            args.append(status)
        sql += " ORDER BY s.started_at DESC, s.id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(int(limit))
        with self._lock:
            return [self._info(r) for r in self.db.execute(sql, args)]

    def unfinished(self) -> list[SessionInfo]:
        """Sessions never ended (offered for resumption or abandonment), newest first."""
        return self.list_sessions(status="active")

    def actions(self, session_id: int) -> list[ActionRecord]:
        """The session's action log in sequence order."""
        with self._lock:
            self._row(session_id)
            rows = self.db.execute(
                "SELECT seq, at, t_ms, actor, action, sensed, source FROM actions"
                " WHERE session_id=? ORDER BY seq",
                (session_id,),
            ).fetchall()
        return [
            ActionRecord(
                session_id,
                r[0],
                r[1],
                r[2],
                None if r[3] is None else json.loads(r[3]),
                json.loads(r[4]),
                json.loads(r[5]),
                r[6],
            )
            for r in rows
        ]

    def effective_actions(self, session_id: int, upto_seq: int | None = None) -> list[dict[str, Any]]:
        """The action JSONs that make the current game: the log with every undo applied.

        ``Match.replay(effective_actions(...))`` rebuilds the match after a crash; ``upto_seq``
        stops after that log row (the game as it was then). ``new_game`` is never undone; ``reopen``
        rows (see ``reopen``) are not actions of the game and are left out.
        """
        out: list[dict[str, Any]] = []
        for rec in self.actions(session_id):
            if upto_seq is not None and rec.seq > upto_seq:
                break
            if rec.action.get("type") == REOPEN:
                continue
            if rec.action.get("type") == UNDO:
                if len(out) > 1:
                    out.pop()
            else:
                out.append(rec.action)
        return out

    def events(self, session_id: int) -> list[dict[str, Any]]:
        """All sensed events of the session (standalone and attached to actions), by ``t_ms``."""
        with self._lock:
            self._row(session_id)
            rows = self.db.execute(
                "SELECT event FROM events WHERE session_id=? ORDER BY idx", (session_id,)
            ).fetchall()
        seen: set[str] = set()
        out: list[dict[str, Any]] = []
        for ev in [json.loads(r[0]) for r in rows] + [e for a in self.actions(session_id) for e in a.sensed]:
            key = json.dumps(ev, sort_keys=True)
            if key not in seen:
                seen.add(key)
                out.append(ev)
        out.sort(key=lambda e: e.get("t_ms", 0) if isinstance(e.get("t_ms"), int) else 0)
        return out
