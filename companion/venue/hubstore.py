"""The hub's SQLite store: every table's status and state, every event, every finished game.

``<hub data dir>/hub.db`` (WAL). Events are keyed by venue, table, stream and sequence number,
so a duplicate (QoS 1 resends one after a lost acknowledgement) is stored once. A message is
stored before the receiver acknowledges it to the broker, so a hub restart loses nothing that
was delivered. One lock: the receiver writes from paho's thread, the web server reads.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HUB_FILE = "hub.db"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    venue TEXT NOT NULL, table_id TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'unknown',
    status_at REAL, state TEXT, state_at REAL, PRIMARY KEY (venue, table_id)
);
CREATE TABLE IF NOT EXISTS events (
    venue TEXT NOT NULL, table_id TEXT NOT NULL, stream TEXT NOT NULL, seq INTEGER NOT NULL,
    session_id INTEGER, kind TEXT NOT NULL, at REAL, received_at REAL NOT NULL, payload TEXT NOT NULL,
    PRIMARY KEY (venue, table_id, stream, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_received ON events (received_at);
CREATE TABLE IF NOT EXISTS games (
    venue TEXT NOT NULL, table_id TEXT NOT NULL, stream TEXT NOT NULL, session_id INTEGER NOT NULL,
    seq INTEGER NOT NULL, ended_at REAL, result TEXT NOT NULL,
    PRIMARY KEY (venue, table_id, stream, session_id)
);
"""


class MessageError(ValueError):
    """A message that is not one of docs/venue.md's (kept out of the store, counted)."""


def _text(payload: dict, key: str) -> str:
    value = payload.get(key)
    if not isinstance(value, str) or not value:
        raise MessageError(f"{key!r} must be a non-empty string")
    return value


