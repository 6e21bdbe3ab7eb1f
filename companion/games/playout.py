"""Random games over any game module, and the checks the generic game suite makes while playing them.

Used by ``tests/companion/games/test_every_game.py`` and ``dingo-companion play --random``. The
randomness comes in as a ``random.Random`` (or any chooser), never from here.

Near misses: actions *not* in ``legal_actions`` built from the ones that are (one field changed:
a number one up or down, a flag flipped, another value seen for that field, a seat out of range)
and from actions legal in earlier states. A game must refuse each (``IllegalAction``, or
``ActionFormatError`` when parsing it) and leave the state as it was, unless the near miss is an
alias of a listed action (it gives exactly the state a listed action gives). Fields a game marks
free in its optional ``free_fields`` mapping (``{action type: field names, or None for every
field}``: measured values such as a sensed position) are left out of the comparison.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import ActionFormatError, IllegalAction
from companion.games.match import GameMatch

Chooser = Callable[[int], int]
"""``choose(n)`` -> an index in ``range(n)`` (``random.Random.randrange``, or a hypothesis draw)."""


def free_fields(rules: Any) -> Mapping[str, frozenset[str] | None]:
    """The game's ``free_fields`` (empty when it declares none)."""
    return getattr(rules, "free_fields", None) or {}


def action_key(rules: Any, data: dict[str, Any]) -> str | None:
    """A comparable key of an action JSON without its free fields; None if every field is free."""
    free = free_fields(rules)
    kind = data.get("type")
    if kind in free and free[kind] is None:
        return None
    drop = free.get(kind) or frozenset()
    return json.dumps({k: v for k, v in data.items() if k not in drop}, sort_keys=True, default=str)


def _mutations(value: Any, seen: list[Any], players: int) -> list[Any]:
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return sorted({value - 1, value + 1, -1, players, 99} - {value})
    if isinstance(value, float):
        return [value + 1.0, -value - 1.0]
    if isinstance(value, str):
        return [s for s in seen if s != value] + ["no-such-value"]
    if value is None:
        return [0, "no-such-value"]
    if isinstance(value, list):
        return [value[:-1], [*value, value[-1]]] if value else [[0]]
    if isinstance(value, dict):
        return [{k: _mutations(v, [], players)[0] for k, v in value.items()}] if value else []
    return []


class NearMisses:
    """Builds near misses (see the module docstring) from the legal actions of the states seen so far."""

    def __init__(self, rules: Any, players: int) -> None:
        """For one game of ``rules`` with ``players`` seats."""
        self.rules = rules
        self.players = players
        self.pool: list[dict[str, Any]] = []
        self._pool_keys: set[str] = set()
        self._values: dict[tuple[str, str], list[Any]] = {}

    def remember(self, legal: list[dict[str, Any]]) -> None:
        """Add a state's legal action JSONs to the pool (later near misses come from them too)."""
        for a in legal:
            key = json.dumps(a, sort_keys=True, default=str)
            if key in self._pool_keys:
                continue
            self._pool_keys.add(key)
            self.pool.append(a)
            for k, v in a.items():
                if k != "type" and isinstance(v, str):
                    seen = self._values.setdefault((str(a.get("type")), k), [])
                    if v not in seen:
                        seen.append(v)

    def one(self, legal: list[dict[str, Any]], choose: Chooser, tries: int = 12) -> dict[str, Any] | None:
        """One near miss of ``legal`` (None if none was found in ``tries`` attempts)."""
        keys = {action_key(self.rules, a) for a in legal}
        free = free_fields(self.rules)
        for _ in range(tries):
            if self.pool and (not legal or choose(3) == 0):
                candidate = self.pool[choose(len(self.pool))]
            elif legal:
                a = legal[choose(len(legal))]
                fields = [k for k in a if k != "type" and k not in (free.get(a.get("type")) or ())]
                if not fields:
                    continue
                k = fields[choose(len(fields))]
                options = _mutations(a[k], self._values.get((str(a.get("type")), k), []), self.players)
                if not options:
                    continue
                candidate = {**a, k: options[choose(len(options))]}
            else:
                return None
            key = action_key(self.rules, candidate)
            if key is not None and key not in keys:
                return candidate
        return None


