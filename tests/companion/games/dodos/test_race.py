"""The single race: setup, Scheming (enraged), Running (advance, reactions, effects, damage, recovery),
the end of the round and the race's end. One test per rule; the rule id is in the test's name."""

from __future__ import annotations

import pytest

from companion.games.base import IllegalAction
from companion.games.dodos.actions import (
    ChallengerCard,
    Damage,
    Done,
    Draw,
    Launch,
    Move,
    OpenEntries,
    Pay,
    PlayReaction,
    Reveal,
)

# ----------------------------------------------------------------- setup


@pytest.mark.parametrize(("players", "challengers", "expected"), [
    (1, 2, [-2, -1, -1]),
    (4, 0, [-2, -2, -1, -1]),
    (6, 0, [-3, -3, -2, -2, -1, -1]),
    (5, 0, [-3, -2, -2, -1, -1]),
])
def test_starting_hexes_last_two_first_hex_next_two_second_rest_third(h, players, challengers, expected):
    s = h.start(players, challengers=challengers)
    assert h.pos(s) == expected


def test_starting_hexes_follow_the_marker_counter_clockwise_from_the_last_player(h):
    s = h.edit(h.start(4, challengers=0), marker=2)
    from companion.games.dodos.setup import place_start
    g = s.dict()
    place_start(g)
    # turn order 2, 3, 0, 1: the last two (0, 1) on the first hex behind the line
    assert [r["p"] for r in g["racers"]] == [-1, -1, -2, -2]


def test_six_cards_each_and_the_rest_form_the_movement_deck(h):
    s = h.start(3, challengers=2)
    assert h.hands(s) == [6] * 5
    assert s.dict()["deck"] == 64 - 30


@pytest.mark.parametrize(("players", "needed"), [(1, 2), (2, 1)])
def test_challengers_required_with_one_or_two_players(h, players, needed):
    assert s_challengers(h.start(players)) == needed
    assert s_challengers(h.start(players, extra_challengers=2)) == needed + 2
    with pytest.raises(IllegalAction, match="extra_challengers"):  # the required ones cannot be removed
        h.rules.initial_state({"type": "new_game", "players": ["A", "B"][:players],
                               "options": {"extra_challengers": -1}})


def s_challengers(s):
    return sum(r["challenger"] for r in s.dict()["racers"])


def test_challengers_may_be_added_at_any_player_count(h):
    assert s_challengers(h.start(4, challengers=3)) == 3


def test_max_racers_the_deck_deals_six_to_ten(h):
    with pytest.raises(IllegalAction) as err:
        h.start(6, challengers=5)
    assert err.value.rule == "max-racers"


def test_players_1_to_8_eight_race_the_derby_the_cup_1_to_6(h):
    with pytest.raises(IllegalAction) as err:
        h.rules.initial_state({"type": "new_game", "players": [str(i) for i in range(9)]})
    assert err.value.rule == "players-1-to-8"
    with pytest.raises(IllegalAction) as err:
        h.start(7, mode="cup")
    assert err.value.rule == "cup-1-to-6-players"
    assert h.start(8).dict()["mode"] == "derby"
    assert h.start(8, eight_players="race").dict()["mode"] == "race"
    assert h.start(7).dict()["mode"] == "race"  # no 7-player game in the rulebook: a single race


def test_side_auto_inner_for_five_or_more_racers_outer_otherwise(h):
    assert h.start(3, challengers=2).dict()["side"] == "inner"
    assert h.start(4).dict()["side"] == "outer"
    assert h.start(4, side="inner").dict()["side"] == "inner"


@pytest.mark.parametrize(("options", "word"), [
    ({"colour": "red"}, "unknown option 'colour'"), ({"abilities": 1}, "option abilities"),
    ({"track": "moon"}, "option track"), ({"challenger_modifiers": "9/9/9"}, "challenger_modifiers"),
    ({"challengers": 2, "challenger_modifiers": "2/2/1,3/3/2,1/1/1"}, "lists 3 Challengers"),
])
def test_setup_options_are_checked(h, options, word):
    with pytest.raises(IllegalAction, match=word):
        h.start(1, **options)


