"""A refused correction offers the legal ones, closest first; the end summary counts tips and penalties."""

from __future__ import annotations

import random

import pytest

from companion.table.controller import RequestError, TableController
from companion.table.game import DingoDiscGame


def _game_at_confirm_fall() -> TableController:
    c = TableController(DingoDiscGame(), rng=random.Random(5), sensing=lambda: {})
    c.new_game({"game": "dingo-disc", "version": 1, "players": ["Anna", "Ben", "Cleo"]})
    c.apply({"type": "first_player", "seat": 0})
    c.roll()
    c.apply({"type": "place", "size": "large", "sensed": False})
    c.roll()
    c.apply({"type": "place", "size": "small", "sensed": False})
    c.apply({"type": "fall", "pawns": {"small": 1, "large": 1}, "tipped": True, "confident": False})
    return c


def test_a_fall_with_more_pawns_than_the_disc_holds_offers_legal_counts_closest_first():
    c = _game_at_confirm_fall()
    with pytest.raises(RequestError) as err:
        c.apply({"type": "confirm_fall", "pawns": {"small": 3}, "placed_fell": True})
    alts = err.value.extra["alternatives"]
    assert alts and alts[0]["action"]["pawns"] == {"small": 1, "medium": 0, "large": 0}
    assert alts[0]["label"].startswith("1 small fell")
    version = c.version
    c.apply(alts[0]["action"])  # each offered correction is legal
    assert c.version == version + 1


def test_the_summary_counts_tips_per_player():
    c = _game_at_confirm_fall()
    c.apply({"type": "confirm_fall"})
    summary = c.message()["summary"]
    assert summary["started_at"] is not None and summary["ended_at"] is None
    from companion.table.summary import per_player

    counted = per_player(c._match)  # noqa: SLF001 - the pure count over the match
    assert counted["tips"] == [0, 1, 0]
