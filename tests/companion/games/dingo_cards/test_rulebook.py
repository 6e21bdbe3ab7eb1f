"""One test per rule of the Dingo card game rulebook (rules/dingo-cards.ja.txt, tweets 01-25).

Test names say the rule; ``rule ids`` in ``IllegalAction`` match them. Readings of open points are
tested with both values of their setting (docs/rules-dingo-cards.md).
"""

from __future__ import annotations

import pytest

from companion.games.base import IllegalAction
from companion.games.dingo_cards import (
    Deal,
    DingoCardsRules,
    Discard,
    Exchange,
    FirstDealer,
    FourAces,
    NewGame,
    NoHeart,
    Pass,
    Play,
    ShowDiamondAce,
    apply,
    describe_next,
    initial_state,
    legal_actions,
    outcome,
    to_move,
)
from companion.games.dingo_cards.cards import ALL_CARDS, STACK, penalty_value, point_value

ANA, BEN, CLEO, DEV = range(4)


def refused(s, action, rule):
    with pytest.raises(IllegalAction) as err:
        apply(s, action)
    assert err.value.rule == rule, err.value
    assert action not in [la.action for la in legal_actions(s)]
    return err.value


# ----------------------------------------------------------------- 01 players, 03 values


def test_four_players_exactly():
    with pytest.raises(IllegalAction) as err:
        initial_state(NewGame(players=("A", "B", "C")))
    assert err.value.rule == "four-players"
    assert DingoCardsRules().setup_spec().min_players == DingoCardsRules().setup_spec().max_players == 4


def test_setup_options_are_checked_and_defaults_fill_the_rest(h):
    for bad in ({"deals": 0}, {"lone_wolf_card": "nobody"}, {"colour": "red"}, {"deals": True}):
        with pytest.raises(IllegalAction) as err:
            h.new(bad)
        assert err.value.rule == "setup-option" and str(next(iter(bad))) in str(err.value)
    s = h.new({"deals": 2})
    assert s.option("deals") == 2 and s.option("lone_wolf_card") == "wolf-player"


def test_card_values_2_to_9_one_10_to_k_two_aces_three_the_diamond_ace_ten_or_minus_three():
    assert len(ALL_CARDS) == 52
    assert [point_value(c) for c in ("H2", "S9", "C10", "DJ", "HQ", "SK")] == [1, 1, 2, 2, 2, 2]
    assert [point_value(c) for c in ("HA", "CA", "SA", "DA")] == [3, 3, 3, 10]
    assert [penalty_value(c) for c in ("D2", "D10", "HA", "DA")] == [1, 2, 3, 3]


# ----------------------------------------------------------------- 04-05 the deal


def test_the_first_dealer_is_chosen_by_any_means_then_the_deal_passes_clockwise(h):
    s = h.new({"deals": 3})
    assert [la.label for la in legal_actions(s)][0] == "Ana deals first"
    s = apply(s, FirstDealer(seat=DEV))
    assert s.dealer == DEV and to_move(s).seats == (DEV,)
    refused(s, Deal(seat=ANA), "dealer-deals")
    s = h.to_rank(h.discards(apply(s, Deal(seat=DEV))), "A")
    s = apply(s, Play(seat=ANA, cards=("HA",)))
    while s.phase == "aces":
        s = apply(s, Pass(seat=s.lap[0]))
    s = apply(s, ShowDiamondAce(seat=BEN))
    assert s.phase == "deal" and s.dealer == ANA  # clockwise after Dev
    assert "Deal 2 of 3: Ana deals" in describe_next(s)


def test_the_deal_stacks_the_diamonds_2_to_k_face_up_2_on_top_and_deals_10_each(h):
    s = h.dealt()
    assert s.stack == STACK and s.stack[0] == "D2" and s.stack[-1] == "DK"
    assert s.hands == (10, 10, 10, 10)
    assert len(s.cards_in_hands()) == 40 and "DA" in s.cards_in_hands()


# ----------------------------------------------------------------- 05-10 discards and exchanges


def test_four_discards_and_three_exchanges_alternate_and_leave_six_cards(h):
    s = h.dealt()
    phases = []
    for r in range(4):
        assert (s.phase, s.round) == ("discard", r + 1)
        for seat in range(4):
            s = apply(s, Discard(seat=seat, card=("C", "S", "H", "C")[seat] + str(2 + r + (seat == 3) * 4)))
        phases.append(s.phase)
        s = h.exchange_all(s)
    assert phases == ["exchange", "exchange", "exchange", "hunt"]
    assert s.hands == (6, 6, 6, 6) and len(s.discards) == 16