def test_challenger_modifiers_per_racer(h):
    s = h.start(1, challengers=2, challenger_modifiers="2/2/1,3/0/2")
    assert [r["mods"] for r in s.dict()["racers"]] == [None, [2, 2, 1], [3, 0, 2]]


# ----------------------------------------------------------------- scheming


def test_scheming_normal_or_aggressive_only(h):
    s = h.start(2)
    with pytest.raises(IllegalAction) as err:
        h.run(s, Reveal(0, "reaction", 2))
    assert err.value.rule == "scheming-normal-or-aggressive"


def test_one_card_each_per_round(h):
    s = h.run(h.start(2), Reveal(0, "normal", 2))
    with pytest.raises(IllegalAction) as err:
        h.run(s, Reveal(0, "normal", 3))
    assert err.value.rule == "one-card-each"


def test_cards_are_revealed_together_entered_in_turn_order_challengers_after_the_players(h):
    s = h.edit(h.start(2), marker=1)
    s = h.edit(s, prompt={"kind": "reveal", "pending": [1, 0]})
    assert h.rules.to_move(s).seats == (1,)
    with pytest.raises(IllegalAction) as err:
        h.run(s, Reveal(0, "normal", 2))
    assert err.value.rule == "reveal-in-turn-order"
    s = h.run(s, Reveal(1, "normal", 2))
    assert h.prompt(s)["kind"] == "reveal" and h.rules.to_move(s).seats == (0,)
    s = h.run(s, Reveal(0, "normal", 2))
    assert h.prompt(s) == {"kind": "challenger_card", "racer": 2}


def test_enraged_two_aggressive_cards_cancel_their_effects(h):
    s = h.reveal(h.start(2), {0: ("aggressive", 2), 1: ("aggressive", 1)}, {2: ("normal", 1)})
    g = s.dict()
    assert [r["enraged"] for r in g["racers"]] == [True, True, False]
    assert g["window"]["racer"] == 0
    assert s.to_json()["view"]["effect_on"] is False
    with pytest.raises(IllegalAction) as err:
        h.run(s, Damage(1, 2))
    assert err.value.rule == "effect-cancelled"
    assert "enraged" in h.rules.describe_next(s)


def test_enraged_needs_two_one_aggressive_card_keeps_its_effect(h):
    s = h.reveal(h.start(2), {0: ("aggressive", 2), 1: ("normal", 1)}, {2: ("normal", 1)})
    assert not any(r["enraged"] for r in s.dict()["racers"])
    s = h.run(s, Damage(1, 2))
    assert h.hands(s)[1] == 3


def test_enraged_challenger_aggressive_cards_count(h):
    s = h.reveal(h.start(1), {0: ("aggressive", 2)}, {1: ("aggressive", 1), 2: ("normal", 1)})
    assert [r["enraged"] for r in s.dict()["racers"]] == [True, True, False]


def test_enraged_six_player_rule_needs_three(h):
    s = h.reveal(h.start(6), {i: ("aggressive" if i < 2 else "normal", 1) for i in range(6)})
    assert not any(r["enraged"] for r in s.dict()["racers"])
    s = h.reveal(h.start(6), {i: ("aggressive" if i < 3 else "normal", 1) for i in range(6)})
    assert sum(r["enraged"] for r in s.dict()["racers"]) == 3


def test_enraged_six_player_rule_counts_racers_or_players_by_setting(h):
    cards = {i: ("aggressive" if i < 2 else "normal", 1) for i in range(4)}
    ch = {4: ("normal", 1), 5: ("normal", 1)}
    s = h.reveal(h.start(4, challengers=2), cards, ch)
    assert not any(r["enraged"] for r in s.dict()["racers"])
    s = h.reveal(h.start(4, challengers=2, six_racer_rule="players"), cards, ch)
    assert sum(r["enraged"] for r in s.dict()["racers"]) == 2


def test_red_kiwi_only_in_the_cup_with_a_power_up(h):
    with pytest.raises(IllegalAction) as err:
        h.run(h.start(2), Reveal(0, "aggressive", 2, red_kiwi=True))
    assert err.value.rule == "red-kiwi"


