"""Corrections (undo and re-enter), empty hands, JSON forms and messages of the Dingo card game."""

from __future__ import annotations

import pytest

from companion.games.base import ActionFormatError, IllegalAction, StateFormatError
from companion.games.dingo_cards import (
    DingoCardsRules,
    Discard,
    FourAces,
    Play,
    action_from_json,
    apply,
    describe_action,
    legal_actions,
    state_from_json,
    to_move,
)
from companion.games.match import GameMatch

RULES = DingoCardsRules()
ANA, BEN, CLEO, DEV = range(4)


def test_a_wrong_entry_is_corrected_by_undo_and_re_entry(h):
    match = GameMatch(RULES, RULES.example_setups()[3])
    for _ in range(2):  # the first dealer, the deal
        match.apply(RULES.legal_actions(match.state)[0].action)
    right = RULES.apply(match.state, Discard(seat=BEN, card="C5"))
    match.apply(Discard(seat=BEN, card="C6"))  # the host pressed the wrong card
    assert match.undo() == Discard(seat=BEN, card="C6")
    match.apply(Discard(seat=BEN, card="C5"))
    assert match.state == right and "C6" not in match.state.discards


def test_players_with_no_card_left_are_skipped(h):
    s = apply(h.dealt(), FourAces(seat=CLEO))
    s = h.discards(s)
    assert s.hands[CLEO] == 2
    s = apply(s, Play(seat=CLEO, cards=("H2",)))
    s = apply(s, Play(seat=ANA, cards=("H3",)))
    s = apply(s, Play(seat=CLEO, cards=("H4",)))  # Cleo's last card
    assert s.hands[CLEO] == 0
    while s.rank != "10":
        s = h.quiet_hunt(s, (ANA, BEN, DEV)[["5", "6", "7", "8", "9"].index(s.rank) % 3])
    s = apply(s, Play(seat=BEN, cards=("H10",)))
    assert s.lap == (DEV, ANA) and to_move(s).seats == (DEV,)  # Cleo is not asked
    assert all(la.action.seat != CLEO for la in legal_actions(s))


def test_an_empty_hand_cannot_play_or_discard(h):
    s = apply(h.dealt(), FourAces(seat=CLEO))
    with pytest.raises(IllegalAction) as err:
        apply(s.evolve(hands=(10, 10, 0, 10)), Discard(seat=CLEO, card="H5"))
    assert err.value.rule == "empty-hand"


@pytest.mark.parametrize(("data", "field"), [
    ({"type": "deal"}, "seat"),
    ({"type": "discard", "seat": 1}, "card"),
    ({"type": "discard", "seat": 1, "card": "X9"}, "discard.card"),
    ({"type": "play", "seat": 0, "cards": []}, "play.cards"),
    ({"type": "play", "seat": 0, "cards": ["H7", 3]}, "play.cards[1]"),
    ({"type": "pass", "seat": "1"}, "pass.seat"),
    ({"type": "fold"}, "unknown action type"),
    ({"type": "pass", "seat": 0, "card": "H2"}, "unknown field"),
    ({"type": "new_game", "players": "Ana"}, "new_game.players")])
def test_action_json_errors_name_the_field(data, field):
    with pytest.raises(ActionFormatError, match=field.replace("[", r"\[").replace("]", r"\]")):
        action_from_json(data)


def test_actions_and_states_round_trip_through_json(h):
    s = apply(h.to_rank(h.hunts(), "10"), Play(seat=CLEO, cards=("H10",)))
    assert state_from_json(s.to_json()) == s
    for la in legal_actions(s):
        assert action_from_json(la.action.to_json()) == la.action
    with pytest.raises(StateFormatError, match="phase"):
        state_from_json({**s.to_json(), "phase": "dancing"})
    with pytest.raises(StateFormatError, match="table"):
        state_from_json({**s.to_json(), "table": [[9, "H10"]]})


def test_messages_name_the_card_and_the_player(h):
    s = apply(h.dealt(), Discard(seat=CLEO, card="H5"))
    with pytest.raises(IllegalAction, match="the heart 5 is already on the discard pile"):
        apply(s, Discard(seat=ANA, card="H5"))
    with pytest.raises(IllegalAction, match="not a card"):
        apply(s, Discard(seat=ANA, card="H1"))
    t = apply(h.to_rank(h.hunts(), "10"), Play(seat=CLEO, cards=("H10",)))
    t = apply(t, Play(seat=DEV, cards=("C10",)))
    text = describe_action(t, Play(seat=ANA, cards=("S10",)))
    assert text == ("Ana played the spade 10. Ana scores the spade 10 and the diamond 10; "
                    "Cleo scores the heart 10 and the club 10.")


def test_the_new_game_entry_is_described(h):
    setup = RULES.example_setups()[1]
    s = RULES.initial_state(setup)
    assert RULES.describe_action(s, setup) == "New Dingo card game: Ana, Ben, Cleo, Dev; 2 deals."
