"""The Dingo Disc as a game module: setup spec, legal actions, who moves, the outcome, sentences."""

from __future__ import annotations

import pytest

from companion.games import CHANCE, GAMES, IllegalAction
from companion.games.dingo_disc import DINGO_DISC, FirstPlayer, Match, NewGame, Roll
from companion.games.dingo_disc.state import Finish
from companion.games.match import GameMatch


def test_registered_with_its_title_and_scoring():
    assert GAMES["dingo-disc"] is DINGO_DISC
    assert (DINGO_DISC.title, DINGO_DISC.scoring) == ("Dingo Disc", "rank")
    spec = DINGO_DISC.setup_spec()
    assert (spec.min_players, spec.max_players) == (2, 6)
    assert [(o.name, o.default, o.choices) for o in spec.options][0] == ("version", 1, (1, 2))


def test_setup_version_as_an_option_or_top_level():
    a = DINGO_DISC.initial_state({"type": "new_game", "players": ["A", "B"], "options": {"version": 2}})
    b = DINGO_DISC.initial_state({"type": "new_game", "version": 2, "players": ["A", "B"]})
    c = DINGO_DISC.initial_state({"type": "new_game", "players": ["A", "B"]})
    assert a == b and a.version == 2 and c.version == 1
    with pytest.raises(IllegalAction, match="version must be 1 or 2"):
        DINGO_DISC.initial_state({"type": "new_game", "players": ["A", "B"], "options": {"version": 3}})


def test_first_player_is_the_hosts_choice_or_a_draw():
    state = DINGO_DISC.initial_state(NewGame(version=1, players=("Anna", "Ben", "Cleo")))
    legal = DINGO_DISC.legal_actions(state)
    chosen = [la for la in legal if not la.chance]
    drawn = [la for la in legal if la.chance]
    assert [la.action for la in chosen] == [FirstPlayer(seat=i) for i in range(3)]
    assert [la.label for la in chosen] == ["Anna plays first", "Ben plays first", "Cleo plays first"]
    assert [la.action for la in drawn] == [FirstPlayer(seat=i, drawn=True) for i in range(3)]
    assert all(abs(la.probability - 1 / 3) < 1e-12 for la in drawn)
    assert DINGO_DISC.to_move(state).seats == (0, 1, 2, CHANCE)


def test_the_roll_outcomes_are_chance_v1_both_dice_v2_the_number():
    for version, outcomes in ((1, 36), (2, 6)):
        m = GameMatch(DINGO_DISC, NewGame(version=version, players=("A", "B")))
        m.apply(FirstPlayer(seat=0))
        while m.state.phase == "colours":
            m.apply(next(la.action for la in DINGO_DISC.legal_actions(m.state)
                         if la.action.colour not in m.state.colours))
        legal = DINGO_DISC.legal_actions(m.state)
        rolls = [la for la in legal if isinstance(la.action, Roll)]
        assert len(rolls) == outcomes and all(la.chance for la in rolls)
        assert abs(sum(la.probability for la in rolls) - 1) < 1e-9
        assert DINGO_DISC.to_move(m.state).seats == (0, CHANCE)
        assert DINGO_DISC.describe_next(m.state).startswith("A: take the dice and roll")


def test_outcome_is_the_finishing_order_and_a_draw_ranks_everyone_first():
    m = Match(NewGame(version=1, players=("A", "B")))
    assert DINGO_DISC.outcome(m.state) is None
    done = m.state.evolve(phase="over", current=None, draw=False,
                          finishing=(Finish(1, 5, 9), Finish(0, 5, 10)))
    out = DINGO_DISC.outcome(done)
    assert (out.winners, out.ranking, out.scores, out.draw) == ((1,), ((1,), (0,)), None, False)
    tie = DINGO_DISC.outcome(done.evolve(draw=True))
    assert (tie.winners, tie.ranking, tie.draw) == ((), ((0, 1),), True)


def test_describe_action_names_who_a_fall_goes_to():
    m = Match(NewGame(version=1, players=("Anna", "Ben")))
    assert DINGO_DISC.describe_action(m.state, m.history[0]) == "New game (version 1): Anna, Ben"
    assert DINGO_DISC.describe_action(m.state, FirstPlayer(seat=1, drawn=True)) == "Ben plays first (drawn)"
