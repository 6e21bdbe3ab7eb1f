"""Damage found per session, not per file: chained row checksums and salvage of what is readable.

Every action row carries ``crc = CRC-32(previous row's crc, its identity and contents)`` and the
session row keeps the chain's head (``chain_n`` rows, last ``chain_crc``), written in the same
transaction as the row. A changed, missing or reordered row breaks the chain; rows deleted at the
tail leave the head pointing past the end. A session whose chain does not check out is listed in
``damaged_sessions`` and hidden from the history and from resumption; the others stay.

When SQLite itself finds the file damaged (``quick_check``), :func:`salvage` copies every session
it can still read into a fresh file, checks each chain, marks what is incomplete, and the damaged
file is kept beside it for inspection.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field


def chain_crc(prev: int, session_id: int, seq: int, action_json: str, sensed_json: str) -> int:
    """The checksum of one action row, chained to the previous row's (0 before the first)."""
    data = f"{session_id}\x1f{seq}\x1f{action_json}\x1f{sensed_json}".encode()
    return zlib.crc32(data, prev)


@dataclass
class SalvageResult:
    """What a check or a salvage found: sessions kept intact, and damaged ones with the reason."""

    kept: list[int] = field(default_factory=list)
    damaged: dict[int, str] = field(default_factory=dict)
    unreadable: int = 0  # sessions whose row itself could not be read

    def summary(self) -> str:
        """One sentence."""
        text = f"{len(self.kept)} session(s) intact"
        if self.damaged:
            ids = ", ".join(str(i) for i in sorted(self.damaged)[:10])
            text += f", {len(self.damaged)} damaged and hidden (session {ids})"
        if self.unreadable:
            text += f", {self.unreadable} unreadable"
        return text


def chain_problem(rows: list[tuple], session_id: int, head_n: int | None, head_crc: int | None) -> str | None:
    """Why the action rows ``(seq, action, sensed, crc)`` of a session fail their chain, or None."""
    prev = 0
    for i, (seq, action, sensed, crc) in enumerate(rows, start=1):
        if seq != i:
            return f"action {i} is missing (found {seq} next)"
        expected = chain_crc(prev, session_id, seq, action, sensed)
        if crc != expected:
            return f"action {seq} fails its checksum"
        prev = crc
    if head_n is not None and head_n != len(rows):
        if head_n > len(rows):
            return f"actions {len(rows) + 1}..{head_n} are missing at the end"
        return f"{len(rows) - head_n} action(s) past the recorded end"
    if head_crc is not None and rows and head_crc != prev:
        return "the last action does not match the recorded end of the session"
    return None


def _rows(db: sqlite3.Connection, sid: int) -> list[tuple]:
    return db.execute(
        "SELECT seq, action, sensed, crc FROM actions WHERE session_id=? ORDER BY seq", (sid,)
    ).fetchall()


def verify(db: sqlite3.Connection, clock: Callable[[], float] = time.time,
           mark: bool = True) -> SalvageResult:
    """Check every session's chain; mark the damaged ones in ``damaged_sessions`` (if ``mark``)."""
    result = SalvageResult()
    known = {r[0]: r[1] for r in db.execute("SELECT session_id, reason FROM damaged_sessions")}
    marks = []
    heads = db.execute("SELECT id, chain_n, chain_crc FROM sessions ORDER BY id").fetchall()
    for sid, head_n, head_crc in heads:
        if sid in known:
            result.damaged[sid] = known[sid]
            continue
        try:
            problem = chain_problem(_rows(db, sid), sid, head_n, head_crc)
        except sqlite3.DatabaseError as exc:  # e.g. a damaged byte that is not UTF-8 any more
            problem = f"its actions cannot be read ({exc})"[:200]
        if problem is None:
            result.kept.append(sid)
        else:
            result.damaged[sid] = problem
            marks.append((sid, problem, clock()))
    if marks and mark:
        db.execute("BEGIN IMMEDIATE")
        db.executemany("INSERT OR REPLACE INTO damaged_sessions (session_id, reason, found_at)"
                       " VALUES (?, ?, ?)", marks)
        db.execute("COMMIT")
    return result


_SESSION_COLS = ("id, game, version, options, players, start_player, started_at, ended_at, status, outcome,"
                 " ranking, trace_header, trace_started_at")


