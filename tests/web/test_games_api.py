"""GET /api/games, the game views' route and the platform fields of the state, over the Flask app."""

from __future__ import annotations

from web.app import create_app
from web.security import Guard


def test_games_lists_the_registry_with_its_setup_spec(client):
    games = client.get("/api/games").get_json()["games"]
    disc = next(g for g in games if g["name"] == "dingo-disc")
    assert disc["title"] == "Dingo Disc" and disc["scoring"] == "rank"
    assert disc["setup"]["min_players"] == 2 and disc["setup"]["max_players"] == 6
    assert [o["name"] for o in disc["setup"]["options"]][0] == "version"
    assert set(disc) >= {"view", "css"}


def test_the_state_carries_legal_to_move_next_and_outcome(host):
    state = host.get("/api/state").get_json()["state"]
    assert state["legal"] == [] and state["outcome"] is None
    msg = host.post("/api/game", json={"game": "dingo-disc", "players": ["Anna", "Ben"],
                                       "options": {"version": 2}}).get_json()
    state = msg["state"]
    assert state["version"] == 2 and state["title"] == "Dingo Disc"
    labels = [la["label"] for la in state["legal"]]
    assert "Anna plays first" in labels and "Draw: Ben" in labels
    assert state["to_move"] == {"seats": [0, 1], "chance": True}
    assert state["next"] == state["expected"]["prompt"]
    first = next(la for la in state["legal"] if la["label"] == "Ben plays first")
    state = host.post("/api/actions", json=first["action"]).get_json()["state"]
    assert state["current"] == 1 and state["to_move"] == {"seats": [], "chance": True}  # colour die
    assert all(la["chance"] and abs(la["probability"] - 1 / 6) < 1e-9 for la in state["legal"])


def test_an_unknown_game_is_a_clear_400(host):
    resp = host.post("/api/game", json={"game": "chess", "players": ["A", "B"]})
    assert resp.status_code == 400
    from companion.games import GAMES

    assert f"unknown game 'chess'; known games: {', '.join(sorted(GAMES))}" in resp.get_json()["error"]


def test_game_views_are_served_from_their_directories_only(controller, tmp_path):
    (tmp_path / "tiny-race.js").write_text("window.DingoViews = {};")
    app = create_app(controller, secret_key=b"k" * 32, guard=Guard(pin="1", allowed_hosts={"localhost"}),
                     view_dirs=[tmp_path])
    c = app.test_client()
    resp = c.get("/game-views/tiny-race.js")
    assert resp.status_code == 200 and b"DingoViews" in resp.data
    assert "script-src 'self'" in resp.headers["Content-Security-Policy"]
    assert c.get("/game-views/none.js").status_code == 404
    assert c.get("/game-views/..%2Fapp.py").status_code == 404
    assert c.get("/game-views/tiny-race.py").status_code == 404
