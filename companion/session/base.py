"""Shared plumbing of the session store: connection, lock, transactions, input checks."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from companion.sensing.trace import Sample, TraceHeader, TraceWriter
from companion.session.schema import open_database
from companion.textcheck import name_problem

UNDO = "undo"
REOPEN = "reopen"  # a log row: the finished session was continued (SessionStore.reopen)
MAX_ID = 2**63 - 1  # SQLite's INTEGER range: a larger id cannot name a session


class SessionError(ValueError):
    """Bad use of the store: unknown session, session already ended, malformed argument."""


def dumps_json(value: Any, what: str) -> str:
    """Canonical compact JSON of ``value``; ``SessionError`` naming ``what`` if it cannot be encoded."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise SessionError(f"{what} is not JSON-serialisable: {exc}") from None


def action_json(action: Any) -> dict[str, Any]:
    """The JSON dict of an action object (``to_json()``) or of a dict that already has a ``type``."""
    data = action.to_json() if hasattr(action, "to_json") else action
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise SessionError(f"action must have to_json() or be a dict with a string 'type', got {action!r}")
    return data


def normalise_players(players: Sequence[Any]) -> list[dict[str, Any]]:
    """Players as ``[{"name", "seat"}, ...]`` from names or objects; ``SessionError`` if malformed."""
    if isinstance(players, str | bytes) or not isinstance(players, Sequence) or not players:
        raise SessionError("players must be a non-empty list of names or {'name', 'seat'} objects")
    out = []
    for i, p in enumerate(players):
        if isinstance(p, str):
            out.append({"name": p, "seat": i})
        elif isinstance(p, dict) and isinstance(p.get("name"), str):
            seat = p.get("seat", i)
            if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
                raise SessionError(f"players[{i}].seat must be a non-negative integer, got {seat!r}")
            out.append({**p, "seat": seat})
        else:
            raise SessionError(f"players[{i}] must be a name or an object with a 'name', got {p!r}")
    for i, p in enumerate(out):
        problem = name_problem(p["name"])
        if problem is not None:
            raise SessionError(f"players[{i}].name {problem}")
    if len({p["seat"] for p in out}) != len(out):
        raise SessionError("players: two players share a seat")
    return out


def header_text(header: TraceHeader) -> str:
    """The trace's metadata and column-header lines exactly as ``TraceWriter`` writes them."""
    buf = io.StringIO()
    TraceWriter(buf, header)
    return buf.getvalue()


class StoreBase:
    """Connection, lock and transactions shared by the parts of ``SessionStore``."""

    def __init__(
        self, data_dir: str | Path, *, chunk_ms: int = 5000, clock: Callable[[], float] = time.time
    ) -> None:
        """Open ``<data_dir>/sessions.db`` (creating, migrating or replacing a damaged one)."""
        if chunk_ms <= 0:
            raise SessionError(f"chunk_ms must be positive, got {chunk_ms}")
        self._clock = clock
        self._chunk_ms = chunk_ms
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None
        self._db, self.report = open_database(data_dir, clock)
        self.path = self.report.path
        self._buffers: dict[int, list[Sample]] = {}
        self._t_offset: dict[int, int] = {}
        self._last_t: dict[int, int] = {}
        self._n_cells: dict[int, int] = {}
        self._period: dict[int, int] = {}
        self._headers: dict[int, TraceHeader] = {}
        self._writable: set[int] = set()  # active sessions with a trace header, checked once

    # -- plumbing -------------------------------------------------------------------------------
    @property
    def db(self) -> sqlite3.Connection:
        """The open connection (raises ``SessionError`` after ``close()``)."""
        if self._db is None:
            raise SessionError("the session store is closed")
        return self._db

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            db = self.db
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _row(self, session_id: int) -> sqlite3.Row | tuple:
        if isinstance(session_id, bool) or not isinstance(session_id, int):
            raise SessionError(f"session id must be an integer, got {session_id!r}")
        if not 0 <= session_id <= MAX_ID:
            raise SessionError(f"no session {session_id} in {self.path} (ids are 1 to {MAX_ID})")
        row = self.db.execute(
            "SELECT status, trace_header FROM sessions WHERE id=?", (session_id,)
        ).fetchone()
        if row is None:
            raise SessionError(f"no session {session_id} in {self.path}")
        return row

    def _active(self, session_id: int) -> tuple:
        row = self._row(session_id)
        if row[0] != "active":
            raise SessionError(f"session {session_id} is {row[0]}; nothing more can be added to it")
        return row

    # -- writing --------------------------------------------------------------------------------
    def flush(self, session_id: int | None = None) -> None:
        """Write buffered data now (the trace part overrides this)."""

    def close(self) -> None:
        """Flush buffered samples and close the database (idempotent)."""
        with self._lock:
            if self._db is None:
                return
            with contextlib.suppress(sqlite3.Error):
                self.flush()
            self._db.close()
            self._db = None

    def __enter__(self) -> StoreBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading --------------------------------------------------------------------------------
    def integrity_check(self) -> str:
        """``PRAGMA integrity_check`` result (``"ok"`` when the file is sound)."""
        with self._lock:
            rows = self.db.execute("PRAGMA integrity_check").fetchall()
        return "; ".join(str(r[0]) for r in rows)