def refusal_problem(rules: Any, state: Any, data: dict[str, Any], legal: list[Any]) -> str | None:
    """None if ``data`` (an action JSON not listed) is refused with ``state`` unchanged, or is an
    alias of a listed action; else a sentence saying what is wrong."""
    before = state.to_json()
    try:
        action = rules.action_from_json(data)
    except ActionFormatError:
        return None
    try:
        after = rules.apply(state, action)
    except IllegalAction as exc:
        if not exc.rule or not exc.reason:
            return f"{data}: refused without a rule id or a reason"
        if state.to_json() != before:
            return f"{data}: refused, but the state changed"
        return None
    for la in legal:
        try:
            if rules.apply(state, la.action) == after:
                return None
        except IllegalAction:
            continue
    return f"{data} is accepted but not in legal_actions (phase {before.get('phase')!r})"


@dataclass
class PlayoutReport:
    """What a random game did: ``actions`` applied, whether it ``finished``, near misses refused
    (``illegal_caught``), and ``errors`` (sentences: a listed action refused, a near miss accepted,
    a broken invariant, an exception)."""

    actions: int = 0
    finished: bool = False
    illegal_caught: int = 0
    errors: list[str] = field(default_factory=list)
    match: GameMatch | None = None


def random_playout(rules: Any, setup: Any, choose: Chooser, *, max_actions: int = 5000,
                   near_miss_every: int = 1, check: bool = True) -> PlayoutReport:
    """Play one game choosing uniformly among ``legal_actions`` with ``choose``.

    Every ``near_miss_every`` steps (0: never) one near miss is tried and must be refused. With
    ``check``, invariants, ``to_move`` and the descriptions are checked at every step.
    """
    report = PlayoutReport()
    try:
        match = GameMatch(rules, setup)
    except Exception as exc:  # noqa: BLE001 - reported, the caller goes on with the next game
        report.errors.append(f"setup refused: {type(exc).__name__}: {exc}")
        return report
    report.match = match
    misses = NearMisses(rules, len(getattr(match.history[0], "players", ()) or ()))
    while report.actions < max_actions:
        state = match.state
        try:
            legal = rules.legal_actions(state)
            if check:
                report.errors += step_problems(rules, state, legal)
            if not legal:
                if rules.outcome(state) is None:
                    report.errors.append(f"no legal action but the game is not over (phase "
                                         f"{state.to_json().get('phase')!r})")
                report.finished = rules.outcome(state) is not None
                return report
            jsons = [la.action.to_json() for la in legal]
            if near_miss_every and report.actions % near_miss_every == 0:
                miss = misses.one(jsons, choose)
                if miss is not None:
                    problem = refusal_problem(rules, state, miss, legal)
                    if problem is None:
                        report.illegal_caught += 1
                    else:
                        report.errors.append(problem)
            misses.remember(jsons)
            chosen = legal[choose(len(legal))].action
            try:
                match.apply(chosen)
            except IllegalAction as exc:
                report.errors.append(f"listed action {chosen.to_json()} refused: {exc}")
                return report
            report.actions += 1
            if check:
                text = rules.describe_action(match.states[-2], chosen)
                if not isinstance(text, str) or not text.strip():
                    report.errors.append(f"describe_action gave no sentence for {chosen.to_json()}")
        except Exception as exc:  # noqa: BLE001 - a crash of the game is an error to report
            report.errors.append(f"{type(exc).__name__}: {exc}")
            return report
        if len(report.errors) > 20:
            return report
    report.finished = rules.outcome(match.state) is not None
    return report


def step_problems(rules: Any, state: Any, legal: list[Any]) -> list[str]:
    """What is wrong with one state as the protocol sees it (invariants, to_move, outcome, labels)."""
    out = [f"invariant: {p}" for p in rules.invariants(state)]
    data = state.to_json()
    over = rules.outcome(state) is not None
    if (data.get("phase") == "over") != over:
        out.append(f"phase {data.get('phase')!r} but outcome is {'set' if over else 'None'}")
    seats = rules.to_move(state).seats
    if over and (seats or legal):
        out.append("the game is over but someone is to move or actions are legal")
    if not over and not seats:
        out.append("nobody is to move but the game is not over")
    chance = [la for la in legal if la.chance]
    if chance:
        total = sum(la.probability or 0.0 for la in chance)
        if abs(total - 1.0) > 1e-6:
            out.append(f"chance outcomes' probabilities sum to {total}")
        if not rules.to_move(state).chance:
            out.append("chance outcomes are listed but to_move is not chance")
    for la in legal:
        if not isinstance(la.label, str) or not la.label.strip():
            out.append(f"no button label for {la.action.to_json()}")
            break
    text = rules.describe_next(state)
    if not isinstance(text, str) or not text.strip():
        out.append("describe_next gave no sentence")
    return out
