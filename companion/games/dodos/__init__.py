"""Dodos Riding Dinos: the race marshal (rounds, Challengers, the Cup, the Derby), pure.

See ``docs/rules-dodos-riding-dinos.md`` for every reading of the rulebook and its setting.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import IllegalAction, LegalAction, Outcome, SetupSpec, ToMove
from companion.games.dodos import legal as _legal
from companion.games.dodos.actions import ACTION_TYPES, Action, NewGame, action_from_json
from companion.games.dodos.engine import run
from companion.games.dodos.rules import apply_to
from companion.games.dodos.setup import NAME, initial, setup_spec
from companion.games.dodos.state import State, invariants, state_from_json


class DodosRules:
    """The game module of Dodos Riding Dinos (registered as ``"dodos-riding-dinos"``)."""

    name = NAME
    title = "Dodos Riding Dinos"
    scoring = "rank"

    def setup_spec(self) -> SetupSpec:
        return setup_spec()

    def initial_state(self, setup: Any) -> State:
        a = action_from_json(setup)
        if not isinstance(a, NewGame):
            raise IllegalAction(a, "setup", "a race starts with a new_game action")
        g = initial(a)
        run(g)
        return State.of(g)

    def apply(self, state: State, action: Any) -> State:
        if not isinstance(action, Action):
            raise IllegalAction(action, "unknown-action", f"not a Dodos Riding Dinos action: {action!r}")
        g = state.dict()
        apply_to(g, action)
        return State.of(g)

    def action_from_json(self, data: Any) -> Action:
        return action_from_json(data)

    def state_from_json(self, data: Any) -> State:
        return state_from_json(data)

    def legal_actions(self, state: State) -> list[LegalAction]:
        if state._legal is None:  # computed once per state (states are immutable)
            object.__setattr__(state, "_legal", tuple(_legal.legal(state.read())))
        return list(state._legal)

    def to_move(self, state: State) -> ToMove:
        return _legal.to_move(state.read())

    def outcome(self, state: State) -> Outcome | None:
        g = state.read()
        if g["phase"] != "over":
            return None
        return outcome_of(g)

    def describe_action(self, state: State, action: Any) -> str:
        return _legal.describe(state.read(), action)

    def describe_next(self, state: State) -> str:
        return _legal.next_sentence(state.read())

    def achievements(self, states: list[dict[str, Any]]) -> dict[str, dict[str, list[str]]]:
        """``{player: {achievement: [where, ...]}}`` from finished games' state JSONs, oldest first."""
        from companion.games.dodos import achievements as feats

        return feats.achievements(states)

    @property
    def achievement_labels(self) -> dict[str, str]:
        """The rulebook's text of each achievement, by id; plus why some cannot be tracked."""
        from companion.games.dodos.achievements import ACHIEVEMENTS

        return dict(ACHIEVEMENTS)

    @property
    def achievements_not_tracked(self) -> dict[str, str]:
        """The achievements the log cannot tell, with the reason."""
        from companion.games.dodos.achievements import NOT_TRACKED

        return dict(NOT_TRACKED)

    def example_setups(self) -> list[dict[str, Any]]:
        return example_setups()

    def invariants(self, state: State) -> list[str]:
        return invariants(state.read())


def outcome_of(g: dict[str, Any]) -> Outcome:
    """Winners and ranking by seat. Challengers have no seat: when one wins, no player won and the
    outcome says so as ``draw`` with no winners (the ranking still orders the players)."""
    n = len(g["players"])
    res = g["result"]
    winners = tuple(sorted(r for r in res["winners"] if r < n))
    ranking = tuple(tuple(sorted(r for r in grp if r < n)) for grp in res["places"])
    ranking = tuple(grp for grp in ranking if grp)
    scores = tuple(float(g["racers"][s]["fans"]) for s in range(n)) if g["mode"] == "cup" else None
    if not winners:  # a Challenger won: no player did (reported as a draw: no winner among the seats)
        return Outcome(winners=(), ranking=ranking, scores=scores, draw=True)
    return Outcome(winners=winners, ranking=ranking, scores=scores)


NAMES = ("Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana")


def example_setups() -> list[dict[str, Any]]:
    """Single races of 1-6 players with and without Challengers (every track and special hex), the
    Cup (with Challengers drawn by the companion) and the Derby."""
    out: list[dict[str, Any]] = []

    def add(players: int, **options: Any) -> None:
        out.append({"type": "new_game", "game": NAME, "players": list(NAMES[:players]), "options": options})

    add(1)  # two Challengers, entered by the host
    add(1, extra_challengers=3, challenger_cards="drawn", track="ignis-volcano")  # five Challengers
    add(2, track="polaria-iceberg", side="inner", challenger_modifiers="3/0/2")
    add(3, track="boreal-sky")
    add(3, extra_challengers=2, challenger_cards="drawn", track="boreal-sky", side="inner")
    add(4, track="ignis-volcano", abilities=False)
    add(5, track="polaria-iceberg", extra_challengers=1, challenger_cards="drawn")
    add(6, side="outer", six_racer_rule="players", lead_tie="none")
    add(4, extra_challengers=1, track="boreal-sky", side="outer")
    add(6, extra_challengers=2, challenger_cards="drawn", track="ignis-volcano")
    add(2, mode="cup", challenger_cards="drawn", challenger_marker="skip")
    add(4, mode="cup", abilities=False)
    add(8, track="polaria-iceberg")  # the Derby
    add(8, track="boreal-sky")
    return out


__all__ = ["ACTION_TYPES", "DodosRules", "State", "action_from_json", "example_setups", "state_from_json"]
