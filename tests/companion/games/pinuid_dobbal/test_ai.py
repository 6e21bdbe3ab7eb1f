"""Computer players and hints: legal, deterministic for a seed, and they take a win in one turn."""

from __future__ import annotations

import random

import pytest

from companion.games.pinuid_dobbal import PinuidDobbalRules, Roll, apply, legal_actions
from companion.games.pinuid_dobbal.ai import STRENGTHS, Search, ai_action, greedy_action, hint, mcts_action

RULES = PinuidDobbalRules()


def _after_roll(dice, **options):
    s = RULES.initial_state({"type": "new_game", "players": ["Anna", "Bob"], "options": options})
    return apply(s, Roll(dice))


@pytest.mark.parametrize("strength", STRENGTHS)
def test_every_strength_gives_a_legal_action(strength):
    s = _after_roll((1, 2, 3))
    a = ai_action(s, strength, random.Random(1), 60)
    assert a in legal_actions(s)


def test_the_search_is_deterministic_for_a_seed_and_budget():
    s = _after_roll((2, 3, 1))
    assert ai_action(s, "mcts", random.Random(5), 150) == ai_action(s, "mcts", random.Random(5), 150)


def test_the_search_runs_in_slices_and_counts_iterations():
    search = Search(_after_roll((1, 3, 2)), random.Random(2))
    search.run(30)
    search.run(20)
    assert search.iterations == 50 and sum(n for _, n, _ in search.ranking()) == 50


def test_no_player_decides_a_roll():
    s = RULES.initial_state({"type": "new_game", "players": ["Anna", "Bob"]})
    with pytest.raises(ValueError, match="no player decides"):
        ai_action(s, "greedy", random.Random(1))
    with pytest.raises(ValueError, match="unknown strength"):
        ai_action(_after_roll((1, 2, 3)), "perfect", random.Random(1))


def _one_turn_from_winning(h):
    s = h.position("b6 f1", "e7 f7 d5", "c6")
    return h.roll(s, 1, 1, 1)


def test_greedy_and_search_find_the_win_in_one_turn(h):
    s = _one_turn_from_winning(h)
    picks = (lambda t: greedy_action(t, random.Random(1)), lambda t: mcts_action(t, random.Random(1), 300))
    for pick in picks:
        t = s
        while t.phase == "move" and t.current == 0:
            t = _apply_raw(t, pick(t))
        assert t.winner == 0


def _apply_raw(s, raw):
    from companion.games.pinuid_dobbal.ai import apply_raw

    return apply_raw(s, raw)


def test_hint_names_the_best_move_and_its_alternatives(h):
    s = _one_turn_from_winning(h)
    out = hint(s, random.Random(3), 200)
    assert out["action"]["type"] in ("move", "remove") and out["text"].startswith("Best: Anna")
    assert out["options"] and all(0 <= o["win_rate"] <= 1 for o in out["options"])
    assert RULES.action_from_json(out["action"]) in legal_actions(s)


def test_greedy_beats_random_over_a_few_games():
    from companion.bench.pinuid import play_match

    res = play_match("greedy", "random", games=4, seed=11, budget=50)
    assert res["wins"] == [4, 0] and res["unfinished"] == 0


def test_wall_clock_player_stops_when_the_time_is_up():
    from companion.players import best_move, computer_action

    ticks = iter(range(1000))
    clock = lambda: next(ticks) * 0.01  # noqa: E731 - a fake clock: 10 ms per look
    s = _after_roll((1, 2, 3))
    a = computer_action("pinuid-dobbal", s, "mcts", 0.05, random.Random(1), clock)
    assert a in legal_actions(s)
    out = best_move("pinuid-dobbal", s, 0.05, random.Random(1), clock)
    assert 0 < out["iterations"] <= 32 * 10 and out["text"].startswith("Best: Anna")
    with pytest.raises(ValueError, match="no computer player"):
        computer_action("dingo-disc", s)


def test_the_pruned_win_search_agrees_with_the_exhaustive_look_at_the_turn():
    import math

    from companion.games.pinuid_dobbal.ai import WIN, _turn_leaves, apply_raw, raw_actions, winning_action

    rng = random.Random(4)
    checked = wins = 0
    for setup in RULES.example_setups():
        for _ in range(3):
            s = RULES.initial_state(setup)
            while s.phase != "over" and s.turn < 80:
                if s.phase == "move" and s.step == 1:
                    best = [-math.inf]
                    _turn_leaves(s, s.options.board(), s.current, s.turn, best)
                    found = winning_action(s)
                    assert (found is not None) == (best[0] >= WIN)
                    wins += found is not None
                    checked += 1
                s = apply_raw(s, rng.choice(raw_actions(s)))
    assert checked > 200 and wins > 5
