"""A random but legal Dingo Disc game, action by action: the driver of the crash test and of
``dingo-companion bench session`` (deterministic for a given ``random.Random``).

``next_action(state_json, rng)`` reads the state's ``expected`` and returns one action JSON that
the rules accept (dice faces, sizes, sometimes a sensed placement off the rolled spot, a fall
with or without a tip, a hand on the disc), or ``None`` when the game is over.
"""

from __future__ import annotations

import random
from typing import Any

COLOURS = ("red", "yellow", "green", "blue", "purple", "orange")


def new_game(rng: random.Random) -> dict[str, Any]:
    """A ``new_game`` action with 2..4 players and a random rules version."""
    n = rng.randint(2, 4)
    names = rng.sample(["Ann", "Bob", "Cy", "Dee", "Eve", "Finn"], n)
    return {
        "type": "new_game",
        "game": "dingo-disc",
        "version": rng.choice((1, 2)),
        "players": names,
        "options": {},
    }


def _place(exp: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    size = rng.choice(exp.get("sizes") or ["small"])
    if rng.random() < 0.85:
        return {"type": "place", "size": size}
    zone = exp.get("zone") if rng.random() < 0.6 else rng.choice(COLOURS)
    return {
        "type": "place",
        "size": size,
        "zone": zone,
        "number": rng.randint(2, 6),
        "sensed": True,
        "x_mm": round(rng.uniform(-140, 140), 1),
        "y_mm": round(rng.uniform(-140, 140), 1),
    }


def next_action(state: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """One legal next action for ``state`` (its ``to_json()``), or None if the game is over."""
    exp = state.get("expected") or {}
    kind = exp.get("kind")
    if kind in ("none", None) or state.get("phase") == "over":
        return None
    disc = state.get("disc") or {}
    on_disc = [s for s in ("small", "medium", "large") if disc.get(s)]
    if kind not in ("first_player", "roll_colour", "confirm_fall") and on_disc:
        r = rng.random()
        if r < 0.08:
            return {"type": "fall", "pawns": {rng.choice(on_disc): 1}, "tipped": rng.random() < 0.7}
        if r < 0.10:
            return {"type": "hand", "duration_ms": rng.randint(200, 3000)}
    if state.get("flags") and rng.random() < 0.5:
        flag = state["flags"][0]
        if flag.get("kind") in ("hand", "removed"):
            return {"type": "dismiss_flag", "id": flag["id"]}
    if kind == "first_player":
        return {"type": "first_player", "seat": rng.randrange(len(state["players"])), "drawn": True}
    if kind == "roll_colour":
        return {"type": "roll_colour", "colour": rng.choice(COLOURS)}
    if kind == "roll":
        if not exp.get("dice_taken") and rng.random() < 0.3:
            return {"type": "take_dice"}
        number = 1 if rng.random() < 0.1 else rng.randint(2, 6)
        action: dict[str, Any] = {"type": "roll", "number": number}
        if "colour" in (exp.get("dice") or []):
            action["colour"] = rng.choice(COLOURS)
        return action
    if kind == "give":
        return {"type": "give", "giver": exp["player"], "size": rng.choice(exp["sizes"])}
    if kind == "place":
        return _place(exp, rng)
    if kind == "review_placement":
        return {"type": rng.choice(("accept_placement", "redo_placement"))}
    if kind == "confirm_fall":
        return {"type": "confirm_fall"}
    if kind == "end_game":
        return {"type": "end_game"}
    return None


def ranking(state: dict[str, Any]) -> list[int]:
    """Rank per seat from a finished state (players without a rank come last)."""
    players = state.get("players") or []
    worst = len(players)
    return [int(p.get("rank") or worst) for p in players]
