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
