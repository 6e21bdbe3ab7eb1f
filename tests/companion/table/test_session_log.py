"""The controller with the real session log: every action durable, resumed after a restart."""

from __future__ import annotations

import random

from companion.session import SessionStore
from companion.table.controller import TableController
from companion.table.game import DingoDiscGame


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


def test_undo_after_the_game_ended_is_refused_and_the_log_stays_whole(tmp_path, play_to_the_end):
    import pytest

    from companion.table.controller import RequestError

    store = SessionStore(tmp_path)
    c = new_controller(store)
    play_to_the_end(c)
    (info,) = store.list_sessions()
    assert info.status == "finished"
    logged = [a.action for a in store.actions(info.id)]
    over = c.message()
    assert over["state"]["phase"] == "over" and over["can_undo"] is False
    for undo in (c.undo, lambda: c.press_button("undo")):
        with pytest.raises(RequestError) as err:
            undo()
        assert err.value.status == 409 and "can no longer be undone" in err.value.message
    # nothing changed: the page still shows the result, the log still holds every action
    assert c.message()["state"] == over["state"]
    assert [a.action for a in store.actions(info.id)] == logged
    assert store.effective_actions(info.id) == logged
    # a new game starts as usual, and can be undone again
    c.new_game({"version": 1, "players": ["C", "D"]})
    c.apply({"type": "first_player", "seat": 1})
    assert c.message()["can_undo"] is True
    c.undo()
    assert store.session(info.id).status == "finished"
    store.close()


def test_without_a_log_undo_after_the_end_still_works(play_to_the_end):
    c = TableController(DingoDiscGame(), rng=random.Random(2))
    play_to_the_end(c)
    assert c.message()["can_undo"] is True
    c.undo()
    assert c.message()["state"]["phase"] != "over"
