"""Busy is not damage; damage is found per session; WAL damage is not silent (issue 16 #7, #8, #9)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.cli import main
from companion.session import SessionStore
from companion.session.schema import LogUnavailable


def _game(store: SessionStore, n: int = 20, pad: str = "") -> int:
    sid = store.start_session("dingo-disc", ["Ann", "Bob"])
    for i in range(n):
        store.append_action(sid, {"type": "roll", "number": 2 + i % 5, "colour": "red", "pad": pad})
    return sid


def _checkpoint(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def test_a_held_lock_is_treated_as_damage(tmp_path: Path, monkeypatch) -> None:
    """Another process holding a write lock: wait, then refuse naming it; the file is never moved."""
    import companion.session.schema as schema

    s = SessionStore(tmp_path)
    sid = _game(s)
    s.close()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3,sys,time;db=sqlite3.connect(sys.argv[1],isolation_level=None);"
         "db.execute('PRAGMA locking_mode=EXCLUSIVE');db.execute('BEGIN EXCLUSIVE');"
         "print('held',flush=True);time.sleep(15)", str(tmp_path / "sessions.db")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        monkeypatch.setattr(schema, "BUSY_WAIT_S", 1.0)
        with pytest.raises(LogUnavailable) as exc:
            SessionStore(tmp_path)
        assert "locked by pid" in str(exc.value) and str(holder.pid) in str(exc.value)
        assert "not damaged" in str(exc.value)
    finally:
        holder.kill()
        holder.wait()
    assert not list(tmp_path.glob("sessions.db.corrupt-*"))
    s = SessionStore(tmp_path)  # the lock is gone: the healthy log opens, the game is there
    assert s.report.status == "ok" and s.unfinished()[0].id == sid
    s.close()


def test_a_short_lock_is_waited_out(tmp_path: Path) -> None:
    s = SessionStore(tmp_path)
    _game(s)
    s.close()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3,sys,time;db=sqlite3.connect(sys.argv[1],isolation_level=None);"
         "db.execute('PRAGMA locking_mode=EXCLUSIVE');db.execute('BEGIN EXCLUSIVE');"
         "print('held',flush=True);time.sleep(2)", str(tmp_path / "sessions.db")],
        stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    t0 = time.monotonic()
    s = SessionStore(tmp_path)
    holder.wait()
    assert s.report.status == "ok" and len(s.list_sessions()) == 1 and time.monotonic() - t0 >= 1
    s.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root opens any file")
def test_no_permission_is_not_damage(tmp_path: Path) -> None:
    s = SessionStore(tmp_path)
    _game(s)
    s.close()
    os.chmod(tmp_path / "sessions.db", 0)
    with pytest.raises(LogUnavailable, match="permission"):
        SessionStore(tmp_path)


def test_one_bad_byte_hides_the_whole_history(tmp_path: Path) -> None:
    """A damaged byte in an old finished session: only that session is hidden; the live game resumes."""
    s = SessionStore(tmp_path)
    old = _game(s, pad="o" * 30)
    s.end_session(old, ranking=[1, 2])
    other = _game(s)
    s.end_session(other, ranking=[2, 1])
    live = _game(s, 7)
    s.close()
    _checkpoint(tmp_path / "sessions.db")
    data = bytearray((tmp_path / "sessions.db").read_bytes())
    at = data.find(b'"pad":"' + b"o" * 30)
    assert at > 0
    data[at + 10] ^= 0x01  # one bit of one byte of the old session's text
    (tmp_path / "sessions.db").write_bytes(bytes(data))
    s = SessionStore(tmp_path)
    assert s.report.status == "recovered"
    assert [d for d, _ in s.damaged_sessions()] == [old]
    assert {i.id for i in s.list_sessions()} == {other, live}
    assert [i.id for i in s.unfinished()] == [live] and len(s.effective_actions(live)) == 7
    s.close()


def test_rows_deleted_at_the_tail_are_detected(tmp_path: Path) -> None:
    s = SessionStore(tmp_path)
    sid = _game(s, 10)
    keep = _game(s, 3)
    s.close()
    db = sqlite3.connect(tmp_path / "sessions.db")
    db.execute("DELETE FROM actions WHERE session_id=? AND seq > 8", (sid,))
    db.commit()
    db.close()
    s = SessionStore(tmp_path)
    assert s.damaged_sessions() == [(sid, "actions 9..10 are missing at the end")]
    assert [i.id for i in s.list_sessions()] == [keep]
    s.close()


def test_sessions_check_and_salvage_commands(tmp_path: Path, capsys) -> None:
    s = SessionStore(tmp_path)
    a = _game(s, 5)
    _game(s, 5)
    s.close()
    assert main(["sessions", "check", "--data-dir", str(tmp_path)]) == 0
    assert "2 session(s) intact" in capsys.readouterr().out
    db = sqlite3.connect(tmp_path / "sessions.db")
    db.execute("UPDATE actions SET sensed='[1]' WHERE session_id=? AND seq=2", (a,))
    db.commit()
    db.close()
    assert main(["sessions", "check", "--data-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"session {a}: action 2 fails its checksum" in out
    assert main(["sessions", "salvage", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "1 session(s) in the history" in out and f"damaged, hidden: session {a}" in out


def _wal_with_commits(tmp_path: Path) -> tuple[Path, int]:
    """A log whose last actions are only in the WAL (the process died before a checkpoint)."""
    s = SessionStore(tmp_path)
    sid = _game(s, 5)
    s.close()
    _checkpoint(tmp_path / "sessions.db")
    code = ("import sys;from companion.session import SessionStore;s=SessionStore(sys.argv[1]);"
            "sid=s.unfinished()[0].id;[s.append_action(sid,{'type':'roll','number':3}) for _ in range(5)];"
            "import os;os._exit(0)")
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True)
    wal = tmp_path / "sessions.db-wal"
    assert wal.stat().st_size > 0
    return wal, sid


def test_wal_damage_is_silent(tmp_path: Path) -> None:
    """A truncated WAL: a copy is kept and the report says recent actions may be missing."""
    wal, sid = _wal_with_commits(tmp_path)
    size = wal.stat().st_size
    with open(wal, "r+b") as f:
        f.truncate(size - 700)  # cut into the last frame
    s = SessionStore(tmp_path)
    assert s.report.status == "recovered" and not s.report.ok
    assert "may be missing" in s.report.message
    assert s.report.wal_copy is not None and s.report.wal_copy.stat().st_size == size - 700
    assert len(s.effective_actions(sid)) >= 5  # what was checkpointed is all there
    s.close()


def test_overwritten_wal_is_reported(tmp_path: Path) -> None:
    wal, _ = _wal_with_commits(tmp_path)
    data = bytearray(wal.read_bytes())
    data[-500:-400] = os.urandom(100)
    wal.write_bytes(bytes(data))
    s = SessionStore(tmp_path)
    assert "may be missing" in s.report.message and s.report.wal_copy is not None
    s.close()


def test_empty_database_beside_a_wal_is_not_a_new_log(tmp_path: Path) -> None:
    wal, _ = _wal_with_commits(tmp_path)
    (tmp_path / "sessions.db").write_bytes(b"")
    kept = wal.read_bytes()
    s = SessionStore(tmp_path)
    assert s.report.status != "created" and "may be missing" in s.report.message
    assert s.report.wal_copy is not None and s.report.wal_copy.read_bytes() == kept
    s.close()


def test_intact_wal_is_replayed_and_not_reported(tmp_path: Path) -> None:
    _, sid = _wal_with_commits(tmp_path)
    s = SessionStore(tmp_path)
    assert s.report.status == "ok", s.report.message
    assert len(s.effective_actions(sid)) == 10  # 5 checkpointed + 5 from the WAL
    s.close()


def test_a_byte_that_is_no_longer_utf8_hides_only_its_session(tmp_path: Path) -> None:
    s = SessionStore(tmp_path)
    bad = _game(s, pad="q" * 30)
    good = _game(s)
    s.close()
    _checkpoint(tmp_path / "sessions.db")
    data = bytearray((tmp_path / "sessions.db").read_bytes())
    data[data.find(b"q" * 30) + 5] = 0xFF  # not UTF-8: SQLite cannot even decode the row
    (tmp_path / "sessions.db").write_bytes(bytes(data))
    s = SessionStore(tmp_path)
    assert [d for d, _ in s.damaged_sessions()] == [bad]
    assert [i.id for i in s.list_sessions()] == [good]
    s.close()
