"""SessionStore: sessions, the append-only action log, undo, events, resume, bad input."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from companion.session import SessionError, SessionStore

NEW_GAME = {"type": "new_game", "game": "dingo-disc", "version": 1, "players": ["Ann", "Bob"], "options": {}}


def test_create_then_reopen(tmp_path: Path) -> None:
    s = SessionStore(tmp_path)
    assert s.report.status == "created" and s.report.ok
    sid = s.start_session("dingo-disc", ["Ann", "Bob"], version="1")
    s.close()
    s2 = SessionStore(tmp_path)
    assert s2.report.status == "ok"
    info = s2.session(sid)
    assert info.players == [{"name": "Ann", "seat": 0}, {"name": "Bob", "seat": 1}]
    assert info.status == "active" and s2.unfinished()[0].id == sid
    mode = s2.db.execute("PRAGMA journal_mode").fetchone()[0]
    sync = s2.db.execute("PRAGMA synchronous").fetchone()[0]
    assert mode == "wal" and sync == 2  # FULL
    assert s2.db.execute("PRAGMA page_size").fetchone()[0] == 1024
    assert s2.db.execute("SELECT version FROM schema_version").fetchone()[0] == 2  # chained rows
    s2.close()


def test_setup_is_logged_as_first_action(store: SessionStore) -> None:
    sid = store.start_session("dingo-disc", setup=NEW_GAME)
    info = store.session(sid)
    assert info.version == "1" and [p["name"] for p in info.players] == ["Ann", "Bob"]
    recs = store.actions(sid)
    assert [r.seq for r in recs] == [1] and recs[0].action == NEW_GAME and recs[0].source == "setup"
    with pytest.raises(SessionError, match="new_game"):
        store.start_session("dingo-disc", setup={"type": "roll", "number": 3})


def test_actions_append_in_order_and_survive_reopen(tmp_path: Path) -> None:
    s = SessionStore(tmp_path)
    sid = s.start_session(setup=NEW_GAME)
    ev = {
        "event": "placed",
        "t_ms": 1200,
        "size": "small",
        "mass_g": 2.1,
        "x_mm": 40.0,
        "y_mm": 2.0,
        "zone": "red",
        "number": 2,
    }
    seqs = [
        s.append_action(sid, {"type": "first_player", "seat": 0}, source="page"),
        s.append_action(sid, {"type": "roll", "number": 2, "colour": "red"}, actor=0, source="panel"),
        s.append_action(sid, {"type": "place", "size": "small", "sensed": True}, sensed=[ev], t_ms=1200),
    ]
    assert seqs == [2, 3, 4]
    s.close()
    s = SessionStore(tmp_path)
    recs = s.actions(sid)
    assert [r.action["type"] for r in recs] == ["new_game", "first_player", "roll", "place"]
    assert recs[2].actor == 0 and recs[2].source == "panel"
    assert recs[3].sensed == [ev] and recs[3].t_ms == 1200
    assert s.events(sid) == [ev]
    s.close()


class FakeAction:
    """An action object in the rules core's style (to_json)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def to_json(self) -> dict:
        return {"type": "roll", "number": self.n, "colour": "blue"}


def test_undo_entries_give_effective_actions(store: SessionStore) -> None:
    sid = store.start_session(setup=NEW_GAME)
    store.append_action(sid, FakeAction(2))
    store.append_action(sid, FakeAction(3))
    store.append_undo(sid, source="page")
    store.append_action(sid, {"type": "undo", "undone": {"type": "roll"}})  # the controller's form
    store.append_undo(sid)  # new_game itself is never undone
    store.append_action(sid, FakeAction(5))
    assert [a.get("number") for a in store.effective_actions(sid)] == [None, 5]
    assert len(store.actions(sid)) == 7  # the log itself is append-only


def test_end_abandon_and_listing(store: SessionStore) -> None:
    a = store.start_session("dingo-disc", ["Ann", "Bob", "Cy"], started_at=100.0)
    b = store.start_session("dingo-disc", ["Ann", "Bob"], started_at=200.0)
    store.append_action(a, {"type": "end_game"}, at=160.0)
    store.end_session(a, ranking=[2, 1, 3], outcome={"winner": 1}, ended_at=190.0)
    info = store.session(a)
    assert info.status == "finished" and info.winners == [1] and info.duration_s == 90.0
    assert info.player_name(1) == "Bob"
    assert [s.id for s in store.unfinished()] == [b]
    store.abandon(b)
    assert store.unfinished() == [] and store.session(b).status == "abandoned"
    assert [s.id for s in store.list_sessions()] == [b, a]
    with pytest.raises(SessionError, match="is finished"):
        store.append_action(a, {"type": "roll", "number": 3})
    with pytest.raises(SessionError, match="abandoned"):
        store.abandon(b)


def test_draw_ranking_gives_two_winners(store: SessionStore) -> None:
    sid = store.start_session("dingo-disc", ["Ann", "Bob"])
    store.end_session(sid, ranking=[1, 1])
    assert store.session(sid).winners == [0, 1]


