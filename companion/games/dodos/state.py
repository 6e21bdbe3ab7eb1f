"""The state: an immutable value holding the race as canonical JSON text.

While an action is applied the text is parsed into a plain dict (the working copy), changed, and
written back, so a refused action cannot change anything and equality is exact. ``to_json()`` adds a
derived ``view`` (hex, lap, hexes past the line per racer; the track's geometry) for the tablet;
:func:`state_from_json` drops it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from companion.games.base import StateFormatError
from companion.games.dodos.engine import effect_on
from companion.games.dodos.setup import DECK_CARDS, FANS, NAME, POWER_UPS, racer_side, track_of
from companion.games.dodos.tracks import TRACKS

KEYS = ("game", "players", "phase", "options", "mode", "race", "track", "side", "round", "marker", "deck",
        "discard", "pu_deck", "pu_discard", "fans_reserve", "racers", "queue", "prompt", "walk", "window",
        "turn", "first_across", "leaders", "races", "result", "tiebreak", "log")
PHASES = ("scheming", "running", "round_end", "race_start", "race_end", "over")
DERIVED = frozenset({"view", "legal", "to_move", "next", "outcome", "title", "scoring", "expected"})
"""Keys the state's JSON may carry that are derived (``view``) or added by the platform's API: ignored."""
RACER_KEYS = ("name", "seat", "challenger", "mods", "side", "team", "p", "route", "hand", "played", "enraged",
              "damage", "finished", "fans", "power_ups", "stats")


@dataclass(frozen=True)
class State:
    """A Dodos Riding Dinos state (``data``: canonical JSON of the working dict)."""

    data: str
    _read: Any = field(default=None, compare=False, repr=False, hash=False)
    _legal: Any = field(default=None, compare=False, repr=False, hash=False)

    @staticmethod
    def of(g: dict[str, Any]) -> State:
        return State(json.dumps(g, sort_keys=True, separators=(",", ":")))

    def dict(self) -> dict[str, Any]:
        """A fresh working copy (the caller may change it)."""
        return json.loads(self.data)

    def read(self) -> dict[str, Any]:
        """The parsed state for reading only (parsed once, shared: never change it)."""
        if self._read is None:
            object.__setattr__(self, "_read", json.loads(self.data))
        return self._read

    @property
    def phase(self) -> str:
        return self.read()["phase"]

    def to_json(self) -> dict[str, Any]:
        g = self.dict()
        g["view"] = view(g)
        return g


def view(g: dict[str, Any]) -> dict[str, Any]:
    """Derived facts for the tablet: each racer's hex, lap and hexes past the line; the tracks."""
    racers = []
    for i, r in enumerate(g["racers"]):
        t = track_of(g, i)
        route = r["route"]
        racers.append({"hex": t.hex_of(r["p"]), "lap": t.lap_of(r["p"]), "past": r["p"] - t.hexes + 1,
                       "side": racer_side(g, i), "shortcut": route,
                       "marker": i == g["marker"], "turn": i == g["turn"]})
    sides = sorted({racer_side(g, i) for i in range(len(g["racers"]))})
    w = g["window"]
    return {"racers": racers, "tracks": {s: TRACKS[g["track"]][s].to_json() for s in sides},
            "effect_on": effect_on(w) if w and w["kind"] == "turn" else None}


