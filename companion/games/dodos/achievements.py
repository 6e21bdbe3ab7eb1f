"""The rulebook's achievements, computed from logged races (pure: a function over game JSONs).

``achievements(games)`` takes the final ``state.to_json()`` of logged Dodos Riding Dinos games (any
other game's JSON is skipped) and returns, per player name, the achievements that player has earned
with the races that earned them. Each finished race keeps a record in the state (``races``) with what
the rules below need; a shared victory counts as a win. Two achievements cannot be told from the
log (see ``NOT_TRACKED``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from companion.games.dodos.setup import NAME
from companion.games.dodos.tracks import MAPS

ACHIEVEMENTS: dict[str, str] = {
    "every-track": "Win a race in every track",
    "normal-only": "Win a race playing only Normal cards",
    "no-projectiles": "Win a race without launching projectiles",
    "no-dice": "Win a race without rolling any die",
    "most-cards": "Win a race being the player with the most cards remaining in your hand",
    "overpass-first": "Win a race overpassing the player who crossed first the finish line",
    "first-round": "Win a race in the first round",
    "five-challengers": "Win a single-player race vs five Challenger Racers",
    "two-hard-challengers": "Win a single-player race vs two Challenger Racers in hard difficulty",
    "every-character": "Win a race with every Dodino character",
    "cup": "Win the Dodino Cup mode",
    "cup-every-race": "Win all races during the Dodino Cup mode",
    "derby": "Win the single race Derby mode",
    "derby-matched": ("Win the Derby mode matching the same type of card with your teammate during all "
                      "the rounds"),
    "dodorado": "Decrypt the message of the Dodorado map",
}

NOT_TRACKED: dict[str, str] = {
    "every-character": "the log does not record which Racer character each player ran",
    "dodorado": "decrypting the map happens away from the race",
}


def _race_feats(race: dict[str, Any], i: int) -> set[str]:
    """The single-race achievements racer ``i`` earned by winning ``race``."""
    me = race["racers"][i]
    st = me["stats"]
    feats = set()
    if st["normal"] > 0 and st["aggressive"] == 0 and st["none"] == 0 and st["reactions"] == 0:
        feats.add("normal-only")
    if st["launched"] == 0:
        feats.add("no-projectiles")
    if st["rolled"] == 0:
        feats.add("no-dice")
    others = [r["hand"] for j, r in enumerate(race["racers"]) if j != i]
    if all(me["hand"] > h for h in others):
        feats.add("most-cards")
    first = race["first_across"]
    if first is not None and first != i and first not in race["winners"]:
        feats.add("overpass-first")
    if race["rounds"] == 1:
        feats.add("first-round")
    if race["mode"] != "derby" and race["players"] == 1:
        if race["challengers"] == 5:
            feats.add("five-challengers")
        if race["challengers"] == 2 and race["level"] == "hard":
            feats.add("two-hard-challengers")
    if race["mode"] == "derby":
        feats.add("derby")
        if st["matched"] == race["rounds"]:
            feats.add("derby-matched")
    return feats


def achievements(games: Iterable[dict[str, Any]]) -> dict[str, dict[str, list[str]]]:
    """``{player: {achievement id: [where, ...]}}`` from the logged games' final state JSONs.

    ``where`` names the game (its position in ``games``) and race, e.g. ``"game 3 race 2"``.
    """
    out: dict[str, dict[str, list[str]]] = {}
    tracks: dict[str, set[str]] = {}

    def earn(name: str, feat: str, where: str) -> None:
        out.setdefault(name, {}).setdefault(feat, []).append(where)

    for k, game in enumerate(games):
        if not isinstance(game, dict) or game.get("game") != NAME:
            continue
        for race in game.get("races", []):
            where = f"game {k + 1} race {race['race']}"
            for i in race["winners"]:
                me = race["racers"][i]
                if me["challenger"]:
                    continue
                tracks.setdefault(me["name"], set()).add(race["track"])
                for feat in sorted(_race_feats(race, i)):
                    earn(me["name"], feat, where)
        if game.get("mode") == "cup" and game.get("phase") == "over":
            where = f"game {k + 1}"
            for i in game["result"]["winners"]:
                r = game["racers"][i]
                if r["challenger"]:
                    continue
                earn(r["name"], "cup", where)
            names = [game["racers"][race["winners"][0]]["name"] for race in game["races"]]
            if len(names) == len(MAPS) and len(set(names)) == 1 and not game["racers"][
                    game["races"][0]["winners"][0]]["challenger"]:
                earn(names[0], "cup-every-race", where)
    for name, won in tracks.items():
        if set(MAPS) <= won:
            earn(name, "every-track", "tracks " + ", ".join(MAPS))
    return out