def test_never_discard_an_ace(h):
    s = h.dealt()
    for ace in ("HA", "CA", "SA", "DA"):
        refused(s, Discard(seat=ANA, card=ace), "never-discard-an-ace")


def test_one_discard_each_per_round_in_any_order(h):
    s = apply(h.dealt(), Discard(seat=CLEO, card="H5"))
    assert to_move(s).seats == (ANA, BEN, DEV)
    refused(s, Discard(seat=CLEO, card="H6"), "one-discard-each")


def test_a_card_seen_on_the_discard_pile_or_the_stack_cannot_be_entered_again(h):
    s = apply(h.dealt(), Discard(seat=CLEO, card="H5"))
    err = refused(s, Discard(seat=ANA, card="H5"), "card-already-seen")
    assert "discard pile" in err.reason
    err = refused(s, Discard(seat=ANA, card="D5"), "card-already-seen")
    assert "rabbit stack" in err.reason


def test_first_exchange_to_the_left_from_the_dealer_each_passing_after_receiving(h):
    s = h.dealt(dealer=BEN)
    for seat, card in zip(range(4), ("H2", "H3", "H4", "H5"), strict=True):
        s = apply(s, Discard(seat=seat, card=card))
    assert s.phase == "exchange" and to_move(s).seats == (BEN,)
    assert "Ben gives one card face down to Cleo" in describe_next(s)
    refused(s, Exchange(seat=CLEO), "exchange-order")
    order = []
    while s.phase == "exchange":
        (giver,) = to_move(s).seats
        order.append(giver)
        s = apply(s, Exchange(seat=giver))
        if s.phase == "exchange":
            assert s.hands[(giver + 1) % 4] == 10  # the receiver holds the card before passing on
    assert order == [BEN, CLEO, DEV, ANA] and s.hands == (9, 9, 9, 9)


def test_second_exchange_with_the_player_opposite_in_any_order(h):
    s = h.dealt()
    for r in range(2):
        for seat in range(4):
            s = apply(s, Discard(seat=seat, card="HCSH"[seat] + str(2 + 4 * r + seat)))
        if r == 0:
            s = h.exchange_all(s)
    assert (s.phase, s.round) == ("exchange", 2)
    assert set(to_move(s).seats) == {ANA, BEN, CLEO, DEV}
    assert "Ana to Cleo" in describe_next(s) and "Ben to Dev" in describe_next(s)
    s = apply(s, Exchange(seat=DEV))
    assert s.hands[BEN] == 9 and s.hands[DEV] == 7
    refused(s, Exchange(seat=DEV), "one-card-each")


@pytest.mark.parametrize("style", ["chain", "together"])
def test_third_exchange_to_the_right(h, style):
    s = h.dealt({"right_exchange": style}, dealer=CLEO)
    cards = iter(c for c in ALL_CARDS if c[0] != "D" and c[1:] != "A")
    for _ in range(3):
        for seat in range(4):
            s = apply(s, Discard(seat=seat, card=next(cards)))
        if s.round < 3:
            s = h.exchange_all(s)
    assert (s.phase, s.round) == ("exchange", 3)
    if style == "chain":
        assert to_move(s).seats == (CLEO,)
        assert "Cleo gives one card face down to Ben" in describe_next(s)
        refused(s, Exchange(seat=DEV), "exchange-order")
    else:
        assert set(to_move(s).seats) == {0, 1, 2, 3}
        s = apply(s, Exchange(seat=ANA))
        assert s.hands[DEV] == 8  # Ana gave to her right, Dev
    s = h.exchange_all(s)
    assert (s.phase, s.round) == ("discard", 4)


# ----------------------------------------------------------------- 11-18 the hunts 2..K


def test_the_dealer_announces_the_stacks_top_rank_starting_with_2(h):
    s = h.hunts()
    assert s.rank == "2" and s.stack[0] == "D2"
    assert describe_next(s).startswith("Ana announces 2: the diamond 2")


def test_the_heart_is_played_first_by_whoever_holds_it(h):
    s = h.to_rank(h.hunts(), "10")
    assert set(to_move(s).seats) == {0, 1, 2, 3}
    refused(s, Play(seat=BEN, cards=("C10",)), "heart-first")
    refused(s, Pass(seat=BEN), "heart-must-be-played")
    assert [la.label for la in legal_actions(s)] == [f"{n}: heart 10" for n in ("Ana", "Ben", "Cleo", "Dev")]