def state_from_json(data: Any) -> State:
    """Rebuild a state from ``State.to_json()``; raise StateFormatError naming the bad field."""
    if not isinstance(data, dict):
        raise StateFormatError("a state must be a JSON object")
    g = {k: v for k, v in data.items() if k not in DERIVED}
    for key in g:
        if key not in KEYS:
            raise StateFormatError(f"unknown state field {key!r}")
    for key in KEYS:
        if key not in g:
            raise StateFormatError(f"state field {key!r} is missing")
    if g["game"] != NAME:
        raise StateFormatError(f"game must be {NAME!r}, got {g['game']!r}")
    if g["phase"] not in PHASES:
        raise StateFormatError(f"phase must be one of {', '.join(PHASES)}, got {g['phase']!r}")
    if g["track"] not in TRACKS:
        raise StateFormatError(f"track {g['track']!r} is not a known track")
    if not isinstance(g["racers"], list) or not g["racers"]:
        raise StateFormatError("racers must be a non-empty list")
    for i, r in enumerate(g["racers"]):
        if not isinstance(r, dict) or set(r) != set(RACER_KEYS):
            raise StateFormatError(f"racers[{i}] must have the fields {', '.join(RACER_KEYS)}")
        for key in ("p", "hand", "damage", "fans", "power_ups"):
            if isinstance(r[key], bool) or not isinstance(r[key], int):
                raise StateFormatError(f"racers[{i}].{key} must be a whole number")
    for key in ("round", "marker", "deck", "discard", "race"):
        if isinstance(g[key], bool) or not isinstance(g[key], int):
            raise StateFormatError(f"{key} must be a whole number")
    if not isinstance(g["queue"], list):
        raise StateFormatError("queue must be a list of steps")
    return State.of(g)


def invariants(g: dict[str, Any]) -> list[str]:
    """What is wrong with ``g``: cards, Power-ups and Fans not conserved, positions inconsistent."""
    bad = []
    racers = g["racers"]
    played = sum(1 for r in racers if r["played"] and r["played"]["kind"] != "none")
    held = sum(r["hand"] for r in racers) + played
    if g["deck"] + g["discard"] + held != DECK_CARDS:
        bad.append(f"Movement cards: deck {g['deck']} + discard {g['discard']} + hands and played {held} "
                   f"!= {DECK_CARDS}")
    for key in ("deck", "discard", "pu_deck", "pu_discard", "fans_reserve"):
        if g[key] < 0:
            bad.append(f"{key} is negative ({g[key]})")
    if g["mode"] == "cup":
        pu = g["pu_deck"] + g["pu_discard"] + sum(r["power_ups"] for r in racers)
        if pu != POWER_UPS:
            bad.append(f"Power-up cards: {pu} != {POWER_UPS}")
        fans = g["fans_reserve"] + sum(r["fans"] for r in racers)
        if fans != FANS:
            bad.append(f"Fans: {fans} != {FANS}")
    for i, r in enumerate(racers):
        for key in ("hand", "damage", "fans", "power_ups"):
            if r[key] < 0:
                bad.append(f"{r['name']}: {key} is negative")
        t = track_of(g, i)
        h = t.hex_of(r["p"])
        if r["route"] is not None:
            idx, j = r["route"]
            if not (0 <= idx < len(t.shortcuts) and 0 <= j <= t.shortcuts[idx].hexes):
                bad.append(f"{r['name']}: route {r['route']} is not a shortcut hex")
            elif t.lap_base(r["p"], (idx, j)) % t.hexes != 0:
                bad.append(f"{r['name']}: position {r['p']} does not match shortcut hex {r['route']}")
        else:
            for ramp in t.glass_ramps:
                if ramp.ramp < h < min(ramp.landings):
                    bad.append(f"{r['name']}: hex {h} is in the sky between a ramp and its landings")
        if g["mode"] == "derby" and r["finished"] != (r["p"] >= t.hexes):
            bad.append(f"{r['name']}: finished={r['finished']} but at {r['p']} of {t.hexes} hexes")
        if g["mode"] != "derby" and r["finished"]:
            bad.append(f"{r['name']}: only Derby racers leave the board")
    if not 0 <= g["marker"] < len(racers):
        bad.append(f"first-player marker on racer {g['marker']}")
    if (g["phase"] == "over") != (g["result"] is not None):
        bad.append("a result exactly when the game is over")
    if g["phase"] != "over" and g["prompt"] is None:
        bad.append("the game waits for nothing but is not over")
    return bad
