"""Property tests over random Dingo card games (hypothesis chooses the options and the random player).

Cards are conserved (each of the 52 in exactly one place, the hidden ones matching the hand sizes),
totals are the sum of the deals, replaying the logged JSON actions rebuilds every state, states round
trip through JSON, and ``legal_actions`` is exactly what ``apply`` accepts.
"""

from __future__ import annotations

import json
import random
from itertools import permutations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.base import IllegalAction
from companion.games.dingo_cards import (
    Deal,
    DingoCardsRules,
    Discard,
    Exchange,
    FirstDealer,
    FourAces,
    NoHeart,
    Pass,
    Play,
    ShowDiamondAce,
    State,
    action_from_json,
    apply,
    initial_state,
    invariants,
    legal_actions,
    state_from_json,
    to_move,
)
from companion.games.dingo_cards.cards import ALL_CARDS, HAND_CARDS
from companion.games.dingo_cards.options import OPTIONS

RULES = DingoCardsRules()
OPTION_SETS = st.fixed_dictionaries({}, optional={o.name: st.sampled_from(o.choices) for o in OPTIONS
                                                  if o.name != "deals"}).map(lambda d: {**d, "deals": 2})
SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play_game(options: dict, seed: int) -> tuple[list[dict], list[State]]:
    """A random game: the JSON log (setup first) and the state after each entry."""
    rng = random.Random(seed)
    setup = {"type": "new_game", "game": "dingo-cards", "players": ["Ana", "Ben", "Cleo", "Dev"],
             "options": options}
    s = RULES.initial_state(setup)
    log, states = [setup], [s]
    while s.phase != "over":
        legal = legal_actions(s)
        assert legal, f"no legal action in phase {s.phase}"
        # a random player that passes less often than it plays (hunts with wolves happen)
        plays = [la for la in legal if not isinstance(la.action, Pass | FourAces)]
        la = rng.choice(plays if plays and rng.random() < 0.6 else legal)
        s = apply(s, la.action)
        log.append(json.loads(json.dumps(la.action.to_json())))
        states.append(s)
        assert len(log) < 2000
    return log, states


@SETTINGS
@given(OPTION_SETS, st.integers(0, 10**6))
def test_cards_are_conserved_every_card_in_exactly_one_place(options, seed):
    _, states = play_game(options, seed)
    for s in states:
        assert invariants(s) == [], invariants(s)
        if s.deal_no:
            hidden = s.cards_in_hands()
            assert sum(s.hands) == len(hidden) and set(hidden) <= set(HAND_CARDS)
            placed = len(s.stack) + len(s.discards) + len(s.table) + sum(map(len, s.points + s.penalties))
            assert placed + len(hidden) == len(ALL_CARDS)


@SETTINGS
@given(OPTION_SETS, st.integers(0, 10**6))
def test_totals_are_the_sum_of_the_deals(options, seed):
    _, states = play_game(options, seed)
    final = states[-1]
    assert len(final.deal_scores) == 2
    assert final.totals == tuple(a + b for a, b in zip(*final.deal_scores, strict=True))
    result = RULES.outcome(final)
    assert result is not None and result.scores == tuple(float(t) for t in final.totals)
    # each deal's score is what its piles held at its end
    ends = [states[i] for i in range(1, len(states)) if states[i - 1].deal_open and not states[i].deal_open]
    assert [e.current_scores for e in ends] == list(final.deal_scores)


@SETTINGS
@given(OPTION_SETS, st.integers(0, 10**6))
def test_replaying_the_log_rebuilds_every_state_and_json_round_trips(options, seed):
    log, states = play_game(options, seed)
    s = initial_state(action_from_json(log[0]))
    assert s == states[0]
    for entry, expected in zip(log[1:], states[1:], strict=True):
        s = apply(s, action_from_json(entry))
        assert s == expected
        assert state_from_json(json.loads(json.dumps(s.to_json()))) == s
        assert action_from_json(entry).to_json() == entry


def candidates(s: State) -> list:
    """Many actions, legal or not, to compare with ``legal_actions``."""
    out: list = []
    groups = [(c,) for c in ALL_CARDS] + [p for r in ("10", "A") for p in permutations(("C" + r, "S" + r))]
    groups += [("CA", "SA", "DA"), ("SA", "CA", "DA"), ("CA", "DA"), ("SA", "DA"), ("DA", "CA")]
    for seat in range(4):
        out += [FirstDealer(seat=seat), Deal(seat=seat), FourAces(seat=seat), Exchange(seat=seat),
                Pass(seat=seat), NoHeart(seat=seat), ShowDiamondAce(seat=seat)]
        out += [Discard(seat=seat, card=c) for c in ALL_CARDS]
        out += [Play(seat=seat, cards=g) for g in groups]
        if s.rank:
            out += [Play(seat=seat, cards=("C" + s.rank, "S" + s.rank)),
                    Play(seat=seat, cards=("S" + s.rank, "C" + s.rank))]
    return out


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPTION_SETS, st.integers(0, 10**6))
def test_legal_actions_are_exactly_what_apply_accepts(options, seed):
    _, states = play_game(options, seed)
    for s in states[::7] + [states[-1]]:
        legal = [la.action for la in legal_actions(s)]
        assert len(set(legal)) == len(legal)
        for a in set(candidates(s)) | set(legal):
            try:
                apply(s, a)
                accepted = True
            except IllegalAction:
                accepted = False
            assert accepted == (a in legal), (s.phase, a)
        seats = set(to_move(s).seats)
        assert all(getattr(a, "seat", None) in seats for a in legal if not isinstance(a, FourAces))


def _cases(before: State, action, after: State) -> list[str]:
    """The scoring cases one entry triggered (to check that random play reaches all of them)."""
    cases = []
    if isinstance(action, NoHeart):
        cases.append("no heart")
    if isinstance(action, FourAces):
        cases.append("four aces")
    if isinstance(action, ShowDiamondAce):
        cases.append("diamond ace shown")
    if isinstance(action, Play) and "DA" in action.cards:
        cases.append("diamond ace played")
    if isinstance(action, Play) and before.phase == "hunt" and len(action.cards) == 2:
        cases.append("one player both wolves")
    if before.phase == "hunt" and after.rank != before.rank and not isinstance(action, NoHeart):
        played = len(before.table) + (len(action.cards) if isinstance(action, Play) else 0) - 1
        cases.append(("no wolf", "one wolf", "two wolves")[played])
    if before.deal_open and not after.deal_open and before.four_aces is None:
        heart_ace_alone = any("HA" in p for p in after.penalties)
        cases.append("heart ace alone" if heart_ace_alone else "aces score")
    return cases


def test_a_few_hundred_random_games_finish_and_reach_every_scoring_case():
    seen: dict[str, int] = {}
    for seed in range(200):
        options = {o.name: random.Random(seed * 31 + i).choice(o.choices) for i, o in enumerate(OPTIONS)}
        options["deals"] = 1
        log, states = play_game(options, seed)
        final = states[-1]
        assert final.phase == "over" and invariants(final) == []
        for before, entry, after in zip(states, log[1:], states[1:], strict=False):
            for case in _cases(before, action_from_json(entry), after):
                seen[case] = seen.get(case, 0) + 1
    print(dict(sorted(seen.items())))
    assert set(seen) == {"no heart", "four aces", "diamond ace shown", "diamond ace played", "no wolf",
                         "one wolf", "two wolves", "one player both wolves", "heart ace alone", "aces score"}
