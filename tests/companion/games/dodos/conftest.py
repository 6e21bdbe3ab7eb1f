"""Helpers for the Dodos Riding Dinos tests (fixtures only; no test here)."""

from __future__ import annotations

from typing import Any

import pytest

from companion.games.dodos import DodosRules, State, state_from_json
from companion.games.dodos.actions import ChallengerCard, Done, OpenEntries, Reveal

RULES = DodosRules()
NAMES = ("Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana")


class Helper:
    rules = RULES

    def start(self, players: int = 1, **options: Any) -> State:
        """A new race; ``challengers=N`` asks for N Challengers in all (the option counts the extra ones)
        and ``mode="derby"`` is the 8-player race."""
        if "challengers" in options:
            options["extra_challengers"] = options.pop("challengers") - {1: 2, 2: 1}.get(players, 0)
        if options.get("mode") == "derby":
            options["mode"] = "race"
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
        """Apply ``actions``; an entry into a window not yet open opens it first (one more tap)."""
        for a in actions:
            p = s.dict()["prompt"]
            w = s.dict()["window"]
            if p and p["kind"] == "window" and not w["open"] and not isinstance(a, (Done, OpenEntries)):
                s = RULES.apply(s, OpenEntries())
            s = RULES.apply(s, a)
        return s

    def prompt(self, s: State) -> dict[str, Any]:
        return s.dict()["prompt"]

    def reveal(self, s: State, cards: dict[int, tuple[str, int]],
               challengers: dict[int, tuple[str, int]] | None = None) -> State:
        """The Scheming phase: players' cards, then each Challenger's top card (host-entered)."""
        for seat in list(s.dict()["prompt"]["pending"]):  # entered in turn order
            kind, speed = cards[seat]
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

    def end_race(self, s, past, hands=None):
        """From a Scheming prompt: put each racer ``past[i]`` hexes past the line (negative: behind), play
        one round of Speed 0 and close every window; returns the state after the round."""
        g = s.dict()
        n = s.to_json()["view"]["tracks"][g["side"]]["hexes"]
        edits = {f"r{i}": {"p": n - 1 + x, "route": None} for i, x in enumerate(past)}
        if hands:
            total = g["deck"] + sum(r["hand"] for r in g["racers"])
            for i, k in enumerate(hands):
                edits[f"r{i}"]["hand"] = k
            edits["deck"] = total - sum(hands)
        s = self.edit(s, **edits)
        g = s.dict()
        for i in list(g["prompt"]["pending"]):
            s = self.run(s, Reveal(i, "normal", 0))
        for i, r in enumerate(g["racers"]):
            if r["challenger"]:
                s = self.run(s, ChallengerCard(i, "normal", 0))
        while (p := self.prompt(s)) and p["kind"] == "window" and p["window"] != "race_start":
            s = self.done(s)
        return s


@pytest.fixture
def h() -> Helper:
    return Helper()
