"""Perft: the move generator's counts from the start position match the golden file, and an
independent brute-force generator (every conceivable action tried through the checked ``apply``)
agrees with the fast one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.games.base import IllegalAction
from companion.games.pinuid_dobbal import PinuidDobbalRules, PutBack, Remove, apply, legal_actions
from companion.games.pinuid_dobbal.actions import Move
from companion.games.pinuid_dobbal.perft import divide, perft, perft_turns

RULES = PinuidDobbalRules()
GOLDEN = json.loads((Path(__file__).parent / "golden" / "perft.json").read_text())["positions"]


def _start(options):
    return RULES.initial_state({"type": "new_game", "players": ["Anna", "Bob"], "options": options})


@pytest.mark.parametrize("case", GOLDEN, ids=[json.dumps(c["options"]) for c in GOLDEN])
def test_perft_golden_counts_depths_1_to_4(case):
    s = _start(case["options"])
    for depth in range(1, 5):
        if case["plies"][str(depth)] > 100_000:  # the larger ones: `bench pinuid --perft N`
            break
        assert perft(s, depth) == case["plies"][str(depth)], depth


@pytest.mark.parametrize("case", GOLDEN, ids=[json.dumps(c["options"]) for c in GOLDEN])
def test_perft_golden_count_of_whole_first_turns(case):
    assert perft_turns(_start(case["options"]), 1) == case["turns"]["1"]


def test_perft_divide_adds_up():
    s = _start({})
    d = divide(s, 3)
    assert len(d) == 27 and sum(d.values()) == perft(s, 3)


def _brute_actions(s):
    """Every action that ``apply`` accepts, found by trying all of them (no use of the generator)."""
    if s.phase != "move":
        return sorted(json.dumps(a.to_json()) for a in legal_actions(s))
    names = s.options.board().names
    found = []
    for frm in names:
        for to in names:
            if frm != to:
                cands = [Move(frm, to)]
            else:
                cands = [Remove(frm), PutBack(frm)]
            for a in cands:
                try:
                    apply(s, a)
                except IllegalAction:
                    continue
                found.append(json.dumps(a.to_json()))
    return sorted(found)


def _brute_perft(s, depth):
    if depth == 0 or s.phase == "over":
        return 1
    total = 0
    for text in _brute_actions(s):
        total += _brute_perft(apply(s, RULES.action_from_json(json.loads(text))), depth - 1)
    return total


@pytest.mark.parametrize("case", GOLDEN[:1] + GOLDEN[2:3], ids=["default", "chosen-die"])
def test_perft_brute_force_agrees_depths_1_to_2(case):
    s = _start(case["options"])
    assert _brute_perft(s, 1) == case["plies"]["1"]
    assert _brute_perft(s, 2) == case["plies"]["2"]


def test_every_listed_action_is_accepted_and_nothing_else_in_sampled_positions():
    import random

    rng = random.Random(3)
    for case in GOLDEN:
        s = _start(case["options"])
        for _ in range(16):
            if s.phase == "over":
                break
            listed = sorted(json.dumps(a.to_json()) for a in legal_actions(s))
            if s.phase == "move":
                assert listed == _brute_actions(s)
            s = apply(s, rng.choice(legal_actions(s)))