def test_red_kiwi_aggressive_effect_not_cancelled_for_being_enraged(h):
    s = h.edit(h.start(2, mode="cup"), r0={"power_ups": 1}, pu_deck=15)
    s = h.run(s, Reveal(0, "aggressive", 2, red_kiwi=True), Reveal(1, "aggressive", 2))
    s = h.run(s, ChallengerCard(2, "normal", 1))
    g = s.dict()
    assert g["racers"][0]["enraged"] and g["racers"][1]["enraged"]
    assert s.to_json()["view"]["effect_on"] is True  # Ana's Red Kiwi card still works
    assert h.hands(h.run(s, Damage(1, 1)))[1] == 4


def test_red_kiwi_counts_for_enraging_unless_set_otherwise(h):
    base = {"mode": "cup", "red_kiwi_counts": False}
    s = h.edit(h.start(2, **base), r0={"power_ups": 1}, pu_deck=15)
    s = h.run(s, Reveal(0, "aggressive", 2, red_kiwi=True), Reveal(1, "aggressive", 2),
              ChallengerCard(2, "normal", 1))
    assert not any(r["enraged"] for r in s.dict()["racers"])


# ----------------------------------------------------------------- running


def test_running_in_turn_order_from_the_first_player_advancing_by_speed(h):
    s = h.reveal(h.start(1), {0: ("normal", 3)}, {1: ("normal", 2), 2: ("normal", 1)})
    assert s.dict()["window"]["racer"] == 0 and h.pos(s)[0] == -2 + 3
    s = h.done(s)
    assert s.dict()["window"]["racer"] == 1 and h.pos(s)[1] == -1 + 2 + 2
    s = h.done(s)
    assert s.dict()["window"]["racer"] == 2 and h.pos(s)[2] == -1 + 1 + 2


def test_running_order_starts_at_the_marker(h):
    s = h.edit(h.start(3), marker=1)
    s = h.reveal(s, {0: ("normal", 1), 1: ("normal", 1), 2: ("normal", 1)})
    assert s.dict()["window"]["racer"] == 1


def test_speed_zero_or_below_is_no_movement(h):
    s = h.reveal(h.start(2, track="polaria-iceberg", side="inner"), {0: ("normal", 0), 1: ("normal", 1)},
                 {2: ("normal", 0)})
    assert h.pos(s)[0] == -2


def test_deep_snow_polaria_inner_takes_one_off_a_players_card_speed(h):
    s = h.reveal(h.start(1, track="polaria-iceberg", side="inner"), {0: ("normal", 3)},
                 {1: ("normal", 1), 2: ("normal", 1)})
    assert h.pos(s)[0] == -2 + 2
    s = h.done(s)
    assert h.pos(s)[1] == -1 + 1 + 2  # Challengers don't reduce their Speed


def test_deep_snow_only_on_the_inner_track(h):
    s = h.reveal(h.start(1, track="polaria-iceberg", side="outer"), {0: ("normal", 3)},
                 {1: ("normal", 1), 2: ("normal", 1)})
    assert h.pos(s)[0] == -2 + 3


def test_deep_snow_does_not_reduce_effect_moves(h):
    s = h.reveal(h.start(1, track="polaria-iceberg", side="inner"), {0: ("normal", 1)},
                 {1: ("normal", 1), 2: ("normal", 1)})
    before = h.pos(s)[0]
    s = h.run(s, Move(0, 2))
    assert h.pos(s)[0] == before + 2


def test_damage_is_cards_discarded(h):
    s = h.reveal(h.start(2), {0: ("normal", 1), 1: ("normal", 1)}, {2: ("normal", 1)})
    before = s.dict()["discard"]
    s = h.run(s, Damage(1, 3))
    g = s.dict()
    assert g["racers"][1]["hand"] == 2 and g["racers"][1]["damage"] == 3 and g["discard"] == before + 3


