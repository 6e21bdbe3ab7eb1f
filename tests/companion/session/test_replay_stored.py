"""``replay`` of a stored session: sensing over the stored trace and rules over the stored actions
give the same outcome as the live session."""

from __future__ import annotations

import io
import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from companion.sensing.pipeline import Pipeline
from companion.session import SessionStore
from companion.session.base import dumps_json
from companion.session.replay_cli import replay_stored
from companion.session.schema import action_crc
from companion.table.controller import TableController
from companion.table.game import DingoDiscGame
from companion.table.loop import SourceLoop
from hardware.sim.table import TableSimulator


class StepSource:
    """The simulator stepped as fast as asked (no real time): 8 samples per read."""

    def __init__(self, simulator: TableSimulator) -> None:
        self.simulator = simulator
        self.header = simulator.header

    def open(self) -> None:
        pass

    def close(self) -> None:
        pass

    def read(self, timeout_s: float) -> list:
        return [self.simulator.step() for _ in range(8)]


def _play_live(data_dir: Path, seed: int = 3) -> int:
    """A two-player game played to its end on the simulated table, as ``run`` plays it: the real
    read loop, pipeline, controller and store; some pawns placed on the simulator (sensed), a
    knock (sensed tip and fall), a host undo, the rest typed in by the host. Returns the session id."""
    store = SessionStore(data_dir, chunk_ms=1000)
    sim = TableSimulator(seed=seed)
    source = StepSource(sim)
    pipeline = Pipeline(source.header)
    c = TableController(DingoDiscGame(), store=store, simulator=sim, header=source.header,
                        sensing=pipeline.snapshot, rng=random.Random(seed))
    loop = SourceLoop(source, pipeline, c)
    for _ in range(100):  # the pipeline's warm-up on the empty disc, before the game
        loop.step()
    c.new_game({"version": 1, "players": ["Anna", "Ben"]})
    c.apply({"type": "first_player", "seat": 0})
    sensed = knocked = undone = 0
    for _ in range(400):
        exp = c.message()["state"]["expected"]
        if exp["kind"] == "none":
            break
        if exp["kind"] == "roll":
            c.enter_roll({"colour": "green", "number": 3})
        elif exp["kind"] == "place" and sensed < 4:
            sensed += 1
            c.sim_command("place", {"size": exp["sizes"][0], "zone": "green", "number": 3})
            for _ in range(300):
                loop.step()
                if c.message()["state"]["expected"]["kind"] != "place":
                    break
        elif exp["kind"] == "place":
            c.apply({"type": "place", "size": exp["sizes"][0]})
            if not undone:
                undone = 1
                c.undo()  # the host takes it back and places again
                c.apply({"type": "place", "size": exp["sizes"][0]})
        elif exp["kind"] == "end_game":
            c.press_button("confirm")
        else:
            c.press_button("confirm")  # e.g. a fall to confirm
        if sensed == 2 and not knocked:
            knocked = 1
            c.sim_command("knock", {})
        for _ in range(5):  # the table runs on between the host's requests
            loop.step()
    assert c.message()["state"]["phase"] == "over"
    sid = store.list_sessions()[0].id
    kinds = {a.action["type"] for a in store.actions(sid) if a.source == "sensor"}
    assert "place" in kinds and "fall" in kinds, kinds  # the outcome depended on sensing
    store.close()
    return sid


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """One live game, played once for this module (tests copy its data dir before changing it)."""
    data_dir = tmp_path_factory.mktemp("played")
    return data_dir, _play_live(data_dir)


@pytest.fixture
def live(played: tuple[Path, int], tmp_path: Path) -> tuple[Path, int]:
    """A private copy of the played session's data dir, and the session id."""
    shutil.copytree(played[0], tmp_path / "data")
    return tmp_path / "data", played[1]


def test_replaying_a_live_session_gives_the_same_game(live: tuple[Path, int]) -> None:
    data_dir, sid = live
    out, err = io.StringIO(), io.StringIO()
    assert replay_stored(str(sid), out, data_dir=data_dir, err=err) == 0, err.getvalue()
    replayed = [json.loads(line) for line in out.getvalue().splitlines()]
    assert {"placed", "tipped", "fell"} <= {e["event"] for e in replayed}
    assert "gives the same game: phase over" in err.getvalue(), err.getvalue()
    assert "actions sensed again from the stored trace" in err.getvalue()


def _tamper(data_dir: Path, sql: str, args: tuple = ()) -> None:
    db = sqlite3.connect(data_dir / "sessions.db")
    with db:
        db.execute(sql, args)
    db.close()


@pytest.mark.parametrize(
    ("kind", "change", "message"),
    [
        ("fall", {"tipped": False}, '"tipped": false'),  # still a game, another one
        ("place", {"zone": "red"}, "cannot be replayed"),  # not even a game any more
    ],
)
def test_a_log_that_the_trace_does_not_bear_out_exits_1(
    live: tuple[Path, int], kind: str, change: dict, message: str
) -> None:
    """A sensed action rewritten in the log (with a valid row checksum): replay says so, exit 1."""
    data_dir, sid = live
    with SessionStore(data_dir) as store:
        rec = next(a for a in store.actions(sid) if a.source == "sensor" and a.action["type"] == kind)
    action = dict(rec.action, **change)
    assert action != rec.action
    a_text, s_text = dumps_json(action, "action"), dumps_json(rec.sensed, "sensed")
    _tamper(data_dir, "UPDATE actions SET action=?, crc=? WHERE session_id=? AND seq=?",
            (a_text, action_crc(sid, rec.seq, a_text, s_text), sid, rec.seq))
    err = io.StringIO()
    assert replay_stored(str(sid), io.StringIO(), data_dir=data_dir, err=err) == 1, err.getvalue()
    assert "DIFFERENT" in err.getvalue() and message in err.getvalue(), err.getvalue()


def test_a_different_logged_ranking_exits_1(live: tuple[Path, int]) -> None:
    data_dir, sid = live
    with SessionStore(data_dir) as store:
        ranking = store.session(sid).ranking
    assert ranking is not None
    _tamper(data_dir, "UPDATE sessions SET ranking=? WHERE id=?", (json.dumps([r + 1 for r in ranking]), sid))
    err = io.StringIO()
    assert replay_stored(f"session:{sid}", io.StringIO(), data_dir=data_dir, err=err) == 1
    assert "DIFFERENT outcome" in err.getvalue() and "logged ranking" in err.getvalue()


@pytest.mark.parametrize(
    ("ref", "status", "message"), [("77", 2, "no session 77"), ("abc", 2, "must be a number")]
)
def test_bad_references(tmp_path: Path, ref: str, status: int, message: str) -> None:
    SessionStore(tmp_path).close()
    err = io.StringIO()
    assert replay_stored(ref, io.StringIO(), data_dir=tmp_path, err=err) == status
    assert message in err.getvalue()


def test_no_log_at_all(tmp_path: Path) -> None:
    err = io.StringIO()
    assert replay_stored("3", io.StringIO(), data_dir=tmp_path / "empty", err=err) == 2
    assert "no session log" in err.getvalue()


def test_cli_replay_falls_back_to_stored_sessions(live, tmp_path: Path, monkeypatch, capsys) -> None:
    from companion.cli import main

    data_dir, sid = live
    monkeypatch.setenv("STATE_DIRECTORY", str(data_dir))
    monkeypatch.setenv("DINGO_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / "none.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    assert main(["replay", str(sid)]) == 0
    assert len(capsys.readouterr().out.splitlines()) >= 3