def salvage(old: sqlite3.Connection, new: sqlite3.Connection, clock: Callable[[], float] = time.time,
            has_chain: bool = True) -> SalvageResult:
    """Copy every session readable from ``old`` into ``new`` (migrated, empty); mark the damaged ones.

    A session is copied whole if its row, its actions, events and trace chunks read back and its
    chain checks out; otherwise its row and the actions before the damage are copied and it is
    marked damaged (``sessions check`` lists it).
    """
    result = SalvageResult()
    try:
        ids = [r[0] for r in old.execute("SELECT id FROM sessions ORDER BY id")]
    except sqlite3.DatabaseError:
        ids = []
        with contextlib.suppress(sqlite3.DatabaseError):
            top = old.execute("SELECT MAX(id) FROM sessions").fetchone()[0] or 0
            ids = list(range(1, int(top) + 1))
    for sid in ids:
        try:
            row = old.execute(f"SELECT {_SESSION_COLS} FROM sessions WHERE id=?", (sid,)).fetchone()
        except sqlite3.DatabaseError:
            result.unreadable += 1
            continue
        if row is None:
            continue
        head_n = head_crc = None
        if has_chain:
            with contextlib.suppress(sqlite3.DatabaseError):
                head_n, head_crc = old.execute("SELECT chain_n, chain_crc FROM sessions WHERE id=?",
                                               (sid,)).fetchone()
        problem: str | None = None
        actions: list[tuple] = []
        events: list[tuple] = []
        chunks: list[tuple] = []
        try:
            actions = old.execute(
                "SELECT seq, at, t_ms, actor, source, action, sensed, crc FROM actions WHERE session_id=?"
                " ORDER BY seq", (sid,)).fetchall()
        except sqlite3.DatabaseError as exc:
            problem = f"its actions cannot be read ({exc})"
        if problem is None:
            rows = [(a[0], a[5], a[6], a[7]) for a in actions]
            if not has_chain:  # a version-1 file: each row checked alone, then chained anew
                rows = _rechain(sid, rows)
                if rows is None:
                    problem = "an action fails its checksum"
                else:
                    actions = [(*a[:7], r[3]) for a, r in zip(actions, rows, strict=True)]
                    head_n, head_crc = len(rows), (rows[-1][3] if rows else 0)
            if problem is None:
                problem = chain_problem(rows, sid, head_n, head_crc)
        if problem is None:
            try:
                events = old.execute("SELECT session_id, idx, t_ms, event FROM events WHERE session_id=?",
                                     (sid,)).fetchall()
                chunks = old.execute(
                    "SELECT session_id, idx, t0_ms, t1_ms, n_rows, data, summary FROM trace_chunks"
                    " WHERE session_id=?", (sid,)).fetchall()
            except sqlite3.DatabaseError as exc:
                problem = f"its events or trace cannot be read ({exc})"
        good = actions if problem is None else _valid_prefix(sid, actions)
        new.execute("BEGIN IMMEDIATE")
        new.execute(f"INSERT INTO sessions ({_SESSION_COLS}, chain_n, chain_crc) VALUES"
                    " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*row, len(good), good[-1][7] if good else 0))
        new.executemany("INSERT INTO actions (session_id, seq, at, t_ms, actor, source, action, sensed, crc)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [(sid, *a) for a in good])
        new.executemany("INSERT INTO events (session_id, idx, t_ms, event) VALUES (?, ?, ?, ?)", events)
        new.executemany("INSERT INTO trace_chunks (session_id, idx, t0_ms, t1_ms, n_rows, data, summary)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?)", chunks)
        if problem is None:
            result.kept.append(sid)
        else:
            result.damaged[sid] = problem
            new.execute("INSERT INTO damaged_sessions (session_id, reason, found_at) VALUES (?, ?, ?)",
                        (sid, problem, clock()))
        new.execute("COMMIT")
    return result


def _rechain(sid: int, rows: list[tuple]) -> list[tuple] | None:
    """Version-1 rows (a CRC each) checked and given chained CRCs; None if one fails."""
    out, prev = [], 0
    for seq, action, sensed, crc in rows:
        if zlib.crc32(f"{sid}\x1f{seq}\x1f{action}\x1f{sensed}".encode()) != crc:
            return None
        prev = chain_crc(prev, sid, seq, action, sensed)
        out.append((seq, action, sensed, prev))
    return out


def _valid_prefix(sid: int, actions: list[tuple]) -> list[tuple]:
    out, prev = [], 0
    for i, a in enumerate(actions, start=1):
        if a[0] != i or chain_crc(prev, sid, a[0], a[5], a[6]) != a[7]:
            break
        prev = a[7]
        out.append(a)
    return out