def test_wolves_follow_clockwise_from_the_hearts_player(h):
    s = apply(h.to_rank(h.hunts(), "10"), Play(seat=CLEO, cards=("H10",)))
    assert s.lap == (DEV, ANA, BEN) and to_move(s).seats == (DEV,)
    refused(s, Play(seat=ANA, cards=("C10",)), "clockwise-from-the-heart")
    s = apply(s, Pass(seat=DEV))
    refused(s, Pass(seat=DEV), "one-turn-each")
    assert to_move(s).seats == (ANA,)


def test_the_hearts_player_may_not_play_a_wolf_of_that_rank(h):
    s = apply(h.to_rank(h.hunts(), "10"), Play(seat=CLEO, cards=("H10",)))
    refused(s, Play(seat=CLEO, cards=("S10",)), "heart-player-plays-no-wolf")


def test_only_the_wolves_of_the_rank_follow_the_heart(h):
    s = apply(h.to_rank(h.hunts(), "10"), Play(seat=CLEO, cards=("H10",)))
    refused(s, Play(seat=DEV, cards=("CJ",)), "wolves-of-the-rank")
    refused(s, Play(seat=DEV, cards=("D10",)), "wolves-of-the-rank")
    labels = [la.label for la in legal_actions(s)]
    assert labels[:2] == ["Dev: club 10", "Dev: spade 10"] and labels[-1] == "Dev: pass"


def _hunt_10(h, plays, options=None):
    """Hunt the 10s: Cleo plays the heart, then Dev, Ana, Ben in turn (a tuple of cards or None = pass)."""
    s = h.to_rank(h.hunts(options), "10")
    before = s
    s = apply(s, Play(seat=CLEO, cards=("H10",)))
    for cards in plays:
        seat = s.lap[0]
        s = apply(s, Pass(seat=seat) if cards is None else Play(seat=seat, cards=cards))
    assert s.rank == "J"
    return before, s


def _gained(before, after):
    return [after.points[i][len(before.points[i]):] for i in range(4)], \
           [after.penalties[i][len(before.penalties[i]):] for i in range(4)]


def test_one_wolf_the_heart_scores_for_its_player_the_wolf_takes_the_rabbit_and_keeps_its_card(h):
    before, s = _hunt_10(h, [None, ("S10",), None])
    points, penalties = _gained(before, s)
    assert points == [("S10", "D10"), (), ("H10",), ()] and penalties == [(), (), (), ()]
    assert s.current_scores[ANA] - before.current_scores[ANA] == 4


@pytest.mark.parametrize(("setting", "ana", "cleo", "discarded"), [
    ("heart-player", ("D10",), ("H10", "S10"), False), ("discards", ("D10",), ("H10",), True)])
def test_one_wolf_its_own_card_goes_where_the_setting_says(h, setting, ana, cleo, discarded):
    before, s = _hunt_10(h, [None, ("S10",), None], {"lone_wolf_card": setting})
    points, _ = _gained(before, s)
    assert points[ANA] == ana and points[CLEO] == cleo
    assert (s.discards[-1] == "S10") is discarded


def test_two_wolves_the_heart_takes_the_first_wolf_the_second_takes_the_rabbit_the_first_gets_nothing(h):
    before, s = _hunt_10(h, [("C10",), None, ("S10",)])
    points, penalties = _gained(before, s)
    assert points == [(), ("S10", "D10"), ("H10", "C10"), ()] and penalties == [(), (), (), ()]
    assert s.current_scores[DEV] == before.current_scores[DEV]


def test_two_wolves_end_the_hunt_at_once(h):
    s = apply(h.to_rank(h.hunts(), "10"), Play(seat=CLEO, cards=("H10",)))
    s = apply(s, Play(seat=DEV, cards=("C10",)))
    s = apply(s, Play(seat=ANA, cards=("S10",)))
    assert s.rank == "J" and s.points[ANA][-2:] == ("S10", "D10")  # Ben is not asked


def test_no_wolf_the_rabbit_is_the_hearts_players_penalty_and_the_heart_scores(h):
    before, s = _hunt_10(h, [None, None, None])
    points, penalties = _gained(before, s)
    assert points == [(), (), ("H10",), ()] and penalties == [(), (), ("D10",), ()]
    assert s.current_scores[CLEO] == before.current_scores[CLEO]  # +2 - 2