def test_standalone_events_merge_with_sensed(store: SessionStore) -> None:
    sid = store.start_session("dingo-disc", ["Ann", "Bob"])
    tip = {"event": "tipped", "t_ms": 5000}
    placed = {"event": "placed", "t_ms": 4000, "size": "large"}
    store.append_events(sid, [tip, {"event": "settled", "t_ms": 7000}])
    store.append_action(sid, {"type": "place", "size": "large"}, sensed=[placed])
    store.append_action(sid, {"type": "fall", "pawns": {"large": 1}}, sensed=[tip])
    assert [e["event"] for e in store.events(sid)] == ["placed", "tipped", "settled"]


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda s, sid: s.append_action(999, {"type": "roll"}), "no session 999"),
        (lambda s, sid: s.append_action("1", {"type": "roll"}), "session id must be an integer"),
        (lambda s, sid: s.append_action(sid, {"number": 3}), "string 'type'"),
        (lambda s, sid: s.append_action(sid, {"type": "x", "v": {1, 2}}), "not JSON-serialisable"),
        (lambda s, sid: s.append_action(sid, {"type": "x"}, sensed=["tip"]), "event dicts"),
        (lambda s, sid: s.append_action(sid, {"type": "x"}, t_ms="5"), "t_ms must be an integer"),
        (lambda s, sid: s.append_events(sid, [{"event": "tipped"}]), "integer 't_ms'"),
        (lambda s, sid: s.start_session("dingo-disc", []), "non-empty list"),
        (lambda s, sid: s.start_session("dingo-disc", "Ann"), "non-empty list"),
        (
            lambda s, sid: s.start_session(
                "dingo-disc", [{"name": "A", "seat": 0}, {"name": "B", "seat": 0}]
            ),
            "share a seat",
        ),
        (lambda s, sid: s.start_session("", ["A"]), "game must be"),
        (lambda s, sid: s.start_session("g", ["A", "B"], start_player=5), "start_player"),
        (lambda s, sid: s.end_session(sid, ranking=[1]), "rank >= 1 for each of the 2"),
        (lambda s, sid: s.end_session(sid, ranking=[0, 1]), "rank >= 1"),
        (lambda s, sid: s.append_samples(sid, []), "no trace header"),
    ],
)
def test_bad_input_is_named(store: SessionStore, call, match: str) -> None:
    sid = store.start_session("dingo-disc", ["Ann", "Bob"])
    with pytest.raises(SessionError, match=match):
        call(store, sid)
    assert store.session(sid).n_actions == 0


def test_concurrent_writers_get_unique_contiguous_seqs(store: SessionStore, header_factory) -> None:
    sid = store.start_session("dingo-disc", ["Ann", "Bob"], header=header_factory())
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for i in range(15):
                store.append_action(sid, {"type": "roll", "number": 2 + (i % 5), "k": k})
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert [r.seq for r in store.actions(sid)] == list(range(1, 61))
    assert store.integrity_check() == "ok"


def test_closed_store_refuses_clearly(tmp_path: Path) -> None:
    s = SessionStore(tmp_path)
    s.close()
    s.close()
    with pytest.raises(SessionError, match="closed"):
        s.list_sessions()


def test_log_rows_are_append_only_at_the_sql_level(store: SessionStore) -> None:
    # The store never updates action rows: the crc column would catch a silent change on reopen.
    sid = store.start_session("dingo-disc", ["Ann", "Bob"])
    store.append_action(sid, {"type": "roll", "number": 4})
    with pytest.raises(sqlite3.IntegrityError):
        store.db.execute(
            "INSERT INTO actions (session_id, seq, at, action, crc) VALUES (?, 1, 0, '{}', 0)", (sid,)
        )


def test_a_finished_session_can_be_reopened_append_only(tmp_path: Path) -> None:
    import csv
    import io

    from companion.session.export import write_export
    from companion.session.stats import compute_stats

    s = SessionStore(tmp_path)
    sid = s.start_session(setup=NEW_GAME)
    s.append_action(sid, {"type": "first_player", "seat": 0})
    s.append_action(sid, {"type": "roll", "number": 3, "colour": "red"})
    s.end_session(sid, ranking=[1, 2], outcome={"winner": 0, "draw": False})
    before = s.effective_actions(sid)
    with pytest.raises(SessionError, match="is finished"):
        s.append_undo(sid)  # a finished session takes no rows ...
    seq = s.reopen(sid, source="page")  # ... until it is reopened
    info = s.session(sid)
    assert info.status == "active" and info.ranking is None and info.outcome is None and info.ended_at is None
    assert s.actions(sid)[-1].action == {"type": "reopen", "ended_at": s.actions(sid)[-1].action["ended_at"],
                                         "ranking": [1, 2], "outcome": {"winner": 0, "draw": False}}
    assert s.actions(sid)[-1].seq == seq and s.effective_actions(sid) == before  # not a game action
    s.append_undo(sid)
    assert s.effective_actions(sid) == before[:-1]
    with pytest.raises(SessionError, match="only a finished session"):
        s.reopen(sid)
    s.close()
    s = SessionStore(tmp_path)  # durable and consistent: offered for resumption, CRCs check out
    assert s.report.status == "ok" and [i.id for i in s.unfinished()] == [sid]
    out = io.StringIO()
    write_export(s, sid, "csv", out)
    assert [r["action"] for r in csv.DictReader(io.StringIO(out.getvalue()))][-2:] == ["reopen", "undo"]
    assert compute_stats(s).unfinished == 1
    s.end_session(sid, ranking=[2, 1])
    assert s.session(sid).ranking == [2, 1] and compute_stats(s).finished == 1
    other = s.start_session("dingo-disc", ["A", "B"])
    s.abandon(other)
    with pytest.raises(SessionError, match="is abandoned"):
        s.reopen(other)
    s.close()
