"""Cup Mode: the four tracks in order, Fans and Power-ups by place, tiebreaks, Challengers starting
ahead, the previous winner starting, and the champion."""

from __future__ import annotations

import pytest

from companion.games.base import CHANCE, IllegalAction
from companion.games.dodos.actions import DiscardPowerUp, TiebreakRoll


def cup(h, players=1, **opts):
    opts.setdefault("challenger_modifiers", "0/0/0")
    return h.start(players, mode="cup", **opts)


def end_race(h, s, past, hands=None):
    return h.end_race(s, past, hands)


def test_cup_plays_the_four_tracks_in_order(h):
    s = cup(h)
    tracks = [s.dict()["track"]]
    for _ in range(3):
        s = end_race(h, s, [5, 2, 1])
        tracks.append(s.dict()["track"])
    assert tracks == ["dodino-island", "ignis-volcano", "polaria-iceberg", "boreal-sky"]
    assert s.dict()["side"] == "inner"  # recommended in the Cup


def test_cup_fans_two_for_first_one_for_second_power_up_third_to_sixth(h):
    s = cup(h, 3, challengers=4)
    s = end_race(h, s, [7, 6, 5, 4, 3, 2, 1])
    g = s.dict()
    assert [r["fans"] for r in g["racers"]] == [2, 1, 0, 0, 0, 0, 0]
    assert [r["power_ups"] for r in g["racers"]] == [0, 0, 1, 1, 1, 1, 0]
    assert g["fans_reserve"] == 9 and g["pu_deck"] == 12


def test_cup_place_is_by_position_even_behind_the_line(h):
    s = end_race(h, cup(h), [1, -5, -2])
    assert [r["fans"] for r in s.dict()["racers"]] == [2, 0, 1]


def test_cup_tiebreak_more_cards_in_hand_first(h):
    s = end_race(h, cup(h), [3, 3, 1], hands=[4, 6, 5])
    assert [r["fans"] for r in s.dict()["racers"]] == [1, 2, 0]


def test_cup_tiebreak_then_a_die_highest_roll_wins(h):
    s = end_race(h, cup(h), [3, 3, 1], hands=[5, 5, 5])
    assert h.prompt(s)["kind"] == "tiebreak" and h.rules.to_move(s).seats == (CHANCE,)
    assert s.dict()["phase"] == "race_end"
    s = h.run(s, TiebreakRoll(0, 2))
    s = h.run(s, TiebreakRoll(1, 2))  # tied again: both roll again
    s = h.run(s, TiebreakRoll(0, 3), TiebreakRoll(1, 6))
    assert [r["fans"] for r in s.dict()["racers"]] == [1, 2, 0]
    assert s.dict()["marker"] == 1


def test_cup_tiebreak_not_needed_when_the_prizes_are_equal(h):
    s = end_race(h, cup(h, 2, challengers=3), [9, 8, 2, 2, 1])
    assert h.prompt(s)["kind"] == "reveal"  # 3rd and 4th tied: both draw a Power-up anyway


def test_cup_tiebreak_roll_order(h):
    s = end_race(h, cup(h), [3, 3, 1], hands=[5, 5, 5])
    with pytest.raises(IllegalAction) as err:
        h.run(s, TiebreakRoll(1, 4))
    assert err.value.rule == "tiebreak-order"


def test_cup_previous_winner_takes_the_marker_and_starts(h):
    s = end_race(h, cup(h, 3, challengers=0), [1, 4, 2])
    g = s.dict()
    assert g["marker"] == 1 and g["race"] == 2
    s = h.done(s)  # Ana (3rd) holds a Power-up: the start-of-race window
    assert h.prompt(s)["pending"][0] == 1
    assert h.pos(s) == [-1, -2, -1]  # order 1, 2, 0: the last two (2, 0) on the first hex


def test_cup_challengers_start_three_hexes_ahead_per_power_up(h):
    s = end_race(h, cup(h), [5, 2, 1])  # Ana 1st, Challenger 1 2nd, Challenger 2 3rd: a Power-up
    g = s.dict()
    assert g["racers"][2]["power_ups"] == 1
    assert h.pos(s) == [-2, -1, -1 + 3]


def test_cup_a_new_race_deals_six_cards_again(h):
    s = end_race(h, cup(h), [5, 2, 1], hands=[1, 2, 9])
    assert h.hands(s) == [6, 6, 6] and s.dict()["deck"] == 64 - 18


def test_cup_start_of_race_window_for_players_power_ups(h):
    s = end_race(h, cup(h, 3, challengers=0), [5, 2, 1])  # Cleo 3rd: a Power-up
    assert h.prompt(s) == {"kind": "window", "window": "race_start", "racer": None}
    assert s.dict()["phase"] == "race_start"
    s = h.run(s, DiscardPowerUp(2))
    g = s.dict()
    assert g["racers"][2]["power_ups"] == 0 and g["pu_discard"] == 1
    assert not h.rules.invariants(s)


def test_cup_champion_by_fans(h):
    s = cup(h)
    for past in ([5, 2, 1], [5, 2, 1], [2, 5, 1], [2, 1, 5]):
        s = end_race(h, s, past)
    g = s.dict()
    assert g["phase"] == "over" and [r["fans"] for r in g["racers"]] == [6, 4, 2]
    o = h.rules.outcome(s)
    assert o.winners == (0,) and o.scores == (6.0,)


def test_cup_champion_ties_by_power_ups_then_cards_else_shared(h):
    s = cup(h, 2, challengers=1)
    for past, hands in (([5, 2, 1], None), ([2, 5, 1], None), ([5, 2, 1], None), ([2, 5, 1], [5, 6, 5])):
        s = end_race(h, s, past, hands)
    assert h.rules.outcome(s).winners == (0, 1)  # 6 Fans each, no Power-ups, same cards: shared
    s = cup(h, 2, challengers=1)
    for past, hands in (([5, 2, 1], None), ([2, 5, 1], None), ([5, 2, 1], None), ([2, 5, 1], [3, 8, 6])):
        s = end_race(h, s, past, hands)
    assert h.rules.outcome(s).winners == (1,)  # more cards in hand at the end
