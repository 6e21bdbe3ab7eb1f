"""The controller with the real session log: every action durable, resumed after a restart."""

from __future__ import annotations

import random

from companion.session import SessionStore
from companion.table.controller import TableController
from companion.table.game import DingoDiscGame, game_json


def new_controller(store) -> TableController:
    return TableController(DingoDiscGame(), store=store, rng=random.Random(2))


def test_a_restart_resumes_the_unfinished_game(tmp_path):
    store = SessionStore(tmp_path)
    c = new_controller(store)
    c.new_game({"version": 1, "players": ["Anna", "Ben", "Cleo"]})
    c.apply({"type": "first_player", "seat": 1})
    c.enter_roll({"colour": "green", "number": 5})
    c.apply({"type": "place", "size": "small"})
    c.enter_roll({"colour": "red", "number": 2})
    c.undo()
    before = c.message()["state"]
    store.close()

    store = SessionStore(tmp_path)  # the companion starts again
    again = new_controller(store)
    assert again.resume_unfinished() == c.session_id
    assert again.message()["state"] == before
    again.enter_roll({"colour": "red", "number": 2})  # play goes on in the same session
    assert [a["type"] for a in store.effective_actions(c.session_id)][-1] == "roll"
    store.close()


def test_nothing_to_resume(tmp_path):
    store = SessionStore(tmp_path)
    c = new_controller(store)
    assert c.resume_unfinished() is None
    assert c.message()["state"]["expected"]["kind"] == "new_game"
    store.close()


def test_undo_after_the_game_ended_reopens_the_session(tmp_path, play_to_the_end):
    from companion.session.rebuild import rebuild_match

    store = SessionStore(tmp_path)
    c = new_controller(store)
    play_to_the_end(c)
    (info,) = store.list_sessions()
    assert info.status == "finished" and info.ranking is not None
    logged = store.effective_actions(info.id)
    over = c.message()
    assert over["state"]["phase"] == "over" and over["can_undo"] is True
    c.press_button("undo")  # the panel takes the last action back: the session goes on
    assert c.message()["state"]["phase"] != "over" and c.session_id == info.id
    again = store.session(info.id)
    assert again.status == "active" and again.ranking is None and again.ended_at is None
    rows = store.actions(info.id)
    assert [r.action["type"] for r in rows[-2:]] == ["reopen", "undo"]  # append-only, truthful
    assert rows[-2].action["ranking"] == info.ranking and rows[-2].source == "panel"
    assert store.effective_actions(info.id) == logged[:-1]
    assert rebuild_match(store, info.id).state.to_json() == game_json(c.message()["state"])
    c.press_button("confirm")  # ... and ends again
    assert c.message()["state"]["phase"] == "over"
    assert store.session(info.id).status == "finished" and store.session(info.id).ranking == info.ranking
    assert store.effective_actions(info.id) == logged
    store.close()


def test_without_a_log_undo_after_the_end_still_works(play_to_the_end):
    c = TableController(DingoDiscGame(), rng=random.Random(2))
    play_to_the_end(c)
    assert c.message()["can_undo"] is True
    c.undo()
    assert c.message()["state"]["phase"] != "over"


def test_every_logged_action_names_its_actor_in_the_export(tmp_path, capsys):
    import csv
    import io
    import json

    from companion.cli import main

    store = SessionStore(tmp_path)
    c = new_controller(store)
    names = ["Anna", "Ben", "Cleo"]
    c.new_game({"version": 1, "players": names})
    c.roll()  # the companion draws the first player
    first = c.message()["state"]["current"]
    nxt = (first + 1) % 3
    c.enter_roll({"colour": "blue", "number": 4})  # physical dice typed in by the host
    c.sensed([{"event": "placed", "t_ms": 900, "size": "small", "mass_g": 2.1, "x_mm": 0.0,
               "y_mm": 60.0, "zone": "blue", "number": 4, "confident": True}])
    c.roll()  # the companion rolls the next player's dice
    c.press_button("undo")  # the panel's undo takes that roll back
    sid = c.session_id
    store.close()

    assert main(["export", str(sid), "--format", "csv", "--data-dir", str(tmp_path)]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    got = [(r["type"], r["source"], json.loads(r["actor"]) if r["actor"] else None) for r in rows]
    assert got == [
        ("new_game", "setup", None),  # logged by start_session, which takes no actor
        ("first_player", "page", f"companion: {names[first]} (seat {first})"),
        ("roll", "page", f"host: {names[first]} (seat {first})"),
        ("place", "sensor", f"sensor: {names[first]} (seat {first})"),
        ("roll", "page", f"companion: {names[nxt]} (seat {nxt})"),
        ("undo", "panel", f"panel: {names[nxt]} (seat {nxt})"),
    ]
    assert main(["export", str(sid), "--format", "json", "--data-dir", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [a["actor"] for a in doc["actions"]] == [g[2] for g in got]
