"""Achievements from the rulebook's list, computed from the final JSON of logged games."""

from __future__ import annotations

from companion.games.dodos.achievements import ACHIEVEMENTS, NOT_TRACKED, achievements
from companion.games.dodos.actions import ChallengerCard, Launch, Reveal


def _finish(h, s, cards, ch=None):
    """Reveal, close every window of the round; returns the state after it."""
    s = h.reveal(s, cards, ch)
    while h.prompt(s) and h.prompt(s)["kind"] == "window":
        s = h.done(s)
    return s


def _solo_win(h, *, track="dodino-island", level="standard", challengers=2, launch=False):
    s = h.start(1, track=track, challenger_level=level, challengers=challengers, side="outer")
    n = s.to_json()["view"]["tracks"]["outer"]["hexes"]
    s = h.edit(s, r0={"p": n - 2})
    s = h.run(s, Reveal(0, "normal", 3))
    for i in range(1, challengers + 1):
        s = h.run(s, ChallengerCard(i, "normal", 0))
    if launch:
        s = h.run(s, Launch(0, "banana"))
    while h.prompt(s) and h.prompt(s)["kind"] == "window":
        s = h.done(s)
    assert s.dict()["phase"] == "over" and s.dict()["result"]["winners"] == [0]
    return s.to_json()


def test_achievements_list_is_the_rulebooks():
    assert len(ACHIEVEMENTS) == 15 and set(NOT_TRACKED) <= set(ACHIEVEMENTS)


def test_achievement_win_in_the_first_round_with_normal_cards_only_no_dice_no_projectiles(h):
    got = achievements([_solo_win(h)])["Ana"]
    assert {"first-round", "normal-only", "no-dice", "no-projectiles"} <= set(got)
    assert got["first-round"] == ["game 1 race 1"]


def test_achievement_without_launching_projectiles_needs_no_launch(h):
    got = achievements([_solo_win(h, launch=True)])["Ana"]
    assert "no-projectiles" not in got and "normal-only" in got


def test_achievement_single_player_vs_two_hard_challengers(h):
    assert "two-hard-challengers" in achievements([_solo_win(h, level="hard")])["Ana"]
    assert "two-hard-challengers" not in achievements([_solo_win(h)])["Ana"]


def test_achievement_single_player_vs_five_challengers(h):
    assert "five-challengers" in achievements([_solo_win(h, challengers=5)])["Ana"]


def test_achievement_win_in_every_track_across_logged_races(h):
    from companion.games.dodos.tracks import MAPS
    games = [_solo_win(h, track=t) for t in MAPS[:3]]
    assert "every-track" not in achievements(games)["Ana"]
    games.append(_solo_win(h, track=MAPS[3]))
    assert "every-track" in achievements(games)["Ana"]


def test_achievement_most_cards_remaining(h):
    s = h.start(2, side="outer")
    n = s.to_json()["view"]["tracks"]["outer"]["hexes"]
    g = s.dict()
    s = h.edit(s, r0={"p": n - 2, "hand": 9}, r1={"hand": 6}, r2={"hand": 6}, deck=g["deck"] - 3)
    js = _finish(h, s, {0: ("normal", 3), 1: ("normal", 0)}, {2: ("normal", 0)}).to_json()
    assert "most-cards" in achievements([js])["Ana"]


def test_achievement_overpassing_the_first_to_cross(h):
    s = h.start(2, side="outer")
    n = s.to_json()["view"]["tracks"]["outer"]["hexes"]
    s = h.edit(s, r0={"p": n - 3}, r1={"p": n - 1}, marker=1)  # Ben crosses first, Ana passes him
    js = _finish(h, s, {0: ("normal", 6), 1: ("normal", 1)}, {2: ("normal", 0)}).to_json()
    assert js["result"]["winners"] == [0] and js["races"][0]["first_across"] == 1
    assert "overpass-first" in achievements([js])["Ana"]
    assert "Ben" not in achievements([js])


def test_achievement_nobody_earns_from_a_challenger_win(h):
    s = h.start(1, side="outer")
    n = s.to_json()["view"]["tracks"]["outer"]["hexes"]
    s = h.edit(s, r1={"p": n - 1})
    js = _finish(h, s, {0: ("normal", 1)}, {1: ("normal", 1), 2: ("normal", 0)}).to_json()
    assert achievements([js]) == {}


def test_achievement_cup_and_every_race_of_the_cup(h):
    s = h.start(1, mode="cup", challenger_modifiers="0/0/0")
    for _ in range(4):
        s = h.end_race(s, [5, 2, 1])
    got = achievements([s.to_json()])["Ana"]
    assert "cup" in got and "cup-every-race" in got


def test_achievement_derby_and_matching_every_round(h):
    s = h.start(8, mode="derby", abilities=False)
    ni, no = (s.to_json()["view"]["tracks"][x]["hexes"] for x in ("inner", "outer"))
    s = h.edit(s, r0={"p": ni - 2}, r4={"p": no - 2})
    s = _finish(h, s, {i: ("normal", 4) for i in range(8)})
    got = achievements([s.to_json()])
    assert {"derby", "derby-matched"} <= set(got["Ana"]) and "derby" in got["Eli"]


def test_achievements_skip_other_games():
    assert achievements([{"game": "dingo-disc"}, "junk"]) == {}
