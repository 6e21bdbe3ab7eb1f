"""Opening the session database: versioned schema, migrations, damage detection and recovery.

``open_database(path)`` never refuses to start: a damaged file (not a database, a failed
``PRAGMA quick_check``, an action row whose checksum does not match) is moved aside as
``sessions.db.corrupt-<UTC timestamp>`` together with its ``-wal``/``-shm`` files, a fresh database
is created, and the returned ``OpenReport`` says so in plain words. If even a fresh file cannot
be created (read-only card, full disk), the log falls back to an in-memory database and the
report says that nothing is being kept.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.atomic import fsync_dir

log = logging.getLogger("companion.session")

DB_NAME = "sessions.db"
# Small pages: a 5 s trace chunk (~3 kB) overflows into full pages instead of wasting most of a 4 kB
# leaf, and each fsynced action commit rewrites 1 kB pages, not 4 kB ones (SD card wear).
PAGE_SIZE = 1024


def action_crc(session_id: int, seq: int, action_json: str, sensed_json: str) -> int:
    """The checksum stored with every action row (CRC-32 of its identity and contents)."""
    data = f"{session_id}\x1f{seq}\x1f{action_json}\x1f{sensed_json}".encode()
    return zlib.crc32(data)


def _run_script(db: sqlite3.Connection, script: str) -> None:
    """Run ``;``-separated DDL inside the caller's transaction (``executescript`` would commit it)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def _v1(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            game TEXT NOT NULL,
            version TEXT NOT NULL,
            options TEXT NOT NULL DEFAULT '{}',
            players TEXT NOT NULL,
            start_player INTEGER,
            started_at REAL NOT NULL,
            ended_at REAL,
            status TEXT NOT NULL CHECK (status IN ('active', 'finished', 'abandoned')),
            outcome TEXT,
            ranking TEXT,
            trace_header TEXT,
            trace_started_at REAL
        );
        CREATE TABLE actions (
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            seq INTEGER NOT NULL,
            at REAL NOT NULL,
            t_ms INTEGER,
            actor TEXT,
            source TEXT,
            action TEXT NOT NULL,
            sensed TEXT NOT NULL DEFAULT '[]',
            crc INTEGER NOT NULL,
            PRIMARY KEY (session_id, seq)
        ) WITHOUT ROWID;
        CREATE TABLE events (
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            idx INTEGER NOT NULL,
            t_ms INTEGER NOT NULL,
            event TEXT NOT NULL,
            PRIMARY KEY (session_id, idx)
        ) WITHOUT ROWID;
        CREATE TABLE trace_chunks (
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            idx INTEGER NOT NULL,
            t0_ms INTEGER NOT NULL,
            t1_ms INTEGER NOT NULL,
            n_rows INTEGER NOT NULL,
            data BLOB NOT NULL,
            summary TEXT NOT NULL DEFAULT '[]',
            PRIMARY KEY (session_id, idx)
        );
        CREATE INDEX sessions_status ON sessions(status);
        """,
    )


# Migration k takes the schema from version k to k+1. Append only; never edit a released one.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_v1,)
SCHEMA_VERSION = len(MIGRATIONS)


class DatabaseDamaged(Exception):
    """The database file failed a check at open; the message says which."""


@dataclass(frozen=True)
class OpenReport:
    """What happened when the session log was opened.

    ``status``: ``"ok"`` (existing log opened), ``"created"`` (new empty log), ``"recovered"``
    (a damaged file was moved aside to ``moved_to`` and a fresh log started) or ``"memory"``
    (no file could be used: sessions are not being kept). ``message`` is one plain sentence
    for the log, the console and the page.
    """

    path: Path
    status: str
    message: str
    moved_to: Path | None = None
    migrated_from: int | None = None

    @property
    def ok(self) -> bool:
        """True when the log is opened on disk without any loss."""
        return self.status in ("ok", "created")

    def to_json(self) -> dict[str, object]:
        """A JSON-ready view (for the web page's status)."""
        return {
            "path": str(self.path),
            "status": self.status,
            "message": self.message,
            "moved_to": str(self.moved_to) if self.moved_to else None,
            "migrated_from": self.migrated_from,
        }


def connect(path: str | Path) -> sqlite3.Connection:
    """A connection in autocommit mode, WAL journal, ``synchronous=FULL``, usable from any thread."""
    db = sqlite3.connect(os.fspath(path), isolation_level=None, check_same_thread=False, timeout=10.0)
    try:
        db.execute(f"PRAGMA page_size={PAGE_SIZE}")  # only takes effect when the file is created
        db.execute("PRAGMA journal_mode=WAL").fetchone()
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA foreign_keys=ON")
    except BaseException:
        db.close()
        raise
    return db


def _schema_version(db: sqlite3.Connection) -> int:
    db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = db.execute("SELECT version FROM schema_version").fetchone()
    return int(row[0]) if row else 0


def migrate(db: sqlite3.Connection) -> int:
    """Bring the schema up to ``SCHEMA_VERSION`` in one transaction; returns the version found."""
    db.execute("BEGIN IMMEDIATE")
    try:
        found = _schema_version(db)
        if found > SCHEMA_VERSION:
            raise DatabaseDamaged(
                f"schema version {found} is newer than this companion understands ({SCHEMA_VERSION})"
            )
        for step in MIGRATIONS[found:]:
            step(db)
        db.execute("DELETE FROM schema_version")
        db.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
        db.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise
    return found


def check(db: sqlite3.Connection) -> None:
    """Raise ``DatabaseDamaged`` unless ``quick_check`` is ok and every action row's CRC matches."""
    rows = db.execute("PRAGMA quick_check").fetchall()
    if [r[0] for r in rows] != ["ok"]:
        first = "; ".join(str(r[0]) for r in rows[:3])
        raise DatabaseDamaged(f"SQLite quick_check failed: {first}")
    has_actions = db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='actions'").fetchone()
    if not has_actions:
        return
    for sid, seq, action, sensed, crc in db.execute(
        "SELECT session_id, seq, action, sensed, crc FROM actions"
    ):
        if action_crc(sid, seq, action, sensed) != crc:
            raise DatabaseDamaged(f"action {seq} of session {sid} fails its checksum")


def _move_aside(path: Path, clock: Callable[[], float]) -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(clock()))
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    for suffix in ("", "-wal", "-shm"):
        src = Path(f"{path}{suffix}")
        if src.exists():
            os.replace(src, f"{target}{suffix}")
    fsync_dir(path.parent)
    return target


