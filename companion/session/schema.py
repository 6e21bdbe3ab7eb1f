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
import shutil
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


def action_crc(session_id: int, seq: int, action_json: str, sensed_json: str, prev: int = 0) -> int:
    """The checksum stored with every action row: CRC-32 of its identity and contents, chained to
    the previous row's checksum ``prev`` (0 for the first row; ``companion.session.salvage``)."""
    data = f"{session_id}\x1f{seq}\x1f{action_json}\x1f{sensed_json}".encode()
    return zlib.crc32(data, prev)


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


def _v2(db: sqlite3.Connection) -> None:
    """Chained row checksums with the chain's head in the session row; the damaged-session list."""
    from companion.session.salvage import _rechain

    _run_script(
        db,
        """
        ALTER TABLE sessions ADD COLUMN chain_n INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE sessions ADD COLUMN chain_crc INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE damaged_sessions (
            session_id INTEGER PRIMARY KEY,
            reason TEXT NOT NULL,
            found_at REAL NOT NULL
        );
        """,
    )
    for (sid,) in db.execute("SELECT id FROM sessions").fetchall():
        rows = db.execute(
            "SELECT seq, action, sensed, crc FROM actions WHERE session_id=? ORDER BY seq", (sid,)
        ).fetchall()
        chained = _rechain(sid, rows)
        if chained is None:
            db.execute("INSERT INTO damaged_sessions (session_id, reason, found_at) VALUES (?, ?, ?)",
                       (sid, "an action fails its checksum", time.time()))
            continue
        db.executemany("UPDATE actions SET crc=? WHERE session_id=? AND seq=?",
                       [(r[3], sid, r[0]) for r in chained])
        db.execute("UPDATE sessions SET chain_n=?, chain_crc=? WHERE id=?",
                   (len(chained), chained[-1][3] if chained else 0, sid))


# Migration k takes the schema from version k to k+1. Append only; never edit a released one.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_v1, _v2)
SCHEMA_VERSION = len(MIGRATIONS)


class DatabaseDamaged(Exception):
    """The database file failed a check at open; the message says which."""


class LogUnavailable(Exception):
    """The log cannot be opened now, though it is not damaged (busy, or no permission): never moved."""


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
    damaged: tuple[tuple[int, str], ...] = ()  # (session id, reason) of sessions hidden as damaged
    wal_copy: Path | None = None  # a copy of a WAL part of which SQLite discarded

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
            "damaged": [list(d) for d in self.damaged],
            "wal_copy": str(self.wal_copy) if self.wal_copy else None,
        }


def connect(path: str | Path, timeout: float = 10.0) -> sqlite3.Connection:
    """A connection in autocommit mode, WAL journal, ``synchronous=FULL``, usable from any thread."""
    db = sqlite3.connect(os.fspath(path), isolation_level=None, check_same_thread=False, timeout=timeout)
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
    """Raise ``DatabaseDamaged`` unless SQLite's ``quick_check`` is ok (row chains: ``salvage.verify``)."""
    rows = db.execute("PRAGMA quick_check").fetchall()
    if [r[0] for r in rows] != ["ok"]:
        first = "; ".join(str(r[0]) for r in rows[:3])
        raise DatabaseDamaged(f"SQLite quick_check failed: {first}")


BUSY_WAIT_S = 30.0