@pytest.mark.parametrize(("setting", "points", "penalties"), [
    ("discards", (), ("D10",)), ("penalty", (), ("D10", "H10"))])
def test_no_wolf_the_heart_goes_where_the_setting_says(h, setting, points, penalties):
    before, s = _hunt_10(h, [None, None, None], {"heart_without_wolf": setting})
    got, lost = _gained(before, s)
    assert got[CLEO] == points and lost[CLEO] == penalties
    assert (s.discards[-1] == "H10") is (setting == "discards")


def test_no_heart_because_it_was_discarded_nobody_plays_and_the_rabbit_is_discarded(h):
    cards = ("H10",) + QUIET[1:]
    s = h.to_rank(h.hunts(cards=cards), "10")
    assert "heart 10 was discarded: nobody plays" in describe_next(s)
    assert [la.action for la in legal_actions(s)] == [NoHeart(seat=ANA)]
    refused(s, Play(seat=BEN, cards=("C10",)), "no-heart")
    refused(s, Play(seat=BEN, cards=("H10",)), "no-heart")
    refused(s, NoHeart(seat=BEN), "no-heart-the-rabbit-is-discarded")
    s2 = apply(s, NoHeart(seat=ANA))
    assert s2.discards[-1] == "D10" and s2.rank == "J" and s2.points == s.points
    refused(h.to_rank(h.hunts(), "10"), NoHeart(seat=ANA), "heart-must-be-played")


QUIET = tuple(suit + r for r in "23456789" for suit in "CS")


def test_one_player_playing_both_wolves_is_scored_as_two_wolves(h):
    before, s = _hunt_10(h, [("S10", "C10")])
    points, _ = _gained(before, s)
    assert points == [(), (), ("H10", "S10"), ("C10", "D10")]


def test_one_player_playing_both_wolves_may_be_forbidden(h):
    s = apply(h.to_rank(h.hunts({"double_wolf": "not-allowed"}), "10"), Play(seat=CLEO, cards=("H10",)))
    refused(s, Play(seat=DEV, cards=("C10", "S10")), "double-wolf-not-allowed")


def test_a_wolf_already_seen_cannot_be_played(h):
    s = h.to_rank(h.hunts(cards=("C10",) + QUIET[1:]), "10")
    s = apply(s, Play(seat=CLEO, cards=("H10",)))
    refused(s, Play(seat=DEV, cards=("C10",)), "card-already-seen")
    s = apply(s, Play(seat=DEV, cards=("S10",)))
    assert s.rank == "J" and s.points[DEV][-2:] == ("S10", "D10")  # no wolf left: the hunt ends


def test_the_hunt_ends_after_the_heart_when_both_wolves_were_discarded(h):
    s = h.hunts()
    s = apply(s, Play(seat=BEN, cards=("H2",)))
    assert s.rank == "3" and s.penalties[BEN] == ("D2",) and s.points[BEN] == ("H2",)


def test_the_hunts_go_from_2_to_k_then_the_aces(h):
    s = h.hunts()
    ranks = []
    while s.phase == "hunt":
        ranks.append(s.rank)
        s = h.quiet_hunt(s)
    assert ranks == ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    assert s.phase == "aces" and s.stack == ()


# ----------------------------------------------------------------- 19-25 the ace hunt


def _aces(h, options=None):
    return h.to_rank(h.hunts(options), "A")


def test_the_heart_ace_must_be_played_first(h):
    s = _aces(h)
    assert "heart ace must play it" in describe_next(s)
    refused(s, Play(seat=BEN, cards=("CA",)), "heart-first")
    refused(s, Pass(seat=BEN), "heart-must-be-played")


def test_the_heart_ace_and_a_black_ace_every_ace_played_scores_for_its_player(h):
    s = apply(_aces(h), Play(seat=ANA, cards=("HA",)))
    before = s
    s = apply(s, Play(seat=BEN, cards=("CA",)))
    s = apply(s, Pass(seat=CLEO))
    s = apply(s, Pass(seat=DEV))
    assert s.phase == "diamond_ace"  # the spade ace stayed in a hand: the diamond ace cannot be played
    refused(s, Play(seat=DEV, cards=("DA",)), "diamond-ace-after-black-aces")
    s = apply(s, ShowDiamondAce(seat=CLEO))
    assert s.points[ANA][-1] == "HA" and s.points[BEN][-1] == "CA" and s.penalties[CLEO][-1] == "DA"
    assert s.deal_scores[-1][BEN] == before.current_scores[BEN] + 3
    assert s.deal_scores[-1][CLEO] == before.current_scores[CLEO] - 3


