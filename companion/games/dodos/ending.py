"""The end of a race, of the Cup and of the Derby: who won, the places, Fans and Power-ups."""

from __future__ import annotations

from typing import Any

from companion.games.dodos.setup import racer_side, start_race, track_of
from companion.games.dodos.tracks import MAPS, TRACKS

G = dict[str, Any]

CUP_RACES = len(MAPS)


def past(g: G, r: int) -> int:
    """Hexes past the finish line (negative: not finished)."""
    return g["racers"][r]["p"] - track_of(g, r).hexes + 1


def check_end(g: G) -> None:
    """End of a round: the race ends if a racer is past the line (the Derby: a team has both finished)."""
    if g["mode"] == "derby":
        done = [t for t in range(4) if g["racers"][t]["finished"] and g["racers"][t + 4]["finished"]]
        if done:
            g["queue"] = [["race_over"]]
        return
    if any(past(g, i) > 0 for i in range(len(g["racers"]))):
        g["queue"] = [["race_over"]]


def groups_by(g: G, racers: list[int], key) -> list[list[int]]:
    """``racers`` in groups of equal ``key`` (best first)."""
    out: list[list[int]] = []
    for r in sorted(racers, key=key, reverse=True):
        if out and key(out[-1][0]) == key(r):
            out[-1].append(r)
        else:
            out.append([r])
    return out


def race_key(g: G):
    return lambda r: (g["racers"][r]["p"], g["racers"][r]["hand"])


def record(g: G, winners: list[int], places: list[list[int]]) -> None:
    """Keep what the achievements need of the finished race."""
    opts = g["options"]
    g["races"].append({
        "race": g["race"], "mode": g["mode"], "track": g["track"], "side": g["side"], "rounds": g["round"],
        "players": len(g["players"]), "challengers": sum(r["challenger"] for r in g["racers"]),
        "level": opts["challenger_level"],
        "first_across": g["first_across"], "winners": winners, "places": places,
        "racers": [{"name": r["name"], "challenger": r["challenger"], "team": r["team"], "p": r["p"],
                    "past": past(g, i), "hand": r["hand"], "stats": dict(r["stats"])}
                   for i, r in enumerate(g["racers"])]})


def race_over(g: G) -> None:
    g["prompt"] = None
    if g["mode"] == "derby":
        derby_over(g)
        return
    places = groups_by(g, list(range(len(g["racers"]))), race_key(g))
    if g["mode"] == "race":
        winners = places[0]
        record(g, winners, places)
        g["result"] = {"winners": winners, "places": places}
        g["phase"] = "over"
        g["queue"] = []
        return
    g["phase"] = "race_end"
    g["tiebreak"] = {"groups": places, "rolls": {}}
    g["queue"] = [["tiebreak"], ["awards"]]


def award(place: int) -> str:
    """Cup: 1st 2 Fans, 2nd 1 Fan, 3rd to 6th a Power-up card."""
    return {1: "2 fans", 2: "1 fan"}.get(place, "power-up" if 3 <= place <= 6 else "nothing")


def _needs_roll(groups: list[list[int]], k: int) -> bool:
    start = sum(len(x) for x in groups[:k]) + 1
    group = groups[k]
    return len(group) > 1 and len({award(start + i) for i in range(len(group))}) > 1


def tiebreak_prompt(g: G) -> None:
    """Cup ties (same hex, same cards in hand) for places with different awards: the tied racers roll."""
    tb = g["tiebreak"]
    for k, group in enumerate(tb["groups"]):
        if _needs_roll(tb["groups"], k):
            waiting = [r for r in group if str(r) not in tb["rolls"]]
            g["prompt"] = {"kind": "tiebreak", "racer": waiting[0], "group": group}
            return


def tiebreak_roll(g: G, r: int, value: int) -> None:
    tb = g["tiebreak"]
    tb["rolls"][str(r)] = value
    group = g["prompt"]["group"]
    g["prompt"] = None
    if all(str(x) in tb["rolls"] for x in group):
        k = tb["groups"].index(group)
        split = groups_by(g, group, lambda x: tb["rolls"][str(x)])
        tb["groups"][k:k + 1] = split
        tb["rolls"] = {}
    g["queue"][:0] = [["tiebreak"]]


def awards(g: G) -> None:
    """Fans and Power-ups by place; the next track (the winner takes the marker) or the champion."""
    groups = g["tiebreak"]["groups"]
    g["tiebreak"] = None
    place = 1
    for group in groups:
        for r in group:
            racer = g["racers"][r]
            prize = award(place)
            if prize == "2 fans" or prize == "1 fan":
                n = min(int(prize[0]), g["fans_reserve"])
                racer["fans"] += n
                g["fans_reserve"] -= n
            elif prize == "power-up" and g["pu_deck"] > 0:
                g["pu_deck"] -= 1
                racer["power_ups"] += 1
        place += len(group)
    winner = groups[0][0]
    record(g, [winner], groups)
    if g["race"] >= CUP_RACES:
        everyone = list(range(len(g["racers"])))
        champ = groups_by(g, everyone, lambda r: (g["racers"][r]["fans"], g["racers"][r]["power_ups"],
                                                   g["racers"][r]["hand"]))
        g["result"] = {"winners": champ[0], "places": champ}
        g["phase"] = "over"
        g["queue"] = []
        return
    g["race"] += 1
    g["track"] = MAPS[g["race"] - 1]
    g["marker"] = winner
    if g["options"]["challenger_marker"] == "skip" and g["racers"][winner]["challenger"]:
        n = len(g["racers"])
        g["marker"] = next(i % n for i in range(winner, winner + n) if not g["racers"][i % n]["challenger"])
    g["phase"] = "race_start"
    start_race(g)


def derby_over(g: G) -> None:
    """The Derby ends when both racers of a team finished; of such teams the one with the furthest racer
    wins (hexes past its own track's line; then most cards in that racer's hand; else shared)."""
    done = [t for t in range(4) if g["racers"][t]["finished"] and g["racers"][t + 4]["finished"]]

    def best(t: int) -> tuple[int, int]:
        return max((past(g, r), g["racers"][r]["hand"]) for r in (t, t + 4))

    top = max(best(t) for t in done)
    teams = [t for t in done if best(t) == top]
    winners = sorted(r for t in teams for r in (t, t + 4))
    order = groups_by(g, list(range(4)), lambda t: (t in done, best(t)))
    places = [[r for t in grp for r in (t, t + 4)] for grp in order]
    record(g, winners, places)
    g["result"] = {"winners": winners, "places": places, "teams": teams}
    g["phase"] = "over"
    g["queue"] = []


def track_hexes(g: G, r: int) -> int:
    return TRACKS[g["track"]][racer_side(g, r)].hexes
