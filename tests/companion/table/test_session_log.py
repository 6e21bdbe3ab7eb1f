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
    got = [(r["action"], r["source"], r["by"], r["player"]) for r in rows]
    expected = [
        ("new_game", "setup", None),  # logged by start_session, which takes no actor
        ("first_player", "page", f"companion: {names[first]} (seat {first})"),
        ("roll", "page", f"host: {names[first]} (seat {first})"),
        ("place", "sensor", f"sensor: {names[first]} (seat {first})"),
        ("roll", "page", f"companion: {names[nxt]} (seat {nxt})"),
        ("undo", "panel", f"panel: {names[nxt]} (seat {nxt})"),
    ]
    plain = [(t, src, *(actor.split(" (seat ")[0].split(": ") if actor else ("", "")))
             for t, src, actor in expected]
    assert got == plain  # the CSV's plain columns: who acted (by) and the player's name
    assert main(["export", str(sid), "--format", "json", "--data-dir", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [a["actor"] for a in doc["actions"]] == [e[2] for e in expected]


def test_a_game_resumed_after_a_restart_keeps_its_whole_length(tmp_path):
    """Issue 15: the end screen and the history count the game from its first logged action to its
    last, so a restart in the middle (here ten minutes down) does not shorten it."""
    from web.sessions import _row, duration

    now = {"t": 1_700_000_000.0}

    def clock() -> float:
        return now["t"]

    def play(c: TableController, steps: int) -> None:
        for _ in range(steps):
            now["t"] += 30.0
            exp = c.message()["state"]["expected"]
            if exp["kind"] == "none":
                return
            if exp["kind"] == "roll":
                c.enter_roll({"colour": "green", "number": 2})
            elif exp["kind"] == "place":
                c.apply({"type": "place", "size": exp["sizes"][0]})
            elif exp["kind"] == "end_game":
                c.press_button("confirm")

    store = SessionStore(tmp_path, clock=clock)
    c = TableController(DingoDiscGame(), store=store, rng=random.Random(2), clock=clock)
    c.new_game({"version": 1, "players": ["Anna", "Ben"]})
    c.apply({"type": "first_player", "seat": 0})
    play(c, 10)
    sid = c.session_id
    store.close()  # the companion stops in the middle of the game ...
    now["t"] += 600.0
    store = SessionStore(tmp_path, clock=clock)  # ... and starts again on the same file
    again = TableController(DingoDiscGame(), store=store, rng=random.Random(2), clock=clock)
    assert again.resume_unfinished() == sid
    play(again, 400)
    msg = again.message()
    assert msg["state"]["phase"] == "over"
    rows = store.actions(sid)
    whole = rows[-1].at - rows[0].at
    assert whole > 600.0 + 10 * 30.0
    summary = msg["summary"]
    assert summary["started_at"] == rows[0].at and summary["ended_at"] == rows[-1].at
    assert summary["ended_at"] - summary["started_at"] == whole  # the end screen's "The game lasted"
    info = store.session(sid)
    assert info.duration_s == whole  # the history's length is the same whole game
    assert _row(info)["duration"] == duration(whole) != duration(whole - 600.0)
    store.close()