def test_the_heart_ace_alone_is_a_penalty_for_its_player(h):
    s = apply(_aces(h), Play(seat=DEV, cards=("HA",)))
    before = s
    for seat in (ANA, BEN, CLEO):
        s = apply(s, Pass(seat=seat))
    s = apply(s, ShowDiamondAce(seat=BEN))
    assert s.penalties[DEV][-1] == "HA" and "HA" not in s.points[DEV]
    assert s.deal_scores[-1][DEV] == before.current_scores[DEV] - 3


def test_the_diamond_ace_only_after_both_black_aces(h):
    s = apply(_aces(h), Play(seat=ANA, cards=("HA",)))
    refused(s, Play(seat=BEN, cards=("DA",)), "diamond-ace-after-black-aces")
    refused(s, Play(seat=BEN, cards=("CA", "DA")), "diamond-ace-after-black-aces")
    s = apply(s, Play(seat=BEN, cards=("CA",)))
    s = apply(s, Play(seat=CLEO, cards=("SA", "DA")))
    assert s.phase == "deal" and s.points[CLEO][-2:] == ("SA", "DA")


def test_one_player_holding_both_black_aces_and_the_diamond_ace_plays_all_three_for_16(h):
    s = apply(_aces(h), Play(seat=ANA, cards=("HA",)))
    before = s
    assert Play(seat=BEN, cards=("CA", "SA", "DA")) in [la.action for la in legal_actions(s)]
    s = apply(s, Play(seat=BEN, cards=("CA", "SA", "DA")))
    assert s.deal_scores[-1][BEN] - before.current_scores[BEN] == 16
    assert s.deal_scores[-1][ANA] - before.current_scores[ANA] == 3


def test_the_diamond_ace_is_played_once_the_other_black_ace_is_out_even_after_its_holders_turn(h):
    s = apply(_aces(h), Play(seat=ANA, cards=("HA",)))
    s = apply(s, Play(seat=BEN, cards=("CA",)))  # Ben also holds the diamond ace
    s = apply(s, Pass(seat=CLEO))
    s = apply(s, Play(seat=DEV, cards=("SA",)))
    assert s.phase == "diamond_ace" and "play it now" in describe_next(s)
    s = apply(s, Play(seat=BEN, cards=("DA",)))
    assert s.points[BEN][-2:] == ("CA", "DA") and s.phase == "deal"


def test_an_unplayed_diamond_ace_is_minus_3_for_its_holder_who_shows_it(h):
    s = apply(_aces(h), Play(seat=ANA, cards=("HA",)))
    s = apply(s, Play(seat=BEN, cards=("CA", "SA")))
    before = s
    s = apply(s, Pass(seat=CLEO)) if s.phase == "aces" else s
    assert s.phase == "diamond_ace"
    s = apply(s, ShowDiamondAce(seat=DEV))
    assert s.penalties[DEV][-1] == "DA" and s.deal_scores[-1][DEV] == before.current_scores[DEV] - 3


def test_the_heart_ace_player_may_not_play_another_ace(h):
    s = apply(_aces(h), Play(seat=ANA, cards=("HA",)))
    refused(s, Play(seat=ANA, cards=("CA",)), "heart-ace-player-plays-no-other-ace")
    s = apply(s, Play(seat=BEN, cards=("CA",)))
    s = apply(s, Play(seat=CLEO, cards=("SA",)))
    assert s.phase == "diamond_ace"
    refused(s, Play(seat=ANA, cards=("DA",)), "heart-ace-player-plays-no-other-ace")


def test_the_heart_ace_player_may_play_the_diamond_ace_with_the_setting(h):
    s = apply(_aces(h, {"heart_ace_player_diamond": "may"}), Play(seat=ANA, cards=("HA",)))
    s = apply(s, Play(seat=BEN, cards=("CA", "SA")))
    s = apply(s, Play(seat=ANA, cards=("DA",)))
    assert s.points[ANA][-2:] == ("HA", "DA")


