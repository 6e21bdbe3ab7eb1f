"""Challenger racers run by the companion: their cards, movement, damage, recovery and what they ignore."""

from __future__ import annotations

import math

import pytest

from companion.games.base import CHANCE, IllegalAction
from companion.games.dodos.actions import ChallengerCard, ChallengerDice, Damage, PlayReaction, Reveal


def _solo(h, **opts):
    return h.start(1, **opts)


def test_challenger_normal_card_speed_plus_blue_modifier(h):
    # the rulebook's example: Speed 3 with 2/2/1 advances five hexes
    s = h.reveal(_solo(h), {0: ("normal", 1)}, {1: ("normal", 3), 2: ("normal", 1)})
    s = h.done(s)
    assert h.pos(s)[1] == -1 + 5


def test_challenger_aggressive_card_speed_times_red_modifier(h):
    s = h.reveal(_solo(h, challenger_modifiers="2/3/1"), {0: ("normal", 1)},
                 {1: ("aggressive", 2), 2: ("normal", 1)})
    s = h.done(s)
    assert h.pos(s)[1] == -1 + 6


def test_challenger_aggressive_not_enraged_deals_two_damage_to_every_other_racer(h):
    s = h.reveal(_solo(h), {0: ("normal", 1)}, {1: ("aggressive", 1), 2: ("normal", 1)})
    s = h.done(h.done(s))  # Ana's turn, then the Challenger's window closes: the damage
    assert h.hands(s) == [5 - 2, 5, 5 - 2]
    assert s.dict()["racers"][0]["damage"] == 2


def test_challenger_aggressive_enraged_deals_no_damage(h):
    s = h.reveal(_solo(h), {0: ("aggressive", 1)}, {1: ("aggressive", 1), 2: ("normal", 1)})
    s = h.done(h.done(s))
    assert h.hands(s) == [5, 5, 5]


def test_challenger_aggressive_damage_can_be_blocked(h):
    s = h.reveal(_solo(h), {0: ("normal", 1)}, {1: ("aggressive", 1), 2: ("normal", 1)})
    s = h.done(s)
    s = h.run(s, PlayReaction(0, cancels=True))
    s = h.done(s)
    assert h.hands(s) == [4, 5, 5]


def test_challenger_red_modifier_zero_does_not_move(h):
    s = h.reveal(_solo(h, challenger_modifiers="2/0/1"), {0: ("normal", 1)},
                 {1: ("aggressive", 4), 2: ("normal", 1)})
    s = h.done(s)
    assert h.pos(s)[1] == -1


def test_challenger_reaction_card_rolls_the_green_modifiers_dice(h):
    s = h.reveal(_solo(h, challenger_modifiers="2/2/2"), {0: ("normal", 1)},
                 {1: ("reaction", 3), 2: ("normal", 1)})
    s = h.done(s)
    assert h.prompt(s) == {"kind": "challenger_dice", "racer": 1, "dice": 2}
    assert h.rules.to_move(s).seats == (CHANCE,)
    legal = h.rules.legal_actions(s)
    assert [la.action.total for la in legal] == list(range(2, 13))
    assert all(la.chance for la in legal) and math.isclose(sum(la.probability for la in legal), 1.0)
    assert math.isclose(next(la.probability for la in legal if la.action.total == 7), 6 / 36)
    s = h.run(s, ChallengerDice(9))
    assert h.pos(s)[1] == -1 + 9


def test_challenger_dice_outside_the_dice_are_refused(h):
    s = h.done(h.reveal(_solo(h), {0: ("normal", 1)}, {1: ("reaction", 3), 2: ("normal", 1)}))
    with pytest.raises(IllegalAction):
        h.run(s, ChallengerDice(7))  # one die (2/2/1)


def test_challenger_cards_entered_by_the_host_in_racer_order(h):
    s = h.run(_solo(h), Reveal(0, "normal", 1))
    assert h.rules.to_move(s).seats == (0,)
    with pytest.raises(IllegalAction) as err:
        h.run(s, ChallengerCard(2, "normal", 1))
    assert err.value.rule == "challenger-order"
    with pytest.raises(IllegalAction) as err:
        h.run(s, ChallengerCard(1, "normal", 1, drawn=True))
    assert err.value.rule == "challenger-cards-setting"


