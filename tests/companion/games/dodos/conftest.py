"""Helpers for the Dodos Riding Dinos tests (fixtures only; no test here)."""

from __future__ import annotations

from typing import Any

import pytest

from companion.games.dodos import DodosRules, State, state_from_json
from companion.games.dodos.actions import ChallengerCard, Done, Reveal

RULES = DodosRules()
NAMES = ("Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana")


class Helper:
    rules = RULES

    def start(self, players: int = 1, **options: Any) -> State:
        return RULES.initial_state({"type": "new_game", "players": list(NAMES[:players]), "options": options})

    def g(self, s: State) -> dict[str, Any]:
        return s.dict()

    def edit(self, s: State, **racer_fields: Any) -> State:
        """A state with racer fields changed: ``edit(s, r0={"p": 5}, deck=3)``."""
        g = s.dict()
        for key, value in racer_fields.items():
            if key.startswith("r") and key[1:].isdigit():
                g["racers"][int(key[1:])].update(value)
            else:
                g[key] = value
        return state_from_json(g)

    def run(self, s: State, *actions: Any) -> State:
        for a in actions:
            s = RULES.apply(s, a)
        return s

    def prompt(self, s: State) -> dict[str, Any]:
        return s.dict()["prompt"]

    def reveal(self, s: State, cards: dict[int, tuple[str, int]],
               challengers: dict[int, tuple[str, int]] | None = None) -> State:
        """The Scheming phase: players' cards, then each Challenger's top card (host-entered)."""
        for seat, (kind, speed) in cards.items():
            s = RULES.apply(s, Reveal(seat, kind, speed))
        for r, (kind, speed) in (challengers or {}).items():
            assert self.prompt(s)["kind"] == "challenger_card", self.prompt(s)
            s = RULES.apply(s, ChallengerCard(r, kind, speed))
        return s

    def done(self, s: State, times: int = 1) -> State:
        for _ in range(times):
            s = RULES.apply(s, Done())
        return s

    def to_window(self, s: State, kind: str = "round_end") -> State:
        """Close turn windows until the window ``kind`` (or the next Scheming) is open."""
        while True:
            p = self.prompt(s)
            if p is None or p["kind"] != "window" or p["window"] == kind:
                return s
            s = RULES.apply(s, Done())

    def pos(self, s: State) -> list[int]:
        return [r["p"] for r in s.dict()["racers"]]

    def hands(self, s: State) -> list[int]:
        return [r["hand"] for r in s.dict()["racers"]]


@pytest.fixture
def h() -> Helper:
    return Helper()
