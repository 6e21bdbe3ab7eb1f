"""A damaged database: what is readable and intact is salvaged, the rest marked; the file is kept aside."""

from __future__ import annotations

import os
import random
import sqlite3
from pathlib import Path

import pytest

from companion.session import SessionStore


def _filled(tmp_path: Path, n_sessions: int = 3) -> Path:
    s = SessionStore(tmp_path)
    for k in range(n_sessions):
        sid = s.start_session("dingo-disc", ["Ann", "Bob"])
        for i in range(40):
            s.append_action(sid, {"type": "roll", "number": 2 + i % 5, "colour": "red", "pad": "x" * 50 * k})
    s.close()
    # fold the WAL into the main file so the damage below hits real data
    db = sqlite3.connect(tmp_path / "sessions.db")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return tmp_path / "sessions.db"


def _assert_recovered(tmp_path: Path, clock_value: float = 1_790_000_000.0) -> SessionStore:
    s = SessionStore(tmp_path, clock=lambda: clock_value)
    assert s.report.status == "recovered", s.report
    assert s.report.moved_to is not None and s.report.moved_to.exists()
    assert s.report.moved_to.name == "sessions.db.corrupt-20260921T141320Z"
    assert "damaged" in s.report.message and s.report.moved_to.name in s.report.message
    # what was kept is exactly what was written (session k: 40 rolls padded with 50 * (k - 1) x)
    for info in s.list_sessions():
        k = info.id - 1
        assert s.effective_actions(info.id) == [
            {"type": "roll", "number": 2 + i % 5, "colour": "red", "pad": "x" * 50 * k} for i in range(40)]
    assert {i.id for i in s.list_sessions()} | {d for d, _ in s.damaged_sessions()} <= {1, 2, 3}
    sid = s.start_session("dingo-disc", ["Ann", "Bob"])  # and it works
    assert s.append_action(sid, {"type": "roll", "number": 3}) == 1
    assert s.integrity_check() == "ok"
    return s


def test_random_bytes_over_the_header(tmp_path: Path, caplog) -> None:
    path = _filled(tmp_path)
    with open(path, "r+b") as f:
        f.write(random.Random(1).randbytes(100))
    _assert_recovered(tmp_path).close()
    said = [r for r in caplog.records if r.levelname == "ERROR" and "moved it aside" in r.getMessage()]
    assert len(said) == 1  # reported on the log (stderr/journal), not only in the report object


@pytest.mark.parametrize("seed", range(6))
def test_random_bytes_into_the_pages(tmp_path: Path, seed: int) -> None:
    path = _filled(tmp_path)
    rng = random.Random(seed)
    size = path.stat().st_size
    page = 4096
    with open(path, "r+b") as f:
        # trash a few whole pages past page 1 (b-tree headers and cell data alike)
        for _ in range(3):
            start = rng.randrange(1, size // page) * page
            f.seek(start)
            f.write(rng.randbytes(page))
    _assert_recovered(tmp_path).close()


def test_a_silently_changed_action_fails_its_checksum(tmp_path: Path) -> None:
    path = _filled(tmp_path, 3)
    db = sqlite3.connect(path)
    db.execute('UPDATE actions SET action=\'{"type":"roll","number":6}\' WHERE seq=3 AND session_id=2')
    db.commit()
    db.close()
    s = SessionStore(tmp_path, clock=lambda: 1_790_000_000.0)
    assert s.report.status == "recovered" and "checksum" in s.report.message
    assert s.damaged_sessions() == [(2, "action 3 fails its checksum")]
    assert [i.id for i in s.list_sessions()] == [3, 1]  # the others stay; the file is not moved
    assert not list(tmp_path.glob("sessions.db.corrupt-*"))
    s.close()


def test_wal_and_shm_move_with_it_and_names_never_clash(tmp_path: Path) -> None:
    path = _filled(tmp_path, 1)
    Path(f"{path}-wal").write_bytes(b"")
    path.write_bytes(b"this is not a database at all" * 200)
    _assert_recovered(tmp_path).close()
    assert (tmp_path / "sessions.db.corrupt-20260921T141320Z-wal").exists()
    path2 = tmp_path / "sessions.db"
    with open(path2, "r+b") as f:
        f.write(b"\0garbage" * 20)
    s = SessionStore(tmp_path, clock=lambda: 1_790_000_000.0)
    assert s.report.moved_to is not None and s.report.moved_to.name.endswith("-2")
    s.close()


def test_unusable_directory_falls_back_to_memory(tmp_path: Path) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("a file where the data directory should be")
    s = SessionStore(blocker)
    assert s.report.status == "memory" and "NOT being kept" in s.report.message
    sid = s.start_session("dingo-disc", ["Ann", "Bob"])  # the game still runs
    assert s.append_action(sid, {"type": "roll", "number": 3}) == 1
    s.close()


def test_dingo_companion_keeps_starting(tmp_path: Path) -> None:
    # Damage twice in a row: each start moves the bad file aside and carries on.
    for _ in range(2):
        path = tmp_path / "sessions.db"
        _filled(tmp_path, 1)
        with open(path, "r+b") as f:
            f.seek(0)
            f.write(os.urandom(64))
        s = SessionStore(tmp_path)
        assert s.report.status == "recovered"
        s.close()
    assert len(list(tmp_path.glob("sessions.db.corrupt-*"))) >= 2


def test_the_command_line_says_so(tmp_path: Path, capsys) -> None:
    from companion.cli import main

    path = _filled(tmp_path, 1)
    with open(path, "r+b") as f:
        f.seek(0)
        f.write(random.Random(3).randbytes(200))
    assert main(["export", "latest", "--data-dir", str(tmp_path)]) == 2  # nothing to export: a fresh log
    err = capsys.readouterr().err
    assert "was damaged" in err and "moved it aside to sessions.db.corrupt-" in err
    assert "no sessions logged yet" in err
    assert len(list(tmp_path.glob("sessions.db.corrupt-*"))) == 1
