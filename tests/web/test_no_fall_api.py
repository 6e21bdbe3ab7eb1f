"""``POST /api/prompts/{id}`` for "Did any pawns fall?": counts by size, bad counts refused by name."""

from __future__ import annotations

import pytest

PLACED = {"event": "placed", "t_ms": 900, "size": "large", "mass_g": 7.9, "x_mm": 0.0, "y_mm": 60.0,
          "zone": "blue", "number": 4}


@pytest.fixture
def asked(controller, host) -> dict:
    """Anna placed a large pawn, the disc tipped and settled with no fall seen: the open question."""
    host.post("/api/game", json={"version": 1, "players": ["Anna", "Ben"], "start_anyway": True})
    host.post("/api/actions", json={"type": "first_player", "seat": 0})
    host.post("/api/roll", json={"colour": "blue", "number": 4})
    controller.sensed([PLACED, {"event": "tipped", "t_ms": 2000}, {"event": "settled", "t_ms": 2500}])
    (prompt,) = host.get("/api/state").get_json()["pending"]  # what a reloaded page fetches
    assert prompt["kind"] == "tip_no_fall"
    return prompt


def test_the_question_is_in_the_state_with_its_counts(asked):
    assert asked["title"] == "The disc tipped but no fall was seen. Did any pawns fall?"
    assert asked["choices"] == ["Nothing fell", "These pawns fell"]
    assert asked["counts"] == {"choice": "These pawns fell", "max": {"small": 0, "medium": 0, "large": 1}}
    assert asked["seat"] == 0


def test_the_counted_fall_is_applied(asked, host):
    r = host.post(f"/api/prompts/{asked['id']}", json={"choice": "These pawns fell", "pawns": {"large": 1}})
    assert r.status_code == 200, r.get_json()
    msg = r.get_json()
    assert msg["pending"] == [] and msg["state"]["players"][0]["supply"]["large"] == 8
    assert any(e["text"] == "Tipped! 1 large fell to Anna" for e in msg["feed"]), msg["feed"]


def test_nothing_fell_changes_nothing(asked, host):
    before = host.get("/api/state").get_json()["state"]
    r = host.post(f"/api/prompts/{asked['id']}", json={"choice": "Nothing fell"})
    assert r.status_code == 200 and r.get_json()["pending"] == [] and r.get_json()["state"] == before


@pytest.mark.parametrize(("pawns", "says"), [
    ({"large": -1}, "the count of large pawns cannot be negative, got -1"),
    ({"giant": 1}, "there is no pawn size 'giant'"),
    ({"large": 2}, "2 large pawns cannot have fallen: only 1 large pawn is on the disc"),
    ({"small": 1}, "1 small pawn cannot have fallen: only 0 small pawns are on the disc"),
    ({"large": "1"}, "the count of large pawns must be a whole number"),
    ("all of them", "'pawns' must be an object of counts by size"),
])
def test_a_bad_count_is_a_400_naming_it_and_changes_nothing(asked, host, pawns, says):
    before = host.get("/api/state").get_json()
    r = host.post(f"/api/prompts/{asked['id']}", json={"choice": "These pawns fell", "pawns": pawns})
    assert r.status_code == 400 and says in r.get_json()["error"], r.get_json()
    after = host.get("/api/state").get_json()
    assert after["version"] == before["version"] and after["state"] == before["state"]
    assert after["pending"] == before["pending"]


def test_answering_needs_the_host(asked, client):
    r = client.post(f"/api/prompts/{asked['id']}", json={"choice": "These pawns fell", "pawns": {"large": 1}})
    assert r.status_code == 401
