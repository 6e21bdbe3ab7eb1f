"""The computer at the table: POST /api/hint and POST /api/computer (Pinuid Dobbal)."""

from __future__ import annotations

from companion.table import computer


def _pinuid(host) -> None:
    r = host.post("/api/game", json={"type": "new_game", "game": "pinuid-dobbal", "players": ["Anna", "Bob"],
                                      "options": {}})
    assert r.status_code == 200, r.get_json()


def _roll(host) -> None:
    st = host.get("/api/state").get_json()["state"]
    chance = next(a for a in st["legal"] if a["chance"])
    assert host.post("/api/actions", json=chance["action"]).status_code == 200


def test_hint_names_a_legal_move_and_the_computer_plays_it(host, monkeypatch):
    monkeypatch.setattr(computer, "THINK_S", 0.05)
    _pinuid(host)
    assert host.post("/api/hint").status_code == 409  # the dice first: nobody decides yet
    _roll(host)
    before = host.get("/api/state").get_json()["state"]
    legal = [a["action"] for a in before["legal"]]
    hint = host.post("/api/hint").get_json()
    assert hint["action"] in legal and hint["text"].startswith("Best: ")
    r = host.post("/api/computer", json={"strength": "greedy"})
    assert r.status_code == 200
    assert host.get("/api/state").get_json()["state"] != before


def test_computer_refuses_a_bad_strength_and_games_without_one(host):
    _pinuid(host)
    _roll(host)
    r = host.post("/api/computer", json={"strength": "genius"})
    assert r.status_code == 400 and "strength" in r.get_json()["error"]
    host.post("/api/game", json={"type": "new_game", "game": "dingo-disc", "version": 1,
                                 "players": ["Anna", "Bob"], "start_anyway": True})
    r = host.post("/api/hint")
    assert r.status_code == 409 and "no hints" in r.get_json()["error"]


def test_hint_needs_the_host(client):
    assert client.post("/api/hint").status_code in (401, 403)