def test_damage_beyond_the_hand_discards_all_and_recovers_at_the_end_of_the_turn(h):
    s = h.reveal(h.edit(h.start(2), r1={"hand": 3}, deck=h.start(2).dict()["deck"] + 3),
                 {0: ("normal", 1), 1: ("normal", 1)}, {2: ("normal", 1)})
    s = h.run(s, Damage(1, 3), Damage(1, 2))
    assert h.hands(s)[1] == 0 and s.dict()["racers"][1]["damage"] == 2
    p = h.pos(s)[1]
    s = h.done(s)  # recovers at the end of Ana's turn, then advances 1 on his own turn
    assert h.hands(s)[1] == 5 and h.pos(s)[1] == p - 3 + 1


def test_cannot_pay_cancels_the_effect(h):
    s = h.edit(h.start(2), r0={"hand": 2}, deck=h.start(2).dict()["deck"] + 4)
    s = h.reveal(s, {0: ("normal", 1), 1: ("normal", 1)}, {2: ("normal", 1)})
    s = h.run(s, Pay(2))
    assert h.hands(s)[0] == 1  # nothing paid
    assert s.to_json()["view"]["effect_on"] is False
    with pytest.raises(IllegalAction) as err:
        h.run(s, Damage(1, 1))
    assert err.value.rule == "effect-cancelled"


def test_paying_the_cost_discards_and_the_effect_stands(h):
    s = h.reveal(h.start(2), {0: ("normal", 1), 1: ("normal", 1)}, {2: ("normal", 1)})
    s = h.run(s, Pay(2), Damage(1, 2))
    assert h.hands(s)[:2] == [3, 3]


def test_block_cancels_an_effect_and_a_second_block_cancels_the_block(h):
    s = h.reveal(h.start(3), {0: ("normal", 1), 1: ("normal", 1), 2: ("normal", 1)})
    s = h.run(s, PlayReaction(1, cancels=True))
    assert s.to_json()["view"]["effect_on"] is False
    s = h.run(s, PlayReaction(2, cancels=True))
    assert s.to_json()["view"]["effect_on"] is True
    assert h.hands(s) == [5, 4, 4]


def test_block_too_late_after_a_paid_cost_or_a_thrown_projectile(h):
    s = h.reveal(h.start(3), {0: ("normal", 1), 1: ("normal", 1), 2: ("normal", 1)})
    for first in (Pay(1), Launch(0, "banana")):
        t = h.run(s, first)
        with pytest.raises(IllegalAction) as err:
            h.run(t, PlayReaction(1, cancels=True))
        assert err.value.rule == "block-too-late"


def test_block_does_not_cancel_the_speed(h):
    s = h.reveal(h.start(3), {0: ("normal", 4), 1: ("normal", 1), 2: ("normal", 1)})
    s = h.run(s, PlayReaction(1, cancels=True))
    assert h.pos(s)[0] == -2 + 4


def test_reactions_any_player_even_off_turn_and_their_effects_can_be_entered(h):
    s = h.reveal(h.start(2), {0: ("aggressive", 1), 1: ("aggressive", 1)}, {2: ("normal", 1)})
    s = h.run(s, PlayReaction(1), Damage(0, 1))  # Ben's Reaction card hits Ana, on Ana's turn
    assert h.hands(s)[:2] == [4, 4]


def test_open_entries_first_a_window_offers_end_or_entries(h):
    s = h.reveal(h.start(2), {0: ("normal", 1), 1: ("normal", 1)}, {2: ("normal", 1)})
    assert [la.action for la in h.rules.legal_actions(s)] == [Done(), OpenEntries()]
    with pytest.raises(IllegalAction) as err:
        h.rules.apply(s, Damage(1, 1))
    assert err.value.rule == "open-entries-first"
    s = h.rules.apply(s, OpenEntries())
    assert Damage(1, 1) in [la.action for la in h.rules.legal_actions(s)]
    with pytest.raises(IllegalAction) as err:
        h.rules.apply(s, OpenEntries())
    assert err.value.rule == "entries-open"


def test_reactions_in_running_phase_only(h):
    s = h.to_window(h.reveal(h.start(2), {0: ("normal", 1), 1: ("normal", 1)}, {2: ("normal", 1)}))
    assert s.dict()["window"]["kind"] == "round_end"
    with pytest.raises(IllegalAction) as err:
        h.run(s, PlayReaction(0))
    assert err.value.rule == "reactions-in-running-phase"


