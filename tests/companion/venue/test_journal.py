"""The venue journal: per-table sequence numbers over the session log (no broker needed)."""

from __future__ import annotations

import random

import jsonschema

from companion.session import SessionStore
from companion.session.randomplay import new_game, next_action
from companion.table.controller import TableController
from companion.table.game import DingoDiscGame
from companion.table.prompts import describe_event
from companion.venue.journal import Journal


def make(tmp_path, seed: int = 1):
    store = SessionStore(tmp_path)
    controller = TableController(DingoDiscGame(), store=store, rng=random.Random(seed))
    return store, controller


def journal(tmp_path, store, controller=None) -> Journal:
    describe = controller._game.describe if controller is not None else None
    return Journal(
        tmp_path,
        store.path,
        {"venue": "club", "table": "t1"},
        describe=describe,
        describe_event=describe_event,
    )


def messages(j: Journal) -> list[dict]:
    import json

    return [json.loads(p) for _, p in j.pending(0, 10_000)]


def play(controller, rng, n):
    for _ in range(n):
        action = next_action(controller.message()["state"], rng)
        if action is None:
            return
        controller.apply(action)


def test_actions_and_loose_sensed_events_are_numbered_in_table_time(tmp_path, schemas):
    store, controller = make(tmp_path)
    j = journal(tmp_path, store, controller)
    rng = random.Random(4)
    controller.new_game({"players": ["Ann", "Bob"], "version": 1})
    play(controller, rng, 6)
    sid = controller.session_id
    t = store.actions(sid)[-1].t_ms or 0
    store.append_events(
        sid, [{"event": "hand", "t_ms": t + 5, "duration_ms": 300}, {"event": "tipped", "t_ms": t + 9}]
    )
    play(controller, rng, 3)
    assert j.sync() == 1 + 6 + 2 + 3
    got = messages(j)
    assert [m["seq"] for m in got] == list(range(1, 13))
    assert len({m["stream"] for m in got}) == 1
    kinds = [m["kind"] for m in got]
    assert kinds.count("sensed") == 2 and kinds.count("action") == 10
    assert got[0]["action"]["type"] == "new_game" and got[0]["text"].startswith("New game")
    sensed = [m for m in got if m["kind"] == "sensed"]
    assert [m["event"]["event"] for m in sensed] == ["hand", "tipped"]
    for m in got:
        jsonschema.validate(m, schemas("event"))
    assert j.sync() == 0  # nothing new: nothing numbered twice


def test_the_end_of_a_game_and_a_reopen_after_it(tmp_path, schemas):
    store, controller = make(tmp_path)
    j = journal(tmp_path, store, controller)
    rng = random.Random(7)
    controller.new_game(new_game(rng))
    while controller.message()["state"]["phase"] != "over":
        play(controller, rng, 1)
    j.sync()
    over = [m for m in messages(j) if m["kind"] == "game_over"]
    assert len(over) == 1
    jsonschema.validate(over[0], schemas("event"))
    info = store.list_sessions(limit=1)[0]
    assert [p["rank"] for p in over[0]["result"]["players"]] == info.ranking
    assert over[0]["result"]["winners"] == info.winners
    controller.undo()  # an undo after the end reopens the session
    j.sync()
    tail = messages(j)[-2:]
    assert tail[-1]["kind"] == "action" and tail[-1]["action"]["type"] in ("reopen", "undo")
    assert any(m["action"]["type"] == "reopen" for m in messages(j) if m["kind"] == "action")


def test_an_abandoned_game(tmp_path):
    store, controller = make(tmp_path)
    j = journal(tmp_path, store, controller)
    controller.new_game({"players": ["Ann", "Bob"], "version": 1})
    controller.abandon()
    j.sync()
    assert messages(j)[-1]["kind"] == "abandoned"


def test_numbers_and_the_acknowledged_mark_survive_a_restart(tmp_path):
    store, controller = make(tmp_path)
    j = journal(tmp_path, store, controller)
    rng = random.Random(1)
    controller.new_game(new_game(rng))
    play(controller, rng, 9)
    j.sync()
    j.set_acked(4)
    before = messages(j)
    j.close()
    again = journal(tmp_path, store, controller)
    assert again.acked == 4 and messages(again) == before
    play(controller, rng, 2)
    again.sync()
    assert [m["seq"] for m in messages(again)] == list(range(1, 13))
    assert [s for s, _ in again.pending(again.acked, 100)][0] == 5


def test_a_new_journal_starts_at_the_game_in_progress_not_old_history(tmp_path):
    store, controller = make(tmp_path)
    rng = random.Random(3)
    controller.new_game(new_game(rng))
    while controller.message()["state"]["phase"] != "over":
        play(controller, rng, 1)
    controller.new_game(new_game(rng))
    play(controller, rng, 4)
    j = journal(tmp_path, store, controller)
    j.sync()
    got = messages(j)
    assert {m["session_id"] for m in got} == {controller.session_id}
    assert got[0]["action"]["type"] == "new_game" and len(got) == 5


def test_a_new_journal_after_a_finished_game_publishes_only_what_comes_next(tmp_path):
    store, controller = make(tmp_path)
    rng = random.Random(5)
    controller.new_game(new_game(rng))
    while controller.message()["state"]["phase"] != "over":
        play(controller, rng, 1)
    j = journal(tmp_path, store, controller)
    assert j.sync() == 0
    controller.new_game(new_game(rng))
    assert j.sync() == 1


def test_a_new_session_log_after_the_old_one_was_moved_aside_is_published_from_its_start(tmp_path):
    store, controller = make(tmp_path)
    rng = random.Random(8)
    j = journal(tmp_path, store, controller)
    for _ in range(3):
        controller.new_game(new_game(rng))
        play(controller, rng, 3)
    j.sync()
    before = j.last_seq
    j.close()
    controller.close()
    store.close()
    for name in ("sessions.db", "sessions.db-wal", "sessions.db-shm"):
        path = tmp_path / name
        if path.exists():
            path.rename(tmp_path / (name + ".corrupt-test"))
    store, controller = make(tmp_path)  # a fresh log: session ids start at 1 again
    j = journal(tmp_path, store, controller)
    controller.new_game({"players": ["Ann", "Bob"], "version": 1})
    play(controller, rng, 2)
    assert j.sync() == 3
    new = messages(j)[before:]
    assert [m["seq"] for m in new] == [before + 1, before + 2, before + 3]
    assert new[0]["session_id"] == 1 and new[0]["action"]["type"] == "new_game"
