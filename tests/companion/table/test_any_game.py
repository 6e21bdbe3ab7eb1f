"""The table with a game that is not the Dingo Disc: a tiny test-only module registered in the test.

Registering a module is all it takes: the controller plays it from its legal actions, the companion
draws its chance outcomes, the session log keeps its actions and outcome (ranking and scores), a
restart resumes it, and the exports carry its own title and scoring kind.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from companion.games import GAMES
from companion.session import SessionStore
from companion.session.export import bgstats_play, export_json
from companion.table.controller import TableController
from companion.table.game import ModuleGame


def _tiny():
    if "tiny_game" in sys.modules:
        return sys.modules["tiny_game"]
    path = Path(__file__).parents[1] / "games" / "tiny_game.py"
    spec = importlib.util.spec_from_file_location("tiny_game", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["tiny_game"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def games(monkeypatch):
    registry = {**GAMES, "tiny-race": _tiny().TinyRace()}
    monkeypatch.setattr("companion.games.GAMES", registry)  # what the log's exports and rebuild read
    return registry


def play_out(c: TableController) -> None:
    for _ in range(200):
        state = c.message()["state"]
        if state["phase"] == "over":
            return
        if state["to_move"]["chance"]:
            c.roll()
        else:
            c.apply(state["legal"][-1]["action"])  # step 2
    raise AssertionError("the tiny race did not end")


def test_a_registered_game_is_played_logged_resumed_and_exported(tmp_path, games):
    store = SessionStore(tmp_path)
    c = TableController(ModuleGame(games), store=store, rng=random.Random(4))
    c.new_game({"game": "tiny-race", "players": ["Ann", "Bob"], "options": {"target": 6}})
    state = c.message()["state"]
    assert state["title"] == "Tiny race" and state["expected"]["kind"] == "act"
    assert [la["label"] for la in state["legal"]] == ["Ann: step 1", "Ann: step 2"]
    assert state["to_move"] == {"seats": [0], "chance": False} and state["next"] == "Ann: step 1 or 2"
    c.apply({"type": "step", "by": 2})
    assert c.message()["feed"][0]["text"] == "Ann steps 2"
    assert c.message()["state"]["expected"]["kind"] == "chance"
    c.roll()  # the companion tosses the coin: one of the listed chance outcomes
    assert c.message()["state"]["positions"][0] in (2, 3)
    sid = c.session_id

    # a crash: a new controller resumes the same game from the log
    again = TableController(ModuleGame(games), store=store, rng=random.Random(4))
    assert again.resume_unfinished() == sid
    assert again.message()["state"]["positions"] == c.message()["state"]["positions"]
    play_out(again)
    info = store.session(sid)
    final = again.message()["state"]
    assert info.status == "finished" and info.game == "tiny-race"
    assert info.outcome["scores"] == final["outcome"]["scores"]
    best = max(final["positions"])
    assert info.ranking == [1 if p == best else 2 for p in final["positions"]]

    play = bgstats_play(store, sid)
    assert play["game"] == {"name": "Tiny race", "sourceGameId": "tiny-race", "highestWins": True,
                            "noPoints": False}
    assert [p["score"] for p in play["players"]] == [str(p) for p in final["positions"]]
    assert export_json(store, sid)["session"]["scoring"] == "points"
    store.close()


def test_an_unknown_game_is_refused_naming_the_known_ones(games):
    from companion.table.errors import RequestError

    c = TableController(ModuleGame(games))
    with pytest.raises(RequestError, match="unknown game 'chess'; known games: .*dingo-disc"):
        c.new_game({"game": "chess", "players": ["Ann", "Bob"]})


def test_the_panel_confirm_does_the_one_thing_to_do(games):
    c = TableController(ModuleGame(games), rng=random.Random(1))
    c.new_game({"game": "tiny-race", "players": ["Ann", "Bob"]})
    with pytest.raises(Exception, match="nothing to confirm"):
        c.press_button("confirm")  # two choices: step 1 or 2
    c.apply({"type": "step", "by": 1})
    c.press_button("roll")  # the coin
    assert c.message()["state"]["phase"] in ("step", "over")


def test_history_pages_and_statistics_name_the_game(tmp_path, games):
    from companion.session.stats import compute_stats
    from web.app import create_app
    from web.security import Guard

    store = SessionStore(tmp_path)
    c = TableController(ModuleGame(games), store=store, rng=random.Random(2))
    c.new_game({"game": "tiny-race", "players": ["Ann", "Bob"]})
    play_out(c)
    c.new_game({"game": "dingo-disc", "players": ["Anna", "Ben"]})  # left unfinished
    st = compute_stats(store)
    assert st.games == {"Tiny race": 1} and st.finished == 1 and st.tips_per_game == []
    app = create_app(c, secret_key=b"s" * 32, guard=Guard(pin="1", allowed_hosts={"localhost"}),
                     session_store=store)
    client = app.test_client()
    listing = client.get("/sessions/").get_data(as_text=True)
    assert "Tiny race" in listing and "Dingo Disc" in listing
    sid = store.list_sessions(status="finished")[0].id
    page = client.get(f"/sessions/{sid}").get_data(as_text=True)
    final = store.session(sid).outcome["scores"]
    assert f"Ann {int(final[0])} · Bob {int(final[1])}" in page
    assert "Tiny race: 1" in client.get("/sessions/stats").get_data(as_text=True)
    store.close()