def _open_checked(path: Path) -> tuple[sqlite3.Connection, int]:
    db = connect(path)
    try:
        check(db)
        found = migrate(db)
    except BaseException:
        db.close()
        raise
    return db, found


def open_database(
    data_dir: str | Path, clock: Callable[[], float] = time.time
) -> tuple[sqlite3.Connection, OpenReport]:
    """Open (creating, migrating or recovering) ``<data_dir>/sessions.db``; never raises for damage."""
    directory = Path(data_dir)
    path = directory / DB_NAME
    try:
        directory.mkdir(parents=True, exist_ok=True)
        existed = path.exists() and path.stat().st_size > 0
        db, found = _open_checked(path)
    except (sqlite3.DatabaseError, DatabaseDamaged) as exc:
        reason = str(exc) or type(exc).__name__
        try:
            moved = _move_aside(path, clock)
            db, _ = _open_checked(path)
        except (OSError, sqlite3.Error, DatabaseDamaged) as exc2:
            return _memory(
                path,
                f"session log {path} is damaged ({reason}) and could not be replaced "
                f"({exc2}); sessions are NOT being kept",
            )
        message = (
            f"session log {path} was damaged ({reason}); moved it aside to {moved.name} and "
            f"started a fresh log"
        )
        log.error(message)
        return db, OpenReport(path, "recovered", message, moved_to=moved)
    except OSError as exc:
        return _memory(path, f"session log {path} cannot be opened ({exc}); sessions are NOT being kept")
    if not existed:
        return db, OpenReport(path, "created", f"started a new session log at {path}")
    if found < SCHEMA_VERSION:
        msg = f"opened session log {path} (schema migrated from version {found} to {SCHEMA_VERSION})"
        log.info(msg)
        return db, OpenReport(path, "ok", msg, migrated_from=found)
    return db, OpenReport(path, "ok", f"opened session log {path}")


def _memory(path: Path, message: str) -> tuple[sqlite3.Connection, OpenReport]:
    log.error(message)
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    migrate(db)
    return db, OpenReport(path, "memory", message)
