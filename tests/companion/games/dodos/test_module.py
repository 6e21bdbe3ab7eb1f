"""The module as the platform sees it: setup spec, JSON forms, legal actions, chance, invariants,
random playouts of every example setup (they end), replay and refusals leaving the state unchanged."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import get_game
from companion.games.base import CHANCE, ActionFormatError, IllegalAction, StateFormatError
from companion.games.dodos import DodosRules, example_setups, state_from_json
from companion.games.dodos.actions import ACTION_TYPES, Done, Reveal, action_from_json

RULES = DodosRules()


def test_registered_as_dodos_riding_dinos():
    rules = get_game("dodos-riding-dinos")
    assert rules.title == "Dodos Riding Dinos" and rules.scoring == "rank"


def test_setup_spec_lists_every_option_with_a_default_among_its_choices():
    spec = RULES.setup_spec()
    assert (spec.min_players, spec.max_players) == (1, 8)
    names = [o.name for o in spec.options]
    assert {"mode", "track", "side", "abilities", "extra_challengers", "challenger_cards",
            "challenger_modifiers"} <= set(names)
    assert all(o.default in o.choices for o in spec.options)
    json.dumps(spec.to_json())


def test_initial_state_accepts_the_typed_setup_or_its_json():
    js = {"type": "new_game", "players": ["Ana"], "options": {"track": "boreal-sky"}}
    a = action_from_json(js)
    assert RULES.initial_state(js) == RULES.initial_state(a)
    with pytest.raises(IllegalAction, match="unknown game"):
        RULES.initial_state({**js, "game": "chess"})
    with pytest.raises(ActionFormatError):
        RULES.initial_state({"type": "new_game"})


def test_state_json_has_game_players_phase_and_round_trips():
    s = RULES.initial_state(example_setups()[0])
    js = s.to_json()
    assert js["game"] == "dodos-riding-dinos" and js["players"] == ["Ana"] and js["phase"] == "scheming"
    assert state_from_json(json.loads(json.dumps(js))) == s


@pytest.mark.parametrize(("data", "word"), [
    ([], "JSON object"), ({"game": "dodos-riding-dinos"}, "missing"), ("x", "JSON object")])
def test_state_from_json_names_the_problem(data, word):
    with pytest.raises(StateFormatError, match=word):
        state_from_json(data)


def test_state_from_json_refuses_unknown_fields():
    js = RULES.initial_state(example_setups()[0]).to_json()
    with pytest.raises(StateFormatError, match="unknown state field 'extra'"):
        state_from_json({**js, "extra": 1})


@pytest.mark.parametrize("cls", ACTION_TYPES)
def test_every_action_round_trips_through_json(cls):
    a = cls()
    assert action_from_json(json.loads(json.dumps(a.to_json()))) == a


@pytest.mark.parametrize(("data", "word"), [
    ({"type": "fly"}, "unknown action type"), ({"type": "reveal"}, "missing field 'seat'"),
    ({"type": "reveal", "seat": "0", "kind": "normal"}, "reveal.seat"),
    ({"type": "damage", "racer": 0, "cards": 1, "why": 2}, "unknown field 'why'"), (3, "JSON object")])
def test_action_from_json_names_the_bad_field(data, word):
    with pytest.raises(ActionFormatError, match=word):
        action_from_json(data)


def test_an_illegal_action_names_rule_and_leaves_the_state_unchanged():
    s = RULES.initial_state(example_setups()[0])
    before = s.data
    with pytest.raises(IllegalAction) as err:
        RULES.apply(s, Done())
    assert err.value.rule == "wrong-step" and "reveal" in err.value.reason.lower()
    assert s.data == before


def test_describe_next_and_actions_use_names():
    s = RULES.initial_state(example_setups()[0])
    assert "Ana" in RULES.describe_next(s)
    assert RULES.describe_action(s, Reveal(0, "normal", 3)) == "Ana revealed a Normal card of Speed 3"
    assert RULES.describe_action(s, Reveal(0, "aggressive", 1)).startswith("Ana revealed an Aggressive")


def _play(setup, seed, check_every=0, bias=0.6, limit=6000):
    """A random playout; ``bias`` prefers closing windows so the playout stays short."""
    rnd = random.Random(seed)
    s = RULES.initial_state(setup)
    history = []
    for step in range(limit):
        assert not RULES.invariants(s), RULES.invariants(s)
        legal = RULES.legal_actions(s)
        if RULES.outcome(s) is not None:
            assert legal == [] and RULES.to_move(s).seats == ()
            return s, history
        assert legal, RULES.describe_next(s)
        tm = RULES.to_move(s)
        assert all(la.chance == tm.chance for la in legal)
        if tm.chance:
            assert sum(la.probability for la in legal) == pytest.approx(1.0)
        if check_every and step % check_every == 0:
            for la in rnd.sample(legal, min(8, len(legal))):
                t = RULES.apply(s, la.action)
                assert state_from_json(json.loads(json.dumps(t.to_json()))) == t
        done = [la for la in legal if la.action == Done()]
        la = done[0] if done and rnd.random() < bias else rnd.choice(legal)
        history.append(la.action)
        s = RULES.apply(s, la.action)
    raise AssertionError(f"no end after {limit} actions: {setup}")


@pytest.mark.parametrize("setup", example_setups(), ids=lambda x: f"{x['options'].get('mode', 'race')}-"
                         f"{len(x['players'])}p-{x['options'].get('track', '')}")
def test_random_playouts_of_every_mode_terminate(setup):
    s, history = _play(setup, seed=len(setup["players"]), check_every=25)
    assert RULES.outcome(s) is not None
    t = RULES.initial_state(setup)
    for a in history:
        t = RULES.apply(t, action_from_json(json.loads(json.dumps(a.to_json()))))
    assert t == s  # replay rebuilds the state exactly


def test_uniform_random_playout_of_the_solo_race_terminates():
    s, _ = _play(example_setups()[0], seed=7, bias=0.0)
    assert RULES.outcome(s) is not None


def test_actions_not_listed_are_refused():
    s = RULES.initial_state(example_setups()[0])
    listed = {la.action for la in RULES.legal_actions(s)}
    for a in (Reveal(0, "normal", 9), Reveal(0, "reaction", 1), Done(), Reveal(1, "normal", 1)):
        assert a not in listed
        with pytest.raises(IllegalAction):
            RULES.apply(s, a)


def test_chance_steps_are_chance_only():
    setup = {"type": "new_game", "players": ["Ana"], "options": {"challenger_cards": "drawn"}}
    s = RULES.apply(RULES.initial_state(setup), Reveal(0, "normal", 1))
    assert RULES.to_move(s).seats == (CHANCE,)
    assert all(la.chance for la in RULES.legal_actions(s))


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([0, 3, 4, 6]))
def test_property_cards_conserved_and_positions_consistent_in_random_races(seed, which):
    _play(example_setups()[which], seed)