def _is_busy(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def _is_cannot_open(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and (
        "unable to open" in text or "readonly" in text or "read-only" in text or "permission" in text
        or "disk i/o" in text)


def holders(path: Path) -> list[str]:
    """Other processes that have ``path`` (or its -wal/-shm) open: ``"pid 123 (sqlite3)"``."""
    names = {os.path.realpath(f"{path}{s}") for s in ("", "-wal", "-shm", "-journal")}
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        if proc.name == str(os.getpid()):
            continue
        try:
            fds = list((proc / "fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            with contextlib.suppress(OSError):
                if os.readlink(fd) in names:
                    raw = (proc / "cmdline").read_bytes().replace(b"\0", b" ")
                    cmd = raw.decode(errors="replace").strip()
                    found.append(f"pid {proc.name} ({cmd[:60] or '?'})")
                    break
    return found


def _unavailable(path: Path, exc: BaseException) -> LogUnavailable:
    if _is_busy(exc):
        who = holders(path)
        by = f" by {', '.join(who)}" if who else " by another process"
        return LogUnavailable(f"session log {path} is locked{by} (waited {BUSY_WAIT_S:g} s); stop it or "
                              "wait, then start again (the log is not damaged and was not moved)")
    try:
        st = path.stat()
        detail = (f"owner uid {st.st_uid}, mode {st.st_mode & 0o777:04o}; "
                  f"this process runs as uid {os.getuid()}")
    except OSError:
        detail = f"the directory {path.parent} may not be writable"
    return LogUnavailable(f"session log {path} cannot be opened ({exc}: {detail}); fix the permission "
                          "(the log was not moved)")


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


def _open_checked(path: Path, busy_wait_s: float | None = None) -> tuple[sqlite3.Connection, int]:
    """Open, quick-check and migrate; a busy file is retried for ``busy_wait_s``, never called damaged."""
    wait = BUSY_WAIT_S if busy_wait_s is None else busy_wait_s
    deadline = time.monotonic() + wait
    while True:
        db = None
        try:
            db = connect(path, timeout=min(10.0, wait))
            check(db)
            return db, migrate(db)
        except (sqlite3.DatabaseError, DatabaseDamaged) as exc:
            if db is not None:
                db.close()
            if _is_busy(exc) and time.monotonic() < deadline:
                time.sleep(0.5)
                continue
            if _is_busy(exc) or _is_cannot_open(exc):
                raise _unavailable(path, exc) from exc
            raise
        except BaseException:
            if db is not None:
                db.close()
            raise


def open_database(
    data_dir: str | Path, clock: Callable[[], float] = time.time
) -> tuple[sqlite3.Connection, OpenReport]:
    """Open (creating, migrating or recovering) ``<data_dir>/sessions.db``; never raises for damage."""
    from companion.session.salvage import verify

    directory = Path(data_dir)
    path = directory / DB_NAME
    wal_copy, wal_reason = None, None
    try:
        directory.mkdir(parents=True, exist_ok=True)
        existed = path.exists() and path.stat().st_size > 0
        wal_copy, wal_reason = _keep_discarded_wal(path, clock)
        if not existed and wal_reason is None and wal_copy is not None:
            wal_reason = "the database file is empty but a WAL is beside it"
        db, found = _open_checked(path)
    except LogUnavailable:
        raise
    except (sqlite3.DatabaseError, DatabaseDamaged) as exc:
        return _recover(path, str(exc) or type(exc).__name__, clock)
    except OSError as exc:
        return _memory(path, f"session log {path} cannot be opened ({exc}); sessions are NOT being kept")
    try:
        damaged = tuple(sorted(verify(db, clock).damaged.items()))
    except sqlite3.DatabaseError as exc:  # the session table itself cannot be read
        db.close()
        return _recover(path, str(exc) or type(exc).__name__, clock)
    if wal_reason is not None:
        message = (f"session log {path}: {wal_reason}; the most recent actions may be missing (a copy of the "
                   f"WAL is kept as {wal_copy.name if wal_copy else '?'})")
        log.error(message)
        return db, OpenReport(path, "recovered", message, damaged=damaged, wal_copy=wal_copy)
    if damaged:
        message = (f"session log {path}: {len(damaged)} damaged session(s) hidden ("
                   + "; ".join(f"session {sid}: {why}" for sid, why in damaged[:3])
                   + "); the others are intact; see: dingo-companion sessions check")
        log.error(message)
        return db, OpenReport(path, "recovered", message, damaged=damaged)
    if not existed:
        return db, OpenReport(path, "created", f"started a new session log at {path}")
    if found < SCHEMA_VERSION:
        msg = f"opened session log {path} (schema migrated from version {found} to {SCHEMA_VERSION})"
        log.info(msg)
        return db, OpenReport(path, "ok", msg, migrated_from=found)
    return db, OpenReport(path, "ok", f"opened session log {path}")


def _keep_discarded_wal(path: Path, clock: Callable[[], float]) -> tuple[Path | None, str | None]:
    """Copy the WAL aside if SQLite would discard part of it (or the database beside it is empty)."""
    from companion.session.walcheck import wal_loss

    wal = Path(f"{path}-wal")
    state = wal_loss(wal)
    if state is None:
        return None, None
    empty_db = not path.exists() or path.stat().st_size == 0
    if not state.loses_data and not empty_db:
        return None, None
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(clock()))
    copy = path.with_name(f"{path.name}-wal.kept-{stamp}")
    shutil.copyfile(wal, copy)
    os.chmod(copy, 0o600)
    fsync_dir(path.parent)
    return copy, state.reason


def _recover(path: Path, reason: str, clock: Callable[[], float]) -> tuple[sqlite3.Connection, OpenReport]:
    """SQLite found the file damaged: salvage every readable session into a fresh file."""
    from companion.session.salvage import salvage

    fresh = path.with_name(f"{path.name}.salvage-{os.getpid()}")
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(f"{fresh}{suffix}")
    result = None
    try:
        old = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
        try:
            version = 0
            with contextlib.suppress(sqlite3.DatabaseError):
                version = int(old.execute("SELECT version FROM schema_version").fetchone()[0])
            new = connect(fresh)
            migrate(new)
            result = salvage(old, new, clock, has_chain=version >= 2)
            new.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            new.close()
        finally:
            old.close()
    except (sqlite3.Error, OSError, TypeError) as exc:
        log.warning("salvage of %s found nothing readable: %s", path, exc)
        result = None
    try:
        moved = _move_aside(path, clock)
        if result is not None and (result.kept or result.damaged):
            for suffix in ("", "-wal", "-shm"):
                if Path(f"{fresh}{suffix}").exists():
                    os.replace(f"{fresh}{suffix}", f"{path}{suffix}")
            fsync_dir(path.parent)
        db, _ = _open_checked(path)
    except (OSError, sqlite3.Error, DatabaseDamaged, LogUnavailable) as exc2:
        return _memory(path, f"session log {path} is damaged ({reason}) and could not be replaced "
                             f"({exc2}); sessions are NOT being kept")
    finally:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(f"{fresh}{suffix}")
    if result is not None and (result.kept or result.damaged):
        message = (f"session log {path} was damaged ({reason}); salvaged it: {result.summary()}; the damaged "
                   f"file is kept as {moved.name}")
        damaged = tuple(sorted(result.damaged.items()))
    else:
        message = (f"session log {path} was damaged ({reason}); moved it aside to {moved.name} and started a "
                   "fresh log (nothing in it could be read)")
        damaged = ()
    log.error(message)
    return db, OpenReport(path, "recovered", message, moved_to=moved, damaged=damaged)


def _memory(path: Path, message: str) -> tuple[sqlite3.Connection, OpenReport]:
    log.error(message)
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    migrate(db)
    return db, OpenReport(path, "memory", message)
