"""The generic game suite: every registered game module (and a tiny test-only one) passes it.

Nothing here names a game: a module registered in ``companion.games.games_registry()`` is picked up
and checked with its own ``example_setups()`` and ``invariants()``. What each test checks:

- random playouts (uniform among ``legal_actions``) end or reach a bounded length, with
  ``legal_actions`` never empty before the game is over, and at least one playout per game ends;
- every listed action applies; near misses (a listed action with one field changed, actions legal
  in earlier states) are refused with the state unchanged (``companion.games.playout``);
- replaying the history rebuilds every state exactly; states and actions round-trip through JSON;
- undo is exact; invariants hold in every state; ``to_move``/``outcome``/chance probabilities agree;
- the setup is validated against ``setup_spec()`` (players, options, defaults).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games import GAMES, ActionFormatError, IllegalAction
from companion.games.match import GameMatch
from companion.games.playout import NearMisses, random_playout, refusal_problem, step_problems

TINY = Path(__file__).with_name("tiny_game.py")


def _tiny_module():
    import importlib.util
    import sys

    if "tiny_game" in sys.modules:
        return sys.modules["tiny_game"]
    spec = importlib.util.spec_from_file_location("tiny_game", TINY)
    module = importlib.util.module_from_spec(spec)
    sys.modules["tiny_game"] = module
    spec.loader.exec_module(module)
    return module


TINY_GAME = _tiny_module()
MODULES = {**GAMES, "tiny-race": TINY_GAME.TinyRace()}
NAMES = sorted(MODULES)
MAX_ACTIONS = 3000
SEEDS = (0, 1, 2)


def _setups():
    return [(name, i) for name in NAMES for i in range(len(MODULES[name].example_setups()))]


def _players(state_json):
    return [p["name"] if isinstance(p, dict) else p for p in state_json.get("players") or []]


@pytest.mark.parametrize("name", NAMES)
def test_module_names_title_scoring_and_examples(name):
    rules = MODULES[name]
    assert rules.name == name
    assert isinstance(rules.title, str) and rules.title.strip()
    assert rules.scoring in ("points", "rank", "winner")
    spec = rules.setup_spec()
    assert 1 <= spec.min_players <= spec.max_players
    json.dumps(spec.to_json())
    setups = rules.example_setups()
    assert setups, "a game gives at least one example setup"
    counts = set()
    for setup in setups:
        assert setup["type"] == "new_game" and setup.get("game") == name
        counts.add(len(setup["players"]))
        state = rules.initial_state(setup)
        data = state.to_json()
        assert data["game"] == name
        assert _players(data) == list(setup["players"])
    assert min(counts) >= spec.min_players and max(counts) <= spec.max_players


@pytest.mark.parametrize("name,index", _setups())
def test_random_playouts_end_and_follow_the_protocol(name, index):
    rules = MODULES[name]
    setup = rules.example_setups()[index]
    finished = 0
    for seed in SEEDS:
        report = random_playout(rules, setup, random.Random(seed).randrange, max_actions=MAX_ACTIONS)
        assert not report.errors, report.errors[:5]
        assert report.illegal_caught > 0 or report.actions < 3, "no near miss was tried"
        match = report.match
        if report.finished:
            finished += 1
            _check_outcome(rules, match.state, len(setup["players"]))
        else:
            assert report.actions == MAX_ACTIONS
        # replaying the history (from its JSON) rebuilds every state exactly
        again = GameMatch.replay(rules, [a.to_json() for a in match.history])
        assert again.states == match.states
    assert finished >= 1, f"no random {name} game ended within {MAX_ACTIONS} actions"


def _check_outcome(rules, state, n):
    outcome = rules.outcome(state)
    assert outcome is not None and state.to_json()["phase"] == "over"
    seats = [s for group in outcome.ranking for s in group]
    assert sorted(seats) == list(range(n)), f"the ranking must hold every seat once: {outcome.ranking}"
    if outcome.draw:
        assert not outcome.winners
    else:
        assert outcome.winners and set(outcome.winners) == set(outcome.ranking[0])
    if outcome.scores is not None:
        assert len(outcome.scores) == n
    if rules.scoring == "points":
        assert outcome.scores is not None, "a points game gives the scores"
    json.dumps(outcome.to_json())
    assert rules.legal_actions(state) == [] and not rules.to_move(state).seats


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_json_round_trips_undo_and_near_misses_along_any_game(name, data):
    rules = MODULES[name]
    setups = rules.example_setups()
    setup = setups[data.draw(st.integers(0, len(setups) - 1), label="setup")]
    match = GameMatch(rules, setup)
    misses = NearMisses(rules, len(setup["players"]))
    assert rules.action_from_json(match.history[0].to_json()) == match.history[0]
    for _ in range(data.draw(st.integers(1, 120), label="steps")):
        state = match.state
        legal = rules.legal_actions(state)
        assert not step_problems(rules, state, legal)
        # the state's JSON is plain JSON and rebuilds the same state
        text = json.dumps(state.to_json())
        assert rules.state_from_json(json.loads(text)) == state
        if not legal:
            break
        jsons = [la.action.to_json() for la in legal]
        miss = misses.one(jsons, lambda k: data.draw(st.integers(0, k - 1)))
        if miss is not None:
            assert refusal_problem(rules, state, miss, legal) is None
        misses.remember(jsons)
        chosen = legal[data.draw(st.integers(0, len(legal) - 1), label="action")].action
        assert rules.action_from_json(json.loads(json.dumps(chosen.to_json()))) == chosen
        history = match.history
        match.apply(chosen)
        after = match.state
        # undo is exact, and applying again gives the same state (apply is pure)
        assert match.undo() == chosen
        assert match.state == state and match.history == history
        assert match.apply(chosen) == after
    assert GameMatch.replay(rules, match.history).states == match.states


@pytest.mark.parametrize("name", NAMES)
def test_setup_is_validated_against_the_setup_spec(name):
    rules = MODULES[name]
    spec = rules.setup_spec()
    base = rules.example_setups()[0]
    names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Finn", "Gus", "Hal", "Ivy", "Jo"]

    def setup(players, options):
        return {**base, "players": players, "options": options}

    refused = (ActionFormatError, IllegalAction)
    with pytest.raises(refused, match="option|no-such"):
        rules.initial_state(setup(names[:spec.min_players], {"no-such-option": 1}))
    for option in spec.options:
        with pytest.raises(refused):
            rules.initial_state(setup(names[:spec.min_players], {option.name: "no-such-value"}))
        for choice in option.choices:  # every listed choice is accepted
            rules.initial_state(setup(names[:spec.min_players], {option.name: choice}))
    if spec.min_players > 1:
        with pytest.raises(refused):
            rules.initial_state(setup(names[:spec.min_players - 1], {}))
    if spec.max_players < len(names):
        with pytest.raises(refused):
            rules.initial_state(setup(names[:spec.max_players + 1], {}))
    for n in range(spec.min_players, min(spec.max_players, len(names)) + 1):
        defaults = {o.name: o.default for o in spec.options}
        assert rules.initial_state(setup(names[:n], {})) == rules.initial_state(setup(names[:n], defaults))


# -- the suite catches broken games (a suite that cannot fail checks nothing) ---------------------

class _ListsAnIllegalStep(TINY_GAME.TinyRace):
    def legal_actions(self, state):
        out = super().legal_actions(state)
        if state.phase == "step":
            out.append(TINY_GAME.LegalAction(TINY_GAME.Step(3), label="step 3"))
        return out


class _AcceptsAnUnlistedStep(TINY_GAME.TinyRace):
    def apply(self, state, action):
        if isinstance(action, TINY_GAME.Step) and action.by == 3 and state.phase == "step":
            return super().apply(state, TINY_GAME.Step(2)).__class__(
                state.players, state.target, tuple(p + (3 if i == state.turn else 0)
                                                   for i, p in enumerate(state.positions)),
                state.turn, "coin")
        return super().apply(state, action)


class _BreaksAnInvariant(TINY_GAME.TinyRace):
    def invariants(self, state):
        return ["the track is too short"] if max(state.positions) >= 2 else []


@pytest.mark.parametrize("broken,expected", [
    (_ListsAnIllegalStep(), "refused"),
    (_AcceptsAnUnlistedStep(), "not in legal_actions"),
    (_BreaksAnInvariant(), "invariant"),
])
def test_the_suite_catches_a_broken_game(broken, expected):
    setup = broken.example_setups()[0]
    errors = []
    for seed in range(40):
        errors += random_playout(broken, setup, random.Random(seed).randrange).errors
    assert any(expected in e for e in errors), errors[:5]