class HubStore:
    """``hub.db`` in ``data_dir``."""

    def __init__(self, data_dir: str | Path, clock: Callable[[], float] = time.time) -> None:
        """Open or create the store."""
        self.path = Path(data_dir) / HUB_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._clock = clock
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # durable against a hub crash; fsync at checkpoints
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the database (idempotent)."""
        with self._lock:
            self._db.close()

    # -- writing (the receiver) -----------------------------------------------------------------
    def put_status(self, payload: dict) -> tuple[str, str]:
        """Store a ``status`` message; returns its (venue, table)."""
        venue, table, status = _text(payload, "venue"), _text(payload, "table"), _text(payload, "status")
        if status not in ("online", "offline"):
            raise MessageError(f"status must be online or offline, got {status!r}")
        at = payload.get("at") if isinstance(payload.get("at"), int | float) else self._clock()
        with self._lock:
            self._db.execute(
                "INSERT INTO tables (venue, table_id, status, status_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (venue, table_id) DO UPDATE SET status=excluded.status,"
                " status_at=excluded.status_at",
                (venue, table, status, at),
            )
        return venue, table

    def put_state(self, payload: dict) -> tuple[str, str]:
        """Store a ``state`` message (the newest one by its ``at`` wins); returns its (venue, table)."""
        venue, table = _text(payload, "venue"), _text(payload, "table")
        if not isinstance(payload.get("summary"), dict):
            raise MessageError("'summary' must be an object")
        at = float(payload["at"]) if isinstance(payload.get("at"), int | float) else self._clock()
        with self._lock:
            self._db.execute(
                "INSERT INTO tables (venue, table_id, state, state_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (venue, table_id) DO UPDATE SET state=excluded.state,"
                " state_at=excluded.state_at"
                " WHERE tables.state_at IS NULL OR excluded.state_at >= tables.state_at",
                (venue, table, json.dumps(payload, separators=(",", ":")), at),
            )
        return venue, table

    def put_event(self, payload: dict, received_at: float | None = None) -> bool:
        """Store an ``events`` message once; True if it was new (False for a duplicate)."""
        venue, table, stream, kind = (_text(payload, k) for k in ("venue", "table", "stream", "kind"))
        seq = payload.get("seq")
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
            raise MessageError(f"'seq' must be a positive integer, got {seq!r}")
        sid = payload.get("session_id") if isinstance(payload.get("session_id"), int) else None
        at = payload.get("at") if isinstance(payload.get("at"), int | float) else None
        now = self._clock() if received_at is None else received_at
        text = json.dumps(payload, separators=(",", ":"))
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(
                    "INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (venue, table, stream, seq, sid, kind, at, now, text),
                )
                new = cur.rowcount == 1
                if new and sid is not None:
                    self._game_effect(venue, table, stream, sid, seq, kind, payload)
                self._db.execute(
                    "INSERT OR IGNORE INTO tables (venue, table_id) VALUES (?, ?)", (venue, table)
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return new

    def _game_effect(
        self, venue: str, table: str, stream: str, sid: int, seq: int, kind: str, payload: dict
    ) -> None:
        """A ``game_over`` records the result; a later ``reopen`` (undo after the end) withdraws it."""
        key = (venue, table, stream, sid)
        if kind == "game_over" and isinstance(payload.get("result"), dict):
            self._db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (venue, table_id, stream, session_id)"
                " DO UPDATE SET seq=excluded.seq, ended_at=excluded.ended_at, result=excluded.result"
                " WHERE excluded.seq > games.seq",
                (*key, seq, payload.get("at"), json.dumps(payload["result"], separators=(",", ":"))),
            )
        elif kind == "action" and (payload.get("action") or {}).get("type") == "reopen":
            self._db.execute(
                "DELETE FROM games WHERE venue=? AND table_id=? AND stream=? AND session_id=? AND seq < ?",
                (*key, seq),
            )

    # -- reading (the page) ---------------------------------------------------------------------
    def tables(self) -> list[dict[str, Any]]:
        """Every table: venue, table, status, status_at, state (the last ``state`` message or None)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT venue, table_id, status, status_at, state, state_at FROM tables"
                " ORDER BY venue, table_id"
            ).fetchall()
        return [
            {
                "venue": v,
                "table": t,
                "status": s,
                "status_at": sa,
                "state": json.loads(st) if st else None,
                "state_at": sta,
            }
            for v, t, s, sa, st, sta in rows
        ]

    def recent_events(self, venue: str, table: str, limit: int = 6) -> list[dict[str, Any]]:
        """The table's last ``limit`` events, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT payload, received_at FROM events WHERE venue=? AND table_id=?"
                " ORDER BY received_at DESC, seq DESC LIMIT ?",
                (venue, table, limit),
            ).fetchall()
        return [{**json.loads(p), "received_at": r} for p, r in rows]

    def events(self, venue: str | None = None, table: str | None = None) -> list[dict[str, Any]]:
        """Stored events (optionally of one table), in order of stream and sequence number."""
        sql, args = "SELECT payload, received_at FROM events", []
        if venue is not None and table is not None:
            sql += " WHERE venue=? AND table_id=?"
            args = [venue, table]
        sql += " ORDER BY venue, table_id, stream, seq"
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        return [{**json.loads(p), "received_at": r} for p, r in rows]

    def games(self, since: float | None = None) -> list[dict[str, Any]]:
        """Finished games (ended at or after ``since``), oldest first."""
        sql, args = "SELECT venue, table_id, stream, session_id, seq, ended_at, result FROM games", []
        if since is not None:
            sql += " WHERE ended_at >= ?"
            args.append(since)
        sql += " ORDER BY ended_at, venue, table_id"
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        return [
            {
                "venue": v,
                "table": t,
                "stream": s,
                "session_id": sid,
                "seq": seq,
                "ended_at": e,
                **json.loads(r),
            }
            for v, t, s, sid, seq, e, r in rows
        ]

    def counts(self) -> dict[str, int]:
        """How many tables, events and games are stored."""
        with self._lock:
            return {
                name: int(self._db.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0])
                for name in ("tables", "events", "games")
            }
