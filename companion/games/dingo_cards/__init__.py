"""The Dingo card game (``dingo-cards``): a pure rules core the host feeds with what the table plays.

Rulebook: /shared/rules/dingo-cards.ja.txt; readings of its open points: docs/rules-dingo-cards.md.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import LegalAction, Outcome, SetupSpec, ToMove
from companion.games.dingo_cards.actions import (
    ACTION_TYPES,
    Action,
    Deal,
    Discard,
    Exchange,
    FirstDealer,
    FourAces,
    NewGame,
    NoHeart,
    Pass,
    Play,
    ShowDiamondAce,
    action_from_json,
)
from companion.games.dingo_cards.check import invariants
from companion.games.dingo_cards.describe import describe_action, describe_next
from companion.games.dingo_cards.legal import legal_actions, to_move
from companion.games.dingo_cards.options import SETUP_SPEC
from companion.games.dingo_cards.rules import apply, initial_state
from companion.games.dingo_cards.state import State, state_from_json


def outcome(s: State) -> Outcome | None:
    """Once over: the highest total wins (ties share), ranking by total, scores = totals."""
    if s.phase != "over":
        return None
    totals = s.totals
    levels = sorted(set(totals), reverse=True)
    ranking = tuple(tuple(i for i in range(len(totals)) if totals[i] == v) for v in levels)
    return Outcome(winners=ranking[0], ranking=ranking, scores=tuple(float(t) for t in totals))


class DingoCardsRules:
    """The ``GameModule`` of the Dingo card game (registered as ``"dingo-cards"``)."""

    name = "dingo-cards"
    title = "Dingo card game"
    scoring = "points"

    def setup_spec(self) -> SetupSpec:
        return SETUP_SPEC

    def initial_state(self, setup: Any) -> State:
        if isinstance(setup, dict):
            setup = action_from_json(setup)
        return initial_state(setup)

    def apply(self, state: State, action: Any) -> State:
        if isinstance(action, dict):
            action = action_from_json(action)
        return apply(state, action)

    def legal_actions(self, state: State) -> list[LegalAction]:
        return legal_actions(state)

    def to_move(self, state: State) -> ToMove:
        return to_move(state)

    def outcome(self, state: State) -> Outcome | None:
        return outcome(state)

    def describe_action(self, state: State, action: Any) -> str:
        if isinstance(action, dict):
            action = action_from_json(action)
        return describe_action(state, action)

    def describe_next(self, state: State) -> str:
        return describe_next(state)

    def action_from_json(self, data: Any) -> Action:
        return action_from_json(data)

    def state_from_json(self, data: Any) -> State:
        return state_from_json(data)

    def example_setups(self) -> list[dict[str, Any]]:
        names = ["Ana", "Ben", "Cleo", "Dev"]
        return [
            {"type": "new_game", "game": self.name, "players": names, "options": {"deals": 1}},
            {"type": "new_game", "game": self.name, "players": names, "options": {
                "deals": 2, "lone_wolf_card": "heart-player", "heart_without_wolf": "discards",
                "double_wolf": "not-allowed", "heart_ace_player_diamond": "may", "four_aces": "dealt",
                "right_exchange": "together", "discards_shown": "all", "wolf_order": "any-order"}},
            {"type": "new_game", "game": self.name, "players": names, "options": {
                "deals": 1, "lone_wolf_card": "discards", "heart_without_wolf": "penalty"}},
            {"type": "new_game", "game": self.name, "players": names, "options": {}},
        ]

    def invariants(self, state: State) -> list[str]:
        return invariants(state)


__all__ = ["ACTION_TYPES", "Action", "Deal", "DingoCardsRules", "Discard", "Exchange", "FirstDealer",
           "FourAces", "NewGame", "NoHeart", "Pass", "Play", "ShowDiamondAce", "State", "action_from_json",
           "apply", "describe_action", "describe_next", "initial_state", "invariants", "legal_actions",
           "outcome", "state_from_json", "to_move"]
