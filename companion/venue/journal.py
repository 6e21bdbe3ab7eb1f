"""The table's venue journal: one per-table sequence number for every logged action and event.

The session log (``sessions.db``) already keeps every action and sensed event durably; the
journal (``<data dir>/venue.db``) reads what is new there, gives each item the next per-table
sequence number and keeps the message it becomes, so a number always names the same message
(a resent duplicate carries the same number). It also keeps the highest number the broker has
acknowledged: after a restart, or while the broker is unreachable, nothing is lost and sending
resumes right after it. Only the publisher thread uses a journal (no lock inside).

Message kinds: ``action`` (a logged action, with the sensed events behind it), ``sensed`` (a
sensed event that became no action: a tip, a hand, a fault), ``game_over`` (a session ended
with its result) and ``abandoned``. The exact fields: docs/venue.md and ``schemas/event.json``.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

EVENT_SCHEMA = "dingo-venue-event/1"
JOURNAL_FILE = "venue.db"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY, payload TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cursor (
    session_id INTEGER PRIMARY KEY, action_seq INTEGER NOT NULL, event_idx INTEGER NOT NULL,
    status TEXT NOT NULL, ended_at REAL
);
"""

Describe = Callable[[dict, list[str]], str]


class Journal:
    """``venue.db`` beside the session log ``sessions_path``; ``identity`` = ``{"venue", "table"}``."""

    def __init__(self, data_dir: str | Path, sessions_path: str | Path, identity: dict[str, str], *,
                 describe: Describe | None = None, describe_event: Describe | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        """Open (or create) the journal; a new one starts at the game in progress, not old history."""
        self.path = Path(data_dir) / JOURNAL_FILE
        self._identity = dict(identity)
        self._describe = describe
        self._describe_event = describe_event
        self._clock = clock
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)
        self._log = sqlite3.connect(f"file:{Path(sessions_path)}?mode=ro", uri=True,
                                    isolation_level=None, check_same_thread=False)
        self._log.execute("PRAGMA query_only=1")
        meta = dict(self._db.execute("SELECT key, value FROM meta"))
        if "stream" not in meta:
            self._start(meta)
        self.stream: str = dict(self._db.execute("SELECT key, value FROM meta"))["stream"]

    # -- set-up ---------------------------------------------------------------------------------
    def _start(self, meta: dict[str, str]) -> None:
        """A new journal: a new stream id, and cursors at the end of every session but the active one."""
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('stream', ?)", (uuid.uuid4().hex,))
            db.execute("INSERT OR REPLACE INTO meta VALUES ('acked', '0')")
            self._place_cursors(db)

    def _place_cursors(self, db: sqlite3.Connection) -> None:
        """Cursors at the end of every session of the log but the active one (published from its start)."""
        last = self._log.execute("SELECT COALESCE(MAX(id), 0) FROM sessions").fetchone()[0]
        active = [r[0] for r in self._log.execute("SELECT id FROM sessions WHERE status='active'")]
        if last and last not in active:  # the newest session is over: only what comes next
            db.execute("INSERT INTO cursor VALUES (?, 1 << 62, 1 << 62, 'old', NULL)", (last,))
        elif last:  # the game in progress is published from its start
            db.execute("INSERT INTO cursor VALUES (?, 0, 0, 'new', NULL)", (last,))
            older = self._log.execute("SELECT MAX(id) FROM sessions WHERE id < ?", (last,)).fetchone()[0]
            if older:
                db.execute("INSERT INTO cursor VALUES (?, 1 << 62, 1 << 62, 'old', NULL)", (older,))

    @contextlib.contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def close(self) -> None:
        """Close both connections (idempotent)."""
        for db in (self._db, self._log):
            with contextlib.suppress(sqlite3.Error):
                db.close()

    # -- numbers --------------------------------------------------------------------------------
    @property
    def last_seq(self) -> int:
        """The highest sequence number given so far (0 for none)."""
        return int(self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM outbox").fetchone()[0])

    @property
    def acked(self) -> int:
        """Every message up to this number was acknowledged by the broker."""
        return int(self._db.execute("SELECT value FROM meta WHERE key='acked'").fetchone()[0])

    def set_acked(self, seq: int) -> None:
        """Remember that the broker acknowledged every message up to ``seq`` (durable)."""
        if seq > self.acked:
            self._db.execute("UPDATE meta SET value=? WHERE key='acked'", (str(int(seq)),))

    def pending(self, after: int, limit: int) -> list[tuple[int, str]]:
        """Up to ``limit`` messages ``(seq, payload)`` numbered after ``after``, in order."""
        return [(int(s), str(p)) for s, p in self._db.execute(
            "SELECT seq, payload FROM outbox WHERE seq > ? ORDER BY seq LIMIT ?", (after, limit))]

    # -- reading the session log ----------------------------------------------------------------
    def sync(self) -> int:
        """Number what is new in the session log; returns how many messages were added."""
        cursors = {r[0]: list(r[1:]) for r in self._db.execute(
            "SELECT session_id, action_seq, event_idx, status, ended_at FROM cursor")}
        newest = self._log.execute("SELECT COALESCE(MAX(id), 0) FROM sessions").fetchone()[0]
        if cursors and newest < max(cursors):  # a new session log (the old one was damaged and moved aside)
            with self._tx() as db:
                db.execute("DELETE FROM cursor")
                self._place_cursors(db)
            return self.sync()
        low = min(cursors) if cursors else 0
        rows = self._log.execute(
            "SELECT id, game, players, started_at, ended_at, status, outcome, ranking FROM sessions"
            " WHERE id >= ? ORDER BY id", (low,)).fetchall()
        messages: list[dict[str, Any]] = []
        updates: list[tuple] = []
        for sid, game, players_text, started, ended, status, outcome, ranking in rows:
            cur = cursors.get(sid, [0, 0, "new", None])
            if cur[2] == "old":
                continue
            players = _loads(players_text, [])
            names = [str(p.get("name", "?")) for p in players if isinstance(p, dict)]
            new, a_seq, e_idx = self._items(sid, cur[0], cur[1], names)
            messages.extend(new)
            if status != "active" and (status, ended) != (cur[2], cur[3]):
                messages.append(self._ended(sid, game, players, started, ended, status,
                                            _loads(outcome, None), _loads(ranking, None)))
            if new or (status, ended) != (cur[2], cur[3]):
                updates.append((sid, a_seq, e_idx, status, ended))
        if not messages and not updates:
            return 0
        with self._tx() as db:
            seq = self.last_seq
            for message in messages:
                seq += 1
                message = {"schema": EVENT_SCHEMA, **self._identity, "stream": self.stream, "seq": seq,
                           **message}
                text = json.dumps(message, separators=(",", ":"))
                db.execute("INSERT INTO outbox VALUES (?, ?)", (seq, text))
            db.executemany("INSERT OR REPLACE INTO cursor VALUES (?, ?, ?, ?, ?)", updates)
            # sessions that are over and older than the newest one can change no more
            newest = max(cursors.keys() | {u[0] for u in updates})
            db.execute("DELETE FROM cursor WHERE session_id < ? AND status != 'active'", (newest,))
        return len(messages)

    def _items(self, sid: int, a_seq: int, e_idx: int, names: list[str]) -> tuple[list[dict], int, int]:
        """The session's new actions and events, merged in table time; and the new cursor."""
        actions = self._log.execute(
            "SELECT seq, at, t_ms, actor, source, action, sensed FROM actions"
            " WHERE session_id=? AND seq > ? ORDER BY seq", (sid, a_seq)).fetchall()
        events = self._log.execute(
            "SELECT idx, t_ms, event FROM events WHERE session_id=? AND idx > ? ORDER BY idx",
            (sid, e_idx)).fetchall()
        now = self._clock()
        out: list[dict] = []
        i = j = 0
        while i < len(actions) or j < len(events):
            take_event = j < len(events) and (
                i >= len(actions) or (isinstance(actions[i][2], int) and events[j][1] < actions[i][2]))
            if take_event:
                idx, t_ms, text = events[j]
                event = _loads(text, {})
                out.append({"session_id": sid, "kind": "sensed", "log_index": idx, "at": now, "t_ms": t_ms,
                            "event": event, "text": self._text(self._describe_event, event, names)})
                j += 1
            else:
                seq, at, t_ms, actor, source, text, sensed = actions[i]
                action = _loads(text, {})
                out.append({"session_id": sid, "kind": "action", "log_index": seq, "at": at, "t_ms": t_ms,
                            "action": action, "actor": _loads(actor, None), "source": source,
                            "sensed": _loads(sensed, []), "text": self._text(self._describe, action, names)})
                i += 1
        a_new = actions[-1][0] if actions else a_seq
        e_new = events[-1][0] if events else e_idx
        return out, a_new, e_new

    def _ended(self, sid: int, game: str, players: list, started: float, ended: float | None, status: str,
               outcome: Any, ranking: Any) -> dict[str, Any]:
        """The ``game_over`` (or ``abandoned``) message of a session."""
        if status == "abandoned":
            return {"session_id": sid, "kind": "abandoned", "at": ended or self._clock(), "t_ms": None,
                    "text": "Game abandoned"}
        ranks = ranking if isinstance(ranking, list) else None
        scores = outcome.get("scores") if isinstance(outcome, dict) else None
        result_players = []
        for seat, p in enumerate(players):
            if not isinstance(p, dict):
                continue
            seat = int(p.get("seat", seat))
            result_players.append({
                "seat": seat, "name": str(p.get("name", f"seat {seat}")),
                "rank": ranks[seat] if ranks and seat < len(ranks) else None,
                "score": scores[seat] if isinstance(scores, list) and seat < len(scores) else None,
            })
        best = min((p["rank"] for p in result_players if isinstance(p["rank"], int)), default=None)
        draw = bool(outcome.get("draw")) if isinstance(outcome, dict) else False
        winners = [] if draw or best is None else [p["seat"] for p in result_players if p["rank"] == best]
        names = ", ".join(result_players[s]["name"] for s in range(len(result_players)) if s in winners)
        return {"session_id": sid, "kind": "game_over", "at": ended or self._clock(), "t_ms": None,
                "text": "Game over: " + ("a draw" if draw else f"{names} won" if names else "no winner"),
                "result": {"game": game, "started_at": started, "ended_at": ended, "players": result_players,
                           "winners": winners, "draw": draw, "outcome": outcome}}

    @staticmethod
    def _text(describe: Describe | None, item: dict, names: list[str]) -> str:
        if describe is None:
            return str(item.get("type") or item.get("event") or "")
        try:
            return str(describe(item, names))
        except Exception:  # noqa: BLE001 - a description must never stop the journal
            return str(item.get("type") or item.get("event") or "")


def _loads(text: Any, default: Any) -> Any:
    if text is None:
        return default
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return default