def test_four_aces_in_one_hand_are_shown_at_once_for_19_and_there_is_no_ace_hunt(h):
    s = apply(h.dealt(), FourAces(seat=CLEO))
    assert s.points[CLEO] == ("HA", "CA", "SA", "DA") and s.current_scores[CLEO] == 19 and s.hands[CLEO] == 6
    refused(s, FourAces(seat=ANA), "four-aces-at-once")
    s = h.discards(s)
    assert s.hands == (6, 6, 2, 6)
    for k in range(12):
        s = h.quiet_hunt(s, (ANA, BEN, DEV)[k % 3])
    assert s.phase == "deal" and s.deal_scores[-1][CLEO] == 19  # no ace hunt follows the king


@pytest.mark.parametrize(("setting", "after_exchange"), [("any-time", True), ("dealt", False)])
def test_four_aces_may_be_shown_after_an_exchange_unless_the_setting_says_dealt(h, setting, after_exchange):
    s = h.dealt({"four_aces": setting})
    for seat in range(4):
        s = apply(s, Discard(seat=seat, card=QUIET[seat]))
    refused(s, FourAces(seat=ANA), "four-aces-at-once")  # during the exchange
    s = h.exchange_all(s)
    if after_exchange:
        assert apply(s, FourAces(seat=ANA)).four_aces == ANA
    else:
        refused(s, FourAces(seat=ANA), "four-aces-at-once")
    s = apply(s, Discard(seat=BEN, card="H9"))
    refused(s, FourAces(seat=ANA), "four-aces-at-once")  # not once the discards started


# ----------------------------------------------------------------- deal and game scores


def test_a_deals_score_is_points_minus_penalties(h):
    s = _aces(h)
    s = apply(s, Play(seat=ANA, cards=("HA",)))
    for seat in (BEN, CLEO, DEV):
        s = apply(s, Pass(seat=seat))
    s = apply(s, ShowDiamondAce(seat=ANA))
    # every heart without a wolf: +1 -1 (2..9) or +2 -2 (10..K); then Ana's lone heart ace -3, diamond ace -3
    assert s.deal_scores == ((-6, 0, 0, 0),)
    assert s.points[ANA] == ("H2", "H6", "H10") and s.penalties[ANA] == ("D2", "D6", "D10", "DA", "HA")


def test_the_game_sums_the_deals_and_ends_after_the_number_of_deals(h):
    s = h.dealt({"deals": 2})
    scores = []
    for deal in range(2):
        if deal:
            s = apply(s, Deal(seat=s.dealer))
        s = h.to_rank(h.discards(s), "A")
        s = apply(s, Play(seat=deal, cards=("HA",)))
        s = apply(s, Play(seat=s.lap[0], cards=("CA",)))
        while s.phase == "aces":
            s = apply(s, Pass(seat=s.lap[0]))
        s = apply(s, ShowDiamondAce(seat=3))
        scores.append(s.deal_scores[-1])
    assert s.phase == "over" and legal_actions(s) == [] and to_move(s).seats == ()
    assert s.totals == tuple(a + b for a, b in zip(*scores, strict=True))
    result = outcome(s)
    assert result is not None and result.scores == tuple(float(t) for t in s.totals)
    assert result.winners == tuple(i for i in range(4) if s.totals[i] == max(s.totals))
    assert "Game over after 2 deals" in describe_next(s)
    refused(s, Deal(seat=0), "game-over")


def test_tied_totals_share_the_win(h):
    s = h.new({"deals": 1}).evolve(phase="over", deal_scores=((5, 5, 1, 0),))
    result = outcome(s)
    assert result is not None and result.winners == (ANA, BEN) and result.ranking == ((0, 1), (2,), (3,))


def test_in_any_order_the_others_play_or_pass_as_they_come_and_the_first_put_down_is_the_first_wolf(h):
    s = apply(h.to_rank(h.hunts({"wolf_order": "any-order"}), "10"), Play(seat=CLEO, cards=("H10",)))
    assert set(to_move(s).seats) == {DEV, ANA, BEN}
    assert "(in any order)" in describe_next(s)
    refused(s, Play(seat=CLEO, cards=("C10",)), "heart-player-plays-no-wolf")
    s = apply(s, Play(seat=BEN, cards=("C10",)))  # Ben before Dev and Ana
    refused(s, Pass(seat=BEN), "one-turn-each")
    s = apply(s, Pass(seat=DEV))
    before = s
    s = apply(s, Play(seat=ANA, cards=("S10",)))
    assert s.rank == "J"
    assert s.points[CLEO][-2:] == ("H10", "C10") and s.points[ANA][-2:] == ("S10", "D10")
    assert s.points[BEN] == before.points[BEN]
