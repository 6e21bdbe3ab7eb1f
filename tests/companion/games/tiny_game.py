"""A tiny test-only game module ("tiny-race"): the generic suite and the page's tests play it.

Two or three players race to ``target``: on their turn a player steps 1 or 2; then a coin is
tossed (chance): heads moves them one more. The first to reach the target wins; scores are the
positions (scoring "points"). Load it with :func:`load` (the tests use importlib mode).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from companion.games.base import (
    CHANCE,
    ActionFormatError,
    IllegalAction,
    LegalAction,
    Outcome,
    SetupOption,
    SetupSpec,
    StateFormatError,
    ToMove,
)


@dataclass(frozen=True)
class NewGame:
    players: tuple[str, ...]
    options: tuple[tuple[str, Any], ...] = ()
    type: str = "new_game"

    def to_json(self) -> dict[str, Any]:
        return {"type": "new_game", "game": "tiny-race", "players": list(self.players),
                "options": dict(self.options)}


@dataclass(frozen=True)
class Step:
    by: int
    type: str = "step"

    def to_json(self) -> dict[str, Any]:
        return {"type": "step", "by": self.by}


@dataclass(frozen=True)
class Coin:
    heads: bool
    type: str = "coin"

    def to_json(self) -> dict[str, Any]:
        return {"type": "coin", "heads": self.heads}


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    target: int
    positions: tuple[int, ...]
    turn: int = 0
    phase: str = "step"  # step | coin | over

    def to_json(self) -> dict[str, Any]:
        return {"game": "tiny-race", "players": list(self.players), "target": self.target,
                "positions": list(self.positions), "turn": self.turn, "phase": self.phase}


def _field(data: dict, key: str, kind: type, where: str, cls: type = ActionFormatError) -> Any:
    if key not in data:
        raise cls(f"{where}: missing field {key!r}")
    value = data[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise cls(f"{where}.{key} must be a whole number, got {value!r}")
    if kind is not int and not isinstance(value, kind):
        raise cls(f"{where}.{key} must be {kind.__name__}, got {value!r}")
    return value


class TinyRace:
    name = "tiny-race"
    title = "Tiny race"
    scoring = "points"

    def setup_spec(self) -> SetupSpec:
        return SetupSpec(2, 3, (SetupOption("target", 4, (4, 6), "the square to reach"),))

    def action_from_json(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise ActionFormatError("an action must be a JSON object")
        kind = data.get("type")
        known = {"new_game": {"type", "game", "players", "options"}, "step": {"type", "by"},
                 "coin": {"type", "heads"}}
        if kind not in known:
            raise ActionFormatError(f"unknown action type {kind!r}; known: {', '.join(known)}")
        extra = set(data) - known[kind]
        if extra:
            raise ActionFormatError(f"{kind}: unknown field {sorted(extra)[0]!r}")
        if kind == "new_game":
            players = _field(data, "players", list, kind)
            options = data.get("options", {})
            if not isinstance(options, dict) or not all(isinstance(p, str) for p in players):
                raise ActionFormatError("new_game: players must be names and options an object")
            return NewGame(tuple(players), tuple(sorted(options.items())))
        if kind == "step":
            return Step(_field(data, "by", int, kind))
        return Coin(_field(data, "heads", bool, kind))

    def initial_state(self, setup: Any) -> State:
        if isinstance(setup, dict):
            setup = self.action_from_json(setup)
        if not isinstance(setup, NewGame):
            raise IllegalAction(setup, "setup", "a game starts with new_game")
        if not 2 <= len(setup.players) <= 3:
            raise IllegalAction(setup, "players-2-to-3", f"2 or 3 players, got {len(setup.players)}")
        options = dict(setup.options)
        for key in options:
            if key != "target":
                raise IllegalAction(setup, "setup", f"unknown option {key!r} (options: target)")
        target = options.get("target", 4)
        if target not in (4, 6):
            raise IllegalAction(setup, "setup", f"option target must be 4 or 6, got {target!r}")
        return State(setup.players, target, (0,) * len(setup.players))

    def apply(self, state: State, action: Any) -> State:
        if state.phase == "over":
            raise IllegalAction(action, "game-over", "the game is over")
        if isinstance(action, Step):
            if state.phase != "step":
                raise IllegalAction(action, "coin-first", "toss the coin first")
            if action.by not in (1, 2):
                raise IllegalAction(action, "step-1-or-2", f"step 1 or 2, got {action.by}")
            pos = list(state.positions)
            pos[state.turn] += action.by
            over = pos[state.turn] >= state.target
            return replace(state, positions=tuple(pos), phase="over" if over else "coin")
        if isinstance(action, Coin):
            if state.phase != "coin":
                raise IllegalAction(action, "step-first", "step first")
            pos = list(state.positions)
            pos[state.turn] += 1 if action.heads else 0
            if pos[state.turn] >= state.target:
                return replace(state, positions=tuple(pos), phase="over")
            return replace(state, positions=tuple(pos), phase="step",
                           turn=(state.turn + 1) % len(state.players))
        raise IllegalAction(action, "unknown-action", f"not a tiny-race action: {action!r}")

    def legal_actions(self, state: State) -> list[LegalAction]:
        who = state.players[state.turn]
        if state.phase == "step":
            return [LegalAction(Step(k), label=f"{who}: step {k}") for k in (1, 2)]
        if state.phase == "coin":
            return [LegalAction(Coin(True), True, 0.5, "Heads"), LegalAction(Coin(False), True, 0.5, "Tails")]
        return []

    def to_move(self, state: State) -> ToMove:
        return ToMove(() if state.phase == "over" else (CHANCE,) if state.phase == "coin" else (state.turn,))

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != "over":
            return None
        by_pos = sorted({*state.positions}, reverse=True)
        ranking = tuple(tuple(s for s, p in enumerate(state.positions) if p == v) for v in by_pos)
        return Outcome(ranking[0], ranking, tuple(float(p) for p in state.positions))

    def describe_action(self, state: State, action: Any) -> str:
        who = state.players[state.turn]
        if isinstance(action, Step):
            return f"{who} steps {action.by}"
        if isinstance(action, Coin):
            return f"Coin: {'heads, ' + who + ' moves one more' if action.heads else 'tails'}"
        return f"New race to {dict(action.options).get('target', 4)}: {', '.join(action.players)}"

    def describe_next(self, state: State) -> str:
        who = state.players[state.turn]
        if state.phase == "over":
            return f"Game over: {who} wins"
        return f"{who}: step 1 or 2" if state.phase == "step" else "Toss the coin"

    def state_from_json(self, data: Any) -> State:
        if not isinstance(data, dict) or data.get("game") != "tiny-race":
            raise StateFormatError("state: not a tiny-race state")
        return State(tuple(_field(data, "players", list, "state", StateFormatError)),
                     _field(data, "target", int, "state", StateFormatError),
                     tuple(_field(data, "positions", list, "state", StateFormatError)),
                     _field(data, "turn", int, "state", StateFormatError),
                     _field(data, "phase", str, "state", StateFormatError))

    def example_setups(self) -> list[dict[str, Any]]:
        return [{"type": "new_game", "game": self.name, "players": ["Ann", "Bob"], "options": {}},
                {"type": "new_game", "game": self.name, "players": ["Ann", "Bob", "Cy"],
                 "options": {"target": 6}}]

    def invariants(self, state: State) -> list[str]:
        out = []
        if not 0 <= state.turn < len(state.players):
            out.append(f"turn {state.turn} is not a seat")
        if any(not 0 <= p <= state.target + 2 for p in state.positions):
            out.append(f"a position is off the track: {state.positions}")
        return out


def load(path: Path | None = None) -> Any:
    """This module, loaded by file path (test modules cannot import each other in importlib mode)."""
    import sys

    if "tiny_game" in sys.modules:
        return sys.modules["tiny_game"]
    path = path or Path(__file__)
    spec = importlib.util.spec_from_file_location("tiny_game", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["tiny_game"] = module
    spec.loader.exec_module(module)
    return module
