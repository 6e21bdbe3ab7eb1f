"""Pinuid Dobbal: the rules core (pure), registered as ``"pinuid-dobbal"``.

See docs/rules-pinuid-dobbal.md for the readings of the rulebook.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from companion.games.base import CHANCE, LegalAction, Outcome, SetupSpec, ToMove
from companion.games.pinuid_dobbal.actions import (
    GAME,
    Action,
    Assign,
    Move,
    NewGame,
    PutBack,
    Remove,
    Roll,
    action_from_json,
)
from companion.games.pinuid_dobbal.board import squares_of
from companion.games.pinuid_dobbal.describe import describe_action, describe_next, label
from companion.games.pinuid_dobbal.rules import PINS, alternatives, apply, initial_state, step_moves
from companion.games.pinuid_dobbal.state import OPTIONS, PHASES, State, state_from_json


def legal_actions(s: State) -> list[Action]:
    """Every legal action now (typed), chance rolls included; [] once the game is over."""
    if s.phase == "roll":
        f = s.options.faces
        return [Roll(d) for d in product(range(1, f + 1), repeat=3)]
    if s.phase == "assign":
        return [Assign(v) for v in sorted(set(s.dice))]
    if s.phase != "move":
        return []
    b = s.options.board()
    nm = b.names
    out: list[Action] = [Move(nm[f], nm[t]) for f, t in step_moves(s, b)]
    if s.double:
        removes, backs = alternatives(s, b)
        out += [Remove(nm[q]) for q in removes]
        out += [PutBack(nm[q]) for q in backs]
    return out


class PinuidDobbalRules:
    """The ``GameModule`` of Pinuid Dobbal."""

    name = GAME
    title = "Pinuid Dobbal"
    scoring = "winner"

    def setup_spec(self) -> SetupSpec:
        return SetupSpec(2, 2, OPTIONS)

    def initial_state(self, setup: Any) -> State:
        if isinstance(setup, dict):
            setup = action_from_json(setup)
        return initial_state(setup)

    def apply(self, state: State, action: Any) -> State:
        return apply(state, action)

    def action_from_json(self, data: Any) -> Action:
        return action_from_json(data)

    def state_from_json(self, data: Any) -> State:
        return state_from_json(data)

    def legal_actions(self, state: State) -> list[LegalAction]:
        acts = legal_actions(state)
        if state.phase == "roll":
            p = 1.0 / len(acts)
            return [LegalAction(a, True, p, label(state, a)) for a in acts]
        return [LegalAction(a, False, None, label(state, a)) for a in acts]

    def to_move(self, state: State) -> ToMove:
        if state.phase == "over":
            return ToMove(())
        if state.phase == "roll":
            return ToMove((CHANCE,))
        return ToMove((state.current,))

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != "over" or state.winner is None:
            return None
        w = state.winner
        return Outcome(winners=(w,), ranking=((w,), (1 - w,)))

    def describe_action(self, state: State, action: Any) -> str:
        return describe_action(state, action)

    def describe_next(self, state: State) -> str:
        return describe_next(state)

    def example_setups(self) -> list[dict[str, Any]]:
        base = {"type": "new_game", "game": GAME, "players": ["Anna", "Bob"]}
        return [
            {**base, "options": {}},
            {**base, "options": {"width": 7, "height": 8, "opening": 4, "move_diagonals": False,
                                 "dice": "1-6"}},
            {**base, "options": {"play_pin_die": "chosen", "double_normal_turn": False,
                                 "removal_limit": "3-off-at-once", "win_needs_all_moves": False}},
            {**base, "options": {"height": 5, "removal_limit": "3-total", "play_pin_own_back_line": False,
                                 "opening": 1, "adjacent_diagonals": False}},
        ]

    def invariants(self, state: State) -> list[str]:
        return invariants(state)


def invariants(s: State) -> list[str]:
    """What is wrong with ``s``: pins off the board or on one square, pins not conserved, limits broken."""
    errs = []
    b = s.options.board()
    full = (1 << b.size) - 1
    p0, p1 = s.pins
    if (p0 | p1) & ~full or not 0 <= s.play < b.size:
        errs.append("a pin is off the board")
    if p0 & p1 or (p0 | p1) >> s.play & 1:
        errs.append("two pins share a square")
    for seat in (0, 1):
        on = len(squares_of(s.pins[seat]))
        if on + s.off_board(seat) != PINS:
            errs.append(f"seat {seat}: {on} pins on the board + {s.off_board(seat)} removed != {PINS}")
        if s.off_board(seat) < 0:
            errs.append(f"seat {seat}: more pins put back than removed")
    lim = s.options.removal_limit
    if lim == "3-each" and max(s.removed) > 3 or lim == "3-total" and sum(s.removed) > 3:
        errs.append(f"more removals than the limit {lim}")
    if lim == "3-off-at-once" and max(s.off_board(0), s.off_board(1)) > 3:
        errs.append("more than 3 pins of a player off the board")
    if s.phase not in PHASES:
        errs.append(f"unknown phase {s.phase!r}")
    if s.phase == "move" and not (1 <= s.step <= 3 and len(s.dice) == 3):
        errs.append("a move phase needs a step 1..3 and three dice")
    if s.phase == "over" and s.winner is None:
        errs.append("a finished game without a winner")
    if s.phase != "over" and s.winner is not None:
        errs.append("a winner before the game is over")
    if any(not 1 <= d <= s.options.faces for d in s.dice):
        errs.append("a die shows a face the dice do not have")
    return errs


__all__ = ["GAME", "Action", "Assign", "Move", "NewGame", "PinuidDobbalRules", "PutBack", "Remove", "Roll",
           "State",
           "action_from_json", "apply", "initial_state", "invariants", "legal_actions",
           "state_from_json"]
