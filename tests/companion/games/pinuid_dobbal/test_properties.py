"""Properties over random games (hypothesis picks the setup and the seed of the random player)."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.base import IllegalAction
from companion.games.pinuid_dobbal import (
    Move,
    PinuidDobbalRules,
    PutBack,
    Remove,
    apply,
    invariants,
    legal_actions,
    state_from_json,
)
from companion.games.pinuid_dobbal.playout import playout_state
from companion.games.pinuid_dobbal.state import OPTIONS

RULES = PinuidDobbalRules()
SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEWER = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OPTION_VALUES = st.fixed_dictionaries({}, optional={o.name: st.sampled_from(o.choices) for o in OPTIONS})


def _setup(options):
    return {"type": "new_game", "players": ["Anna", "Bob"], "options": options}


def _random_game(options, seed, max_turns=150):
    rng = random.Random(seed)
    s = RULES.initial_state(_setup(options))
    states, actions = [s], []
    while s.phase != "over" and not (s.phase == "roll" and s.turn >= max_turns):
        a = rng.choice(legal_actions(s))
        s = apply(s, a)
        states.append(s)
        actions.append(a)
    return states, actions


@SETTINGS
@given(options=OPTION_VALUES, seed=st.integers(0, 10**6))
def test_pins_are_conserved_and_never_share_a_square(options, seed):
    for s in _random_game(options, seed)[0]:
        assert invariants(s) == [], (s.to_json(), invariants(s))


@FEWER
@given(options=OPTION_VALUES, seed=st.integers(0, 10**6))
def test_replay_of_the_log_rebuilds_every_state_and_json_round_trips(options, seed):
    states, actions = _random_game(options, seed, 60)
    s = RULES.initial_state(json.loads(json.dumps(_setup(options))))
    for a, expected in zip(actions, states[1:], strict=True):
        s = apply(s, RULES.action_from_json(json.loads(json.dumps(a.to_json()))))
        assert s == expected
        assert state_from_json(json.loads(json.dumps(s.to_json()))) == s


@FEWER
@given(options=OPTION_VALUES, seed=st.integers(0, 10**6))
def test_actions_not_listed_are_refused_and_change_nothing(options, seed):
    rng = random.Random(seed)
    states, _ = _random_game(options, seed, 40)
    for s in states[::3]:
        if s.phase != "move":
            continue
        names = s.options.board().names
        listed = {json.dumps(a.to_json()) for a in legal_actions(s)}
        before = s.to_json()
        for _ in range(30):
            q, r = rng.choice(names), rng.choice(names)
            a = rng.choice([Move(q, r), Remove(q), PutBack(q)])
            if json.dumps(a.to_json()) in listed:
                continue
            try:
                apply(s, a)
            except IllegalAction as err:
                assert err.rule and err.reason
            else:
                raise AssertionError(f"{a} was accepted but not listed")
            assert s.to_json() == before


@SETTINGS
@given(options=OPTION_VALUES, seed=st.integers(0, 10**6))
def test_fast_playout_plays_the_same_game_as_the_rules_core(options, seed):
    states, _ = _random_game(options, seed, 120)
    last = states[-1]
    w, turns = playout_state(RULES.initial_state(_setup(options)), random.Random(seed), 120)
    assert (w, turns) == (last.winner, last.turn)


@SETTINGS
@given(options=OPTION_VALUES, seed=st.integers(0, 10**6))
def test_legal_actions_never_empty_before_the_end(options, seed):
    for s in _random_game(options, seed, 60)[0]:
        assert bool(legal_actions(s)) == (s.phase != "over")
        assert RULES.to_move(s).chance == (s.phase == "roll")
