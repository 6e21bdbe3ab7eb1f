"""Setup: the options (``setup_spec``), their checks and the state right after ``new_game``.

The state is a plain JSON-shaped dict while an action is applied (see ``state.py``); this module
builds the first one: racers (players, then Challengers), the track, the first-player marker, the
starting hexes and 6 cards each.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import IllegalAction, OptionError, SetupOption, SetupSpec
from companion.games.dodos.actions import NewGame
from companion.games.dodos.tracks import MAPS, TRACKS

NAME = "dodos-riding-dinos"
DECK_CARDS = 64
POWER_UPS = 16
FANS = 12
HAND = 6
RECOVER_PLAYER = 5
RECOVER_CHALLENGER = 6
MAX_RACERS = 10
"""64 Movement cards deal 6 to at most 10 racers."""

MODIFIERS = tuple(f"{b}/{r}/{g}" for b in range(5) for r in range(5) for g in range(4))
"""Every blue/red/green Speed value modifier the setup offers (printed values are small)."""


def setup_spec() -> SetupSpec:
    """Players 1-8 (the Cup 1-6; 8 players race the Derby) and the options with their defaults."""
    return SetupSpec(1, 8, (
        SetupOption("mode", "race", ("race", "cup"),
                    "a single race (8 players: the Derby, see eight_players) or Cup Mode (the four tracks)"),
        SetupOption("eight_players", "derby", ("derby", "race"),
                    "8 players race the Derby (teams of two, both tracks) or a plain single race"),
        SetupOption("track", "dodino-island", MAPS,
                    "the track of a single race or Derby (the Cup plays all four)"),
        SetupOption("side", "auto", ("auto", "inner", "outer"),
                    "inner or outer track; auto: inner with 5 or more racers and in the Cup, else outer"),
        SetupOption("abilities", True, (True, False),
                    "play with the Racer abilities (opens an end-of-round window)"),
        SetupOption("extra_challengers", 0, tuple(range(0, MAX_RACERS - 2)),
                    "Challengers added beyond the ones 1- and 2-player races need (2 and 1)"),
        SetupOption("challenger_cards", "entered", ("entered", "drawn"),
                    "entered: the host enters each Challenger's top card; drawn: the companion draws it"),
        SetupOption("challenger_modifiers", "2/2/1", MODIFIERS,
                    "blue/red/green Speed value modifiers of the Challengers (one for all, or a comma list, "
                    "one per Challenger)"),
        SetupOption("challenger_level", "standard", ("easy", "standard", "hard"),
                    "the difficulty level printed on the Racer cards that the modifiers come from"),
        SetupOption("six_racer_rule", "racers", ("racers", "players"),
                    "whether the 6-player enraged rule counts every racer (Challengers too) or only players"),
        SetupOption("lead_tie", "all", ("all", "none"),
                    "racers tied for the lead at the end of a round: all advance 1, or none (all draw)"),
        SetupOption("challenger_marker", "pass", ("pass", "skip"),
                    "the first-player marker passes to Challengers too, or skips them"),
        SetupOption("fireballs", "nearest-two", ("nearest-two", "within-two"),
                    "Fireballs hit the racers on the two nearest occupied hexes, or those within 2 hexes"),
        SetupOption("red_kiwi_counts", True, (True, False),
                    "an Aggressive card played with Red Kiwi still counts towards enraging the others"),
    ))


SETUP_SPEC = setup_spec()


def _illegal(a: Any, rule: str, reason: str) -> IllegalAction:
    return IllegalAction(a, rule, reason)


def parse_modifiers(a: NewGame, value: Any, count: int) -> list[list[int]]:
    """``"2/2/1"`` for every Challenger or ``"2/2/1,3/3/2"`` one per Challenger -> [[b, r, g], ...]."""
    if not isinstance(value, str):
        raise _illegal(a, "setup", f"option challenger_modifiers must be text like '2/2/1', got {value!r}")
    parts = [p.strip() for p in value.split(",")] if value else []
    if any(p not in MODIFIERS for p in parts) or not parts:
        raise _illegal(a, "setup", f"option challenger_modifiers: {value!r} is not blue/red/green "
                                   "like '2/2/1' (each 0-4, green 0-3)")
    if len(parts) == 1:
        parts = parts * count
    if len(parts) != count:
        raise _illegal(a, "setup", f"option challenger_modifiers lists {len(parts)} Challengers, "
                                   f"the race has {count}")
    return [[int(x) for x in p.split("/")] for p in parts]


def resolve_options(a: NewGame) -> dict[str, Any]:
    """Defaults filled in, every option checked (unknown name or bad value names it; the modifiers are
    checked by :func:`parse_modifiers`)."""
    try:
        return SETUP_SPEC.resolve_options(a.options, free=("challenger_modifiers",))
    except OptionError as err:
        raise _illegal(a, "setup", str(err)) from None


def required_challengers(players: int) -> int:
    """1-Player Mode adds two Challengers, 2-Player Mode one."""
    return {1: 2, 2: 1}.get(players, 0)


def initial(a: NewGame) -> dict[str, Any]:
    """The state dict after ``new_game`` (positions placed; the first round's steps queued)."""
    if a.game != NAME:
        raise _illegal(a, "setup", f"unknown game {a.game!r} (this core plays {NAME!r})")
    names = [n.strip() for n in a.players]
    if any(not n for n in names):
        raise _illegal(a, "setup", "player names must not be empty")
    if len(set(names)) != len(names):
        raise _illegal(a, "setup", "player names must be distinct")
    opts = resolve_options(a)
    n = len(names)
    if not 1 <= n <= 8:
        raise _illegal(a, "players-1-to-8", f"Dodos Riding Dinos is for 1 to 8 players, got {n}")
    mode = opts["mode"]
    if mode == "race" and n == 8 and opts["eight_players"] == "derby":
        mode = "derby"
    if mode == "cup" and n > 6:
        raise _illegal(a, "cup-1-to-6-players", f"the Cup is for 1 to 6 players, got {n}")
    if mode == "derby":
        if opts["extra_challengers"]:
            raise _illegal(a, "derby-no-challengers", "the Derby is played by 8 players without Challengers")
        ch = 0
    else:
        ch = required_challengers(n) + opts["extra_challengers"]
        if n + ch > MAX_RACERS:
            raise _illegal(a, "max-racers", f"{n} players and {ch} Challengers: the 64 Movement cards deal 6 "
                                            f"to at most {MAX_RACERS} racers")
    mods = parse_modifiers(a, opts["challenger_modifiers"], ch) if ch else []
    racers = []
    for i, name in enumerate(names):
        side = None
        team = None
        if mode == "derby":
            side, team = ("inner" if i < 4 else "outer"), i % 4
        racers.append(new_racer(name, i, side, team))
    for k in range(ch):
        racers.append(new_racer(f"Challenger {k + 1}", None, None, None, mods[k]))
    track = MAPS[0] if mode == "cup" else opts["track"]
    g: dict[str, Any] = {
        "game": NAME, "players": names, "phase": "scheming", "options": opts, "mode": mode,
        "race": 1, "track": track, "side": "inner", "round": 1, "marker": 0,
        "deck": DECK_CARDS, "discard": 0, "pu_deck": POWER_UPS if mode == "cup" else 0, "pu_discard": 0,
        "fans_reserve": FANS if mode == "cup" else 0,
        "racers": racers, "queue": [], "prompt": None, "walk": None, "window": None, "turn": None,
        "first_across": None, "leaders": [], "races": [], "result": None, "tiebreak": None, "log": [],
    }
    g["side"] = side_for(g)
    start_race(g)
    return g


def new_racer(name: str, seat: int | None, side: str | None, team: int | None,
              mods: list[int] | None = None) -> dict[str, Any]:
    return {"name": name, "seat": seat, "challenger": seat is None, "mods": mods, "side": side, "team": team,
            "p": 0, "route": None, "hand": 0, "played": None, "enraged": False, "damage": 0,
            "finished": False, "fans": 0, "power_ups": 0, "stats": new_stats()}


def new_stats() -> dict[str, int]:
    return {"normal": 0, "aggressive": 0, "none": 0, "reactions": 0, "launched": 0, "rolled": 0,
            "matched": 0}


def side_for(g: dict[str, Any]) -> str:
    side = g["options"]["side"]
    if side != "auto":
        return side
    return "inner" if g["mode"] == "cup" or len(g["racers"]) >= 5 else "outer"


def racer_side(g: dict[str, Any], r: int) -> str:
    return g["racers"][r]["side"] or g["side"]


def track_of(g: dict[str, Any], r: int):
    return TRACKS[g["track"]][racer_side(g, r)]


def turn_order(g: dict[str, Any], start: int | None = None) -> list[int]:
    """Racer indices clockwise from ``start`` (the first-player marker by default)."""
    n = len(g["racers"])
    s = g["marker"] if start is None else start
    return [(s + i) % n for i in range(n)]


def place_start(g: dict[str, Any]) -> None:
    """Starting hexes: from the last player counter-clockwise, two on the first hex behind the line,
    two on the second, the rest on the third (the Derby: each track by itself, the 5th player first there)."""
    groups: list[list[int]]
    if g["mode"] == "derby":
        groups = [[r for r in turn_order(g) if g["racers"][r]["side"] == side] for side in ("inner", "outer")]
    else:
        groups = [turn_order(g)]
    for order in groups:
        for k, r in enumerate(reversed(order)):
            g["racers"][r]["p"] = -1 - min(k // 2, 2)
            g["racers"][r]["route"] = None


def start_race(g: dict[str, Any]) -> None:
    """A new race on ``g["track"]``: positions, 6 cards each, fresh stats; queue its first steps."""
    g["deck"], g["discard"] = DECK_CARDS, 0
    for r in g["racers"]:
        r.update(hand=0, played=None, enraged=False, damage=0, finished=False, stats=new_stats())
    place_start(g)
    for r in g["racers"]:
        r["hand"] = HAND
        g["deck"] -= HAND
    g["round"] = 1
    g["first_across"] = None
    g["result"] = None
    queue = []
    if g["mode"] == "cup":
        for i, r in enumerate(g["racers"]):
            if r["challenger"] and r["power_ups"]:
                queue.append(["advance", i, 3 * r["power_ups"], "start"])
        if any(not r["challenger"] and r["power_ups"] for r in g["racers"]):
            queue.append(["window", "race_start", None, None])
    queue.append(["scheme"])
    g["queue"] = queue
