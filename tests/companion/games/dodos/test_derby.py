"""The 8-player Derby: teams, two tracks, the matched-type bonus, enraged with five, the Derby's end
of round, finished racers feeding their partner and the end when both of a team have finished."""

from __future__ import annotations

import pytest

from companion.games.base import IllegalAction
from companion.games.dodos.actions import Damage, Reveal


def derby(h, **opts):
    return h.start(8, mode="derby", **opts)


def reveal_all(h, s, kinds="nnnnnnnn", speed=0):
    for seat in list(h.prompt(s)["pending"]):
        k = kinds[seat]
        kind = {"n": "normal", "a": "aggressive", "-": "none"}[k]
        s = h.run(s, Reveal(seat, kind, speed if k != "-" else 0))
    return s


def hexes(s, side):
    return s.to_json()["view"]["tracks"][side]["hexes"]


def test_derby_teams_first_and_fifth_inner_and_outer_tracks(h):
    g = derby(h).dict()
    assert [r["team"] for r in g["racers"]] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert [r["side"] for r in g["racers"]] == ["inner"] * 4 + ["outer"] * 4


def test_derby_base_setup_on_each_track_fifth_player_first_there(h):
    assert h.pos(derby(h)) == [-2, -2, -1, -1, -2, -2, -1, -1]


def test_derby_needs_eight_players_and_no_challengers(h):
    with pytest.raises(IllegalAction) as err:
        h.start(8, mode="derby", challengers=1)
    assert err.value.rule == "derby-no-challengers"


def test_derby_matched_type_team_advances_one_each(h):
    s = reveal_all(h, derby(h), "nannnann")  # team 0 (0, 4): n/n; team 1 (1, 5): a/a; teams 2, 3: n/n
    # the bonus comes before the first turn: every team matched, all advance 1
    assert h.pos(s) == [-1, -1, 0, 0, -1, -1, 0, 0]
    s = reveal_all(h, derby(h), "nannnnnn")  # team 1 (1, 5): a/n: no bonus
    assert h.pos(s)[1] == -2 and h.pos(s)[5] == -2
    s = reveal_all(h, derby(h), "-nnn-nnn")  # team 0 played no card at all: no match
    assert h.pos(s)[0] == -2 and h.pos(s)[4] == -2


def test_derby_enraged_needs_five_aggressive_cards(h):
    s = reveal_all(h, derby(h), "aaaannnn")
    assert not any(r["enraged"] for r in s.dict()["racers"])
    s = reveal_all(h, derby(h), "aaaaannn")
    assert sum(r["enraged"] for r in s.dict()["racers"]) == 5


def _round(h, s):
    while h.prompt(s) and h.prompt(s)["kind"] == "window":
        s = h.done(s)
    return s


def test_derby_end_of_round_leaders_two_second_one_and_draw_others_draw_two(h):
    s = derby(h, abilities=False)
    s = h.edit(s, r0={"p": 5}, r1={"p": 3}, r4={"p": 9}, r5={"p": 2})
    s = reveal_all(h, s, "nnnnaaaa")  # no team matches
    before = h.pos(s)
    hands = h.hands(s)
    s = _round(h, s)
    after, drew = h.pos(s), [b - a for a, b in zip(hands, h.hands(s), strict=True)]
    # inner: Ana leads (+2), Ben second (+1, draws 1), the others draw 2; outer: Eli leads
    assert after[0] == before[0] + 2 and drew[0] == 0
    assert after[1] == before[1] + 1 and drew[1] == 1
    assert after[2] == before[2] and drew[2] == 2
    assert after[4] == before[4] + 2 and drew[4] == 0


def test_derby_marker_passes_left_first(h):
    s = _round(h, reveal_all(h, derby(h, abilities=False)))
    assert s.dict()["marker"] == 1


def test_derby_finished_racers_leave_the_board(h):
    s = derby(h)
    n = hexes(s, "inner")
    s = h.edit(s, r0={"p": n - 2})
    s = reveal_all(h, s, "nnnnnnnn", speed=3)
    g = s.dict()
    assert g["racers"][0]["finished"] and g["racers"][0]["p"] >= n
    s = h.done(s)
    with pytest.raises(IllegalAction) as err:
        h.run(s, Damage(0, 1))
    assert err.value.rule == "finished-off-board"


def test_derby_finished_racer_keeps_adding_speed_to_the_partner(h):
    s = derby(h, abilities=False)
    n = hexes(s, "inner")
    s = h.edit(s, r0={"p": n + 1, "finished": True, "hand": 3})
    s = reveal_all(h, s, "nnnnnnnn", speed=2)
    # all teams matched (+1 each on the board); Ana's turn moves Eli (4) by her Speed 2
    g = s.dict()
    assert g["window"]["racer"] == 0
    assert g["racers"][4]["p"] == -2 + 1 + 2
    assert g["racers"][0]["p"] == n + 1


def test_derby_finished_racer_with_no_cards_stops_playing(h):
    s = derby(h)
    n = hexes(s, "inner")
    s = h.edit(s, r0={"p": n + 1, "finished": True, "hand": 1}, deck=derby(h).dict()["deck"] + 5)
    s = _round(h, reveal_all(h, s))
    assert h.hands(s)[0] == 0 and 0 not in h.prompt(s)["pending"]  # no draws, no recovery once off the board


def test_derby_ends_when_both_racers_of_a_team_finished(h):
    s = derby(h, abilities=False)
    ni, no = hexes(s, "inner"), hexes(s, "outer")
    s = h.edit(s, r0={"p": ni + 1, "finished": True}, r4={"p": no - 2})
    s = _round(h, reveal_all(h, s, "nnnnnnnn", speed=4))
    g = s.dict()
    assert g["phase"] == "over" and g["result"]["winners"] == [0, 4]
    assert h.rules.outcome(s).winners == (0, 4)


def test_derby_one_finished_racer_does_not_end_it(h):
    s = derby(h, abilities=False)
    ni = hexes(s, "inner")
    s = h.edit(s, r0={"p": ni - 2})
    s = _round(h, reveal_all(h, s, "nnnnnnnn", speed=4))
    assert s.dict()["phase"] == "scheming" and s.dict()["racers"][0]["finished"]


def test_derby_team_with_the_furthest_racer_wins(h):
    s = derby(h, abilities=False)
    ni, no = hexes(s, "inner"), hexes(s, "outer")
    s = h.edit(s, r0={"p": ni + 1, "finished": True}, r4={"p": no - 2},
               r1={"p": ni + 4, "finished": True}, r5={"p": no - 2})
    s = _round(h, reveal_all(h, s, "nnnnnnnn", speed=4))
    assert s.dict()["result"]["winners"] == [1, 5]


def test_derby_fireballs_hit_only_racers_on_the_flame_racers_track(h):
    from companion.games.dodos.actions import Flame
    t = h.edit(derby(h, track="ignis-volcano"), r0={"p": 3}, r1={"p": 8}, r4={"p": 6})
    t = reveal_all(h, t, "nnnnaaaa", speed=3)
    assert h.prompt(t) == {"kind": "flame", "racer": 0}
    before = h.hands(t)
    t = h.run(t, Flame("fireballs"))
    after = h.hands(t)
    assert after[1] == before[1] - 1 and after[4] == before[4]  # Ben (inner) hit, Eli (outer) not
