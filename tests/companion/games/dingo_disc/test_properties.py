"""Property tests over random games (hypothesis drives the random player of ``bench rules``)."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.bench.rules import Chaos, next_action, random_game
from companion.games.base import IllegalAction
from companion.games.dingo_disc import (
    ACTION_TYPES,
    COLOURS,
    SIZES,
    Match,
    NewGame,
    State,
    action_from_json,
    apply,
    state_from_json,
)

NAMES = ("Anna", "Bob", "Chloe", "Dev", "Emma", "Farid")
OPTIONS = st.fixed_dictionaries({}, optional={
    "draw_window": st.sampled_from(["round", "cycle"]),
    "last_pawn_gift": st.sampled_from(["keep", "give"]),
    "placed_fell_default": st.sampled_from(["if_size_fell", "no"]),
    "tip_attempt": st.sampled_from(["retry", "pass"]),
})
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_invariants(s: State) -> None:
    """Pawns are conserved and no count is negative."""
    each = s.start_counts[0]
    for i in range(3):
        total = sum(sup[i] for sup in s.supply) + s.disc[i] + s.in_hand[i]
        assert total == each * s.n, (SIZES[i], total)
        assert all(sup[i] >= 0 for sup in s.supply) and s.disc[i] >= 0 and s.in_hand[i] >= 0
        assert sum(1 for p in s.disc_pawns if p.size == i) == s.disc[i]
    assert s.attempt in (0, 1, 2)
    if s.phase in ("penalty", "place"):  # a player on turn holds pawns (in review the last may be out)
        assert s.current is not None and sum(s.supply[s.current]) > 0
    for f in s.finishing:
        assert sum(s.supply[f.seat]) == 0


def _random_any_action(rng: random.Random, s: State):
    """An arbitrary action of any type with plausible random fields (often illegal)."""
    cls = rng.choice(ACTION_TYPES)
    data: dict = {"type": cls.type}
    for name, (kind, required, nullable) in cls.schema.items():
        if not required and rng.random() < 0.4:
            continue
        if nullable and rng.random() < 0.2:
            data[name] = None
        elif kind == "int":
            data[name] = rng.randint(-1, 7)
        elif kind == "size":
            data[name] = rng.choice(SIZES)
        elif kind == "colour":
            data[name] = rng.choice(COLOURS)
        elif kind == "bool":
            data[name] = rng.random() < 0.5
        elif kind == "counts":
            data[name] = {size: rng.randint(0, 2) for size in SIZES}
        elif kind == "float":
            data[name] = rng.uniform(-150, 150)
        elif kind == "names":
            data[name] = list(NAMES[:2])
        elif kind == "options":
            data[name] = {}
        elif kind == "str":
            data[name] = "dingo-disc"
    return action_from_json(data)


@settings(SETTINGS, max_examples=60)
@given(rnd=st.randoms(use_true_random=False), players=st.integers(2, 6), version=st.sampled_from([1, 2]),
       options=OPTIONS)
def test_random_games_conserve_pawns_and_end(rnd, players, version, options):
    rng = random.Random(rnd.random())
    setup = NewGame(version=version, players=NAMES[:players], options=tuple(sorted(options.items())))
    m = Match(setup)
    chaos = Chaos()
    steps = 0
    while m.state.phase != "over":
        steps += 1
        assert steps < 5000, "game did not end"
        s = m.state
        if rng.random() < 0.3:  # an arbitrary action: illegal ones change nothing, legal ones keep invariants
            action = _random_any_action(rng, s)
            try:
                m.apply(action)
            except IllegalAction as err:
                assert err.action is action and err.rule and str(err).startswith(action.type + ":")
                assert m.state is s
            else:
                check_invariants(m.state)
            continue
        m.apply(next_action(rng, s, chaos, steps > chaos.budget))
        check_invariants(m.state)
    final = m.state
    assert len(final.finishing) == players
    assert final.draw or final.winner == final.finishing[0].seat
    # replaying the history rebuilds an identical state (also through JSON)
    assert Match.replay(m.history).state == final
    again = Match.from_json(json.loads(json.dumps(m.to_json())))
    assert again.state == final and again.history == m.history


@SETTINGS
@given(rnd=st.randoms(use_true_random=False), players=st.integers(2, 6), version=st.sampled_from([1, 2]))
def test_undo_after_apply_gives_back_the_state_before(rnd, players, version):
    rng = random.Random(rnd.random())
    _, actions = random_game(rng, players, version)
    m = Match(actions[0])
    rebuild_at = set(rng.sample(range(len(actions) - 1), 3))
    for i, action in enumerate(actions[1:]):
        before = m.state
        m.apply(action)
        if i % 5 == 0 or i in rebuild_at:
            assert m.undo() is action
            assert m.state == before
            if i in rebuild_at:  # undo is exact: the shortened history rebuilds the same state
                assert Match.replay(m.history).state == before
            m.apply(action)


@SETTINGS
@given(rnd=st.randoms(use_true_random=False), players=st.integers(2, 6), version=st.sampled_from([1, 2]),
       options=OPTIONS)
def test_actions_and_states_round_trip_through_json(rnd, players, version, options):
    rng = random.Random(rnd.random())
    _, actions = random_game(rng, players, version, options)
    s = None
    for i, action in enumerate(actions):
        text = json.dumps(action.to_json())
        assert action_from_json(json.loads(text)) == action
        s = Match(action).state if s is None else apply(s, action)
        if i % 11 == 0 or (s.last_fall is not None and i % 3 == 0):
            js = json.loads(json.dumps(s.to_json()))
            back = state_from_json(js)
            assert back == s
            assert back.to_json() == js
