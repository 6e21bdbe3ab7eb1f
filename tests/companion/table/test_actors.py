"""The session log's actor: who acted, and the player the action concerns."""

from __future__ import annotations

import pytest

from companion.table.actors import actor_by, actor_for, concerned_seat

PLAYERS = [{"seat": 0, "name": "Anna"}, {"seat": 1, "name": "Ben"}, {"seat": 2, "name": "Cleo"}]


def test_source_maps_to_actor_and_bad_actor_is_refused():
    assert [actor_by(s) for s in ("page", "panel", "sensor")] == ["host", "panel", "sensor"]
    assert actor_by("page", "companion") == "companion"
    with pytest.raises(ValueError, match="actor must be one of"):
        actor_by("page", "robot")


def test_fall_goes_to_the_fall_window_owner_not_the_current_player():
    before = {"players": PLAYERS, "current": 2, "fall_window": {"seat": 1},
              "expected": {"kind": "roll", "player": 2}}
    assert actor_for("sensor", {"type": "fall", "pawns": {"small": 1}}, before) == "sensor: Ben (seat 1)"
    assert actor_for("sensor", {"type": "roll", "number": 3}, before) == "sensor: Cleo (seat 2)"


def test_give_names_the_giver_and_first_player_the_chosen_seat():
    before = {"players": PLAYERS, "current": 0, "expected": {"kind": "give", "player": 1}}
    assert concerned_seat({"type": "give", "giver": 2, "size": "small"}, before) == 2
    assert concerned_seat({"type": "first_player", "seat": 1}, {"players": PLAYERS}) == 1


def test_nobody_concerned_gives_the_actor_alone():
    over = {"players": PLAYERS, "current": None, "expected": {"kind": "end_game", "player": None}}
    assert actor_for("host", {"type": "end_game"}, over) == "host"
    assert actor_for("host", {"type": "first_player", "seat": 9}, {"players": PLAYERS}) == "host"
