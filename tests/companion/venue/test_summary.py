"""The venue's view of a state: the generic keys when present, the Dingo Disc's own otherwise."""

from __future__ import annotations

import random

from companion.session.randomplay import new_game, next_action
from companion.table.game import DingoDiscGame
from companion.venue.summary import summarise


def play_to_end(seed: int) -> dict:
    game, rng = DingoDiscGame(), random.Random(seed)
    match = game.new_match(new_game(rng))
    while (action := next_action(game.state_json(match), rng)) is not None:
        game.apply(match, action)
    return game.state_json(match)


def test_a_dingo_disc_game_in_progress():
    game, rng = DingoDiscGame(), random.Random(2)
    match = game.new_match({"players": ["Ann", "Bob", "Cy"], "version": 1})
    for _ in range(12):
        game.apply(match, next_action(game.state_json(match), rng))
    state = game.state_json(match)
    s = summarise(state)
    assert s["game"] == "dingo-disc" and not s["over"]
    assert [p["name"] for p in s["players"]] == ["Ann", "Bob", "Cy"]
    assert [p["score"] for p in s["players"]] == [p["left"] for p in state["players"]]
    assert s["score_kind"] == "pawns_left"
    expected = state["expected"].get("player")
    assert s["to_move"] == ([expected] if isinstance(expected, int) else [])
    assert s["next"] == state["expected"]["prompt"]


def test_a_finished_dingo_disc_game_gives_ranks_and_winners():
    for seed in range(4):
        state = play_to_end(seed)
        s = summarise(state)
        assert s["over"] and s["phase"] == "over" and s["to_move"] == []
        assert [p["rank"] for p in s["players"]] == [p["rank"] for p in state["players"]]
        if not state["draw"]:
            assert s["winners"] == [state["winner"]]


def test_the_generic_keys_win_when_present():
    state = {
        "game": "dingo-cards",
        "phase": "play",
        "players": ["Cleo", "Dan", "Eli"],
        "to_move": {"seats": [2], "chance": False},
        "next": "Eli: play a card or pass",
    }
    s = summarise(state)
    assert s["to_move"] == [2] and s["players"][2]["to_move"]
    assert s["next"] == "Eli: play a card or pass" and not s["over"]
    over = {
        **state,
        "to_move": {"seats": [], "chance": False},
        "outcome": {"winners": [1], "ranking": [[1], [0, 2]], "scores": [10, 31, 10], "draw": False},
    }
    s = summarise(over)
    assert s["over"] and s["winners"] == [1]
    assert [p["rank"] for p in s["players"]] == [2, 1, 2]
    assert [p["score"] for p in s["players"]] == [10, 31, 10] and s["score_kind"] == "points"


def test_a_shared_win_and_a_draw():
    shared = {
        "game": "g",
        "players": ["A", "B"],
        "outcome": {"winners": [0, 1], "ranking": [[0, 1]], "scores": None, "draw": False},
    }
    s = summarise(shared)
    assert s["winners"] == [0, 1] and [p["rank"] for p in s["players"]] == [1, 1]
    draw = {
        "game": "g",
        "players": ["A", "B"],
        "outcome": {"winners": [], "ranking": [[0, 1]], "scores": None, "draw": True},
    }
    assert summarise(draw)["draw"] and summarise(draw)["winners"] == []


def test_no_game_yet():
    s = summarise({"game": "dingo-disc", "phase": "setup", "players": [], "expected": {"kind": "new_game"}})
    assert s["players"] == [] and not s["over"] and s["phase"] == "setup"