def test_entry_limit_bounds_a_window(h):
    s = h.reveal(h.start(2), {0: ("normal", 1), 1: ("normal", 1)}, {2: ("normal", 1)})
    s = h.run(s, *[Draw(0, 1)] * 10)
    with pytest.raises(IllegalAction) as err:
        h.run(s, Draw(0, 1))
    assert err.value.rule == "entry-limit"
    assert [la.action for la in h.rules.legal_actions(s)] == [Done()]


def test_recovery_no_cards_back_three_draw_five_at_the_end_of_a_turn(h):
    s = h.edit(h.start(2), r0={"hand": 1}, deck=h.start(2).dict()["deck"] + 5)
    s = h.reveal(s, {0: ("normal", 3), 1: ("normal", 1)}, {2: ("normal", 1)})
    assert h.hands(s)[0] == 0 and h.pos(s)[0] == 1
    s = h.done(s)
    assert h.hands(s)[0] == 5 and h.pos(s)[0] == -2


# ----------------------------------------------------------------- end of the round


def test_end_of_round_lead_racer_advances_one_others_draw_one(h):
    s = h.reveal(h.start(3), {0: ("normal", 5), 1: ("normal", 1), 2: ("normal", 1)})
    s = h.to_window(s)
    before = h.pos(s)
    s = h.done(s)  # the end-of-round abilities window
    assert h.pos(s) == [before[0] + 1, before[1], before[2]]
    assert h.hands(s) == [5, 6, 6]


def test_end_of_round_abilities_window_only_with_abilities(h):
    s = h.to_window(h.reveal(h.start(2), {0: ("normal", 1), 1: ("normal", 1)}, {2: ("normal", 1)}))
    assert s.dict()["phase"] == "round_end"
    s = h.start(2, abilities=False)
    s = h.to_window(h.reveal(s, {0: ("normal", 1), 1: ("normal", 1)}, {2: ("normal", 1)}))
    assert h.prompt(s)["kind"] == "reveal" and s.dict()["round"] == 2


def test_end_of_round_draw_order_starts_left_of_a_leading_first_player(h):
    for leader, drawer in ((0, 1), (2, 0)):
        cards = {i: ("normal", 5 if i == leader else 1) for i in range(3)}
        s = h.to_window(h.reveal(h.start(3), cards))
        s = h.edit(s, deck=1, discard=0, r0={"hand": 21}, r1={"hand": 21}, r2={"hand": 21})
        s = h.done(s)
        got = [x - 21 for x in h.hands(s)]
        assert got[drawer] == 1 and sum(got) == 1, (leader, got)


def test_lead_tie_all_tied_leaders_advance_or_none_by_setting(h):
    cards = {0: ("normal", 2), 1: ("normal", 1), 2: ("normal", 0)}  # Ana -1+... see positions
    s = h.reveal(h.start(3), cards)  # start [-2, -2, -1]: Ana 0, Ben -1, Cleo -1
    s = h.to_window(s)
    s = h.edit(s, r0={"p": 5}, r1={"p": 5})
    t = h.done(s)
    assert h.pos(t)[:2] == [6, 6] and h.hands(t) == [5, 5, 6]
    s2 = h.edit(h.to_window(h.reveal(h.start(3, lead_tie="none"), cards)), r0={"p": 5}, r1={"p": 5})
    t = h.done(s2)
    assert h.pos(t)[:2] == [5, 5] and h.hands(t) == [6, 6, 6]


def test_first_player_marker_passes_left(h):
    s = h.start(3)
    for expected in (1, 2, 0):
        s = h.done(h.to_window(h.reveal(s, {i: ("normal", 1) for i in range(3)})))
        assert s.dict()["marker"] == expected


def test_first_player_marker_passes_to_challengers_or_skips_them(h):
    ch = {1: ("normal", 1), 2: ("normal", 1)}
    s = h.done(h.to_window(h.reveal(h.start(1), {0: ("normal", 1)}, ch)))
    assert s.dict()["marker"] == 1
    s = h.done(h.to_window(h.reveal(h.start(1, challenger_marker="skip"), {0: ("normal", 1)}, ch)))
    assert s.dict()["marker"] == 0


