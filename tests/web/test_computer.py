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


def test_a_computer_seat_plays_by_itself_through_the_api(host):
    """Issue 18: a seat set to the computer at setup moves by itself (a thread of the companion) once
    the host has entered its dice; the page's message says what it did."""
    import time

    r = host.post("/api/game", json={"type": "new_game", "game": "pinuid-dobbal", "players": ["Robo", "Bob"],
                                      "options": {"seat_1": "computer-greedy"}})
    assert r.status_code == 200, r.get_json()
    msg = host.get("/api/state").get_json()
    assert msg["computer"]["seats"] == {"0": "greedy"} and msg["computer"]["thinking"] is None
    assert host.post("/api/actions", json={"type": "roll", "dice": [1, 2, 3]}).status_code == 200
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        msg = host.get("/api/state").get_json()
        if msg["state"]["to_move"]["chance"]:
            break
        time.sleep(0.05)
    assert msg["state"]["to_move"]["chance"], "the computer did not finish its turn"
    assert msg["computer"]["last"]["seat"] == 0 and msg["computer"]["last"]["text"].startswith("Computer")
    assert msg["state"]["current"] == 1  # Bob's dice next: the computer waits for a person now
    bad = host.post("/api/game", json={"type": "new_game", "game": "pinuid-dobbal", "players": ["A", "B"],
                                        "options": {"seat_2": "computer-genius"}})
    assert bad.status_code in (400, 409) and "seat_2" in bad.get_json()["error"]