def test_challenger_cards_drawn_by_the_companion_from_the_configured_deck(h):
    s = h.run(_solo(h, challenger_cards="drawn"), Reveal(0, "normal", 1))
    assert h.rules.to_move(s).seats == (CHANCE,)
    legal = h.rules.legal_actions(s)
    assert all(la.chance and la.action.drawn for la in legal)
    assert math.isclose(sum(la.probability for la in legal), 1.0)
    with pytest.raises(IllegalAction) as err:
        h.run(s, ChallengerCard(1, "reaction", 8, drawn=True))
    assert err.value.rule == "challenger-deck"
    s = h.run(s, legal[0].action)
    assert h.hands(s)[1] == 5


def test_challenger_cards_count_from_their_hand(h):
    s = h.reveal(_solo(h), {0: ("normal", 1)}, {1: ("normal", 1), 2: ("normal", 1)})
    assert h.hands(s) == [5, 5, 5]


def test_challenger_takes_damage_by_discarding(h):
    s = h.reveal(_solo(h), {0: ("normal", 1)}, {1: ("normal", 1), 2: ("normal", 1)})
    s = h.run(s, Damage(1, 3))
    assert h.hands(s)[1] == 2


def test_challenger_recovers_with_six_cards(h):
    s = h.edit(_solo(h), r1={"hand": 1}, deck=_solo(h).dict()["deck"] + 5)
    s = h.reveal(s, {0: ("normal", 1)}, {1: ("normal", 1), 2: ("normal", 1)})
    s = h.done(s)  # the end of Ana's turn: the Challenger with no cards recovers
    assert h.hands(s)[1] == 6 and h.pos(s)[1] == -1 - 3 + 3


def test_challenger_effects_are_ignored(h):
    s = h.done(h.reveal(_solo(h), {0: ("normal", 1)}, {1: ("normal", 1), 2: ("normal", 1)}))
    with pytest.raises(IllegalAction) as err:
        h.run(s, Damage(0, 1))
    assert err.value.rule == "effect-cancelled"
    assert h.hands(h.run(s, PlayReaction(0), Damage(1, 1)))[1] == 4  # a player's Reaction still can


def test_challenger_ignores_flames(h):
    s = h.edit(_solo(h, track="ignis-volcano", side="inner"), r1={"p": 2})  # flame at 6 (2 + 2 + 2)
    s = h.done(h.reveal(s, {0: ("normal", 0)}, {1: ("normal", 2), 2: ("normal", 0)}))
    assert h.pos(s)[1] == 6 and h.prompt(s)["kind"] == "window"


def test_challenger_ignores_shortcut_rolls_and_keeps_the_regular_path(h):
    s = h.edit(_solo(h, track="polaria-iceberg", side="inner"), r1={"p": 5})  # signal at 7
    s = h.done(h.reveal(s, {0: ("normal", 0)}, {1: ("normal", 2), 2: ("normal", 0)}))
    assert h.prompt(s)["kind"] == "window" and h.pos(s)[1] == 9 and s.dict()["racers"][1]["route"] is None


def test_challenger_glass_ramp_to_the_smallest_paw_as_one_hex(h):
    s = h.edit(_solo(h, track="boreal-sky", side="inner"), r1={"p": 8})  # ramp 10, smallest paw 13
    s = h.done(h.reveal(s, {0: ("normal", 0)}, {1: ("normal", 2), 2: ("normal", 0)}))  # 4 hexes
    assert h.pos(s)[1] == 13 + 1


def test_challenger_counts_for_the_lead_and_draws_as_usual(h):
    s = h.reveal(_solo(h), {0: ("normal", 1)}, {1: ("normal", 5), 2: ("normal", 1)})
    s = h.done(h.to_window(s))
    assert h.pos(s)[1] == -1 + 7 + 1 and h.hands(s) == [6, 5, 6]