def test_end_of_round_recovery_after_the_draws(h):
    s = h.to_window(h.reveal(h.start(3), {0: ("normal", 1), 1: ("normal", 5), 2: ("normal", 1)}))
    g = s.dict()
    s = h.edit(s, r1={"hand": 0}, deck=g["deck"] + g["racers"][1]["hand"])
    p = h.pos(s)[1]
    s = h.done(s)  # Ben leads (advances 1, draws nothing), then recovers with no cards
    assert h.hands(s)[1] == 5 and h.pos(s)[1] == p + 1 - 3


# ----------------------------------------------------------------- the race's end


def _near_finish(h, players=2, **opts):
    s = h.start(players, **opts)
    n = s.to_json()["view"]["tracks"][s.dict()["side"]]["hexes"]
    return s, n


def test_race_end_furthest_past_the_line_wins(h):
    s, n = _near_finish(h)
    s = h.edit(s, r0={"p": n - 2}, r1={"p": n - 3})
    s = h.reveal(s, {0: ("normal", 3), 1: ("normal", 5)}, {2: ("normal", 0)})
    s = h.done(h.to_window(s))
    g = s.dict()
    assert g["phase"] == "over" and g["result"]["winners"] == [1]
    assert h.rules.outcome(s).winners == (1,)


def test_race_end_ties_by_most_cards_in_hand(h):
    s, n = _near_finish(h)
    s = h.edit(s, r0={"p": n - 1, "hand": 7}, r1={"p": n - 1, "hand": 5})
    s = h.reveal(s, {0: ("normal", 2), 1: ("normal", 2)}, {2: ("normal", 0)})
    s = h.done(h.to_window(s))
    assert h.rules.outcome(s).winners == (0,)


def test_race_end_else_the_victory_is_shared(h):
    s, n = _near_finish(h)
    s = h.edit(s, r0={"p": n - 1}, r1={"p": n - 1})
    s = h.reveal(s, {0: ("normal", 2), 1: ("normal", 2)}, {2: ("normal", 0)})
    s = h.done(h.to_window(s))
    assert h.rules.outcome(s).winners == (0, 1)


def test_race_end_only_at_the_end_of_the_round(h):
    s, n = _near_finish(h)
    s = h.edit(s, r0={"p": n - 1})
    s = h.reveal(s, {0: ("normal", 2), 1: ("normal", 1)}, {2: ("normal", 0)})
    assert s.dict()["phase"] == "running"  # Ana is past the line; the others still run
    assert s.to_json()["view"]["racers"][0]["past"] == 2


def test_race_end_faq_pushed_back_behind_the_line_has_not_finished(h):
    s, n = _near_finish(h)
    s = h.edit(s, r0={"p": n - 2})
    s = h.reveal(s, {0: ("normal", 3), 1: ("normal", 1)}, {2: ("normal", 0)})
    s = h.done(s)  # Ben's turn: his card's effect pushes Ana back 3
    s = h.run(s, Move(0, -3))
    s = h.done(h.to_window(s))
    g = s.dict()
    assert g["phase"] != "over" and g["round"] == 2
    assert g["racers"][0]["p"] == n - 1  # back to n - 2, then +1 as the Lead Racer: still behind


def test_a_challenger_win_is_no_players_win(h):
    s, n = _near_finish(h, 1)
    s = h.edit(s, r1={"p": n - 1})
    s = h.reveal(s, {0: ("normal", 1)}, {1: ("normal", 1), 2: ("normal", 0)})
    s = h.done(h.to_window(s))
    o = h.rules.outcome(s)
    assert o.winners == () and o.draw and o.ranking == ((0,),)
    assert s.dict()["result"]["winners"] == [1]


def test_game_over_refuses_actions(h):
    s, n = _near_finish(h, 1)
    s = h.edit(s, r0={"p": n - 1})
    s = h.done(h.to_window(h.reveal(s, {0: ("normal", 1)}, {1: ("normal", 1), 2: ("normal", 0)})))
    with pytest.raises(IllegalAction) as err:
        h.run(s, Done())
    assert err.value.rule == "game-over"
    assert h.rules.legal_actions(s) == []
