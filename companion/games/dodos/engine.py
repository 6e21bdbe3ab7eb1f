"""The round machine: a queue of steps run until one needs an entry (a prompt).

``g`` is the mutable working copy of the state while one action is applied. ``run(g)`` pops steps
from ``g["queue"]`` and carries out the automatic ones (advancing, discarding, drawing, recovering,
passing the marker) until a step sets ``g["prompt"]``: what the table must enter next.
"""

from __future__ import annotations

from typing import Any

from companion.games.dodos import ending
from companion.games.dodos.setup import RECOVER_CHALLENGER, RECOVER_PLAYER, racer_side, track_of, turn_order

G = dict[str, Any]


# --------------------------------------------------------------------------- cards


def draw(g: G, r: int, k: int) -> int:
    """Racer ``r`` draws ``k`` cards; an empty deck is refilled from the discard pile. Returns the drawn."""
    got = 0
    for _ in range(k):
        if g["deck"] == 0:
            g["deck"], g["discard"] = g["discard"], 0
        if g["deck"] == 0:
            break
        g["deck"] -= 1
        g["racers"][r]["hand"] += 1
        got += 1
    return got


def damage(g: G, r: int, k: int) -> int:
    """Racer ``r`` takes ``k`` damage: discards that many cards, or all it has. Returns the discarded."""
    racer = g["racers"][r]
    taken = min(k, racer["hand"])
    racer["hand"] -= taken
    racer["damage"] += taken
    g["discard"] += taken
    return taken


def on_board(g: G, r: int) -> bool:
    return not g["racers"][r]["finished"]


def note(g: G, text: str) -> None:
    """The last few things the companion did on its own (shown on the tablet)."""
    g["log"] = [*g["log"][-7:], text]


# --------------------------------------------------------------------------- positions


def set_position(g: G, r: int, p: int, route: Any) -> None:
    racer = g["racers"][r]
    racer["p"], racer["route"] = p, (list(route) if route is not None else None)
    n = track_of(g, r).hexes
    if p >= n and g["first_across"] is None:
        g["first_across"] = r
    if g["mode"] == "derby" and p >= n and not racer["finished"]:
        racer["finished"] = True
        note(g, f"{racer['name']} finished the track and leaves the board")


def back(g: G, r: int, n: int) -> None:
    """Racer ``r`` goes back ``n`` hexes (no special hex applies going back)."""
    racer = g["racers"][r]
    t = track_of(g, r)
    p, route = racer["p"], tuple(racer["route"]) if racer["route"] else None
    for _ in range(n):
        p, route = t.backward(p, route)
    set_position(g, r, p, route)


def recover(g: G) -> None:
    """Every racer on the board without cards goes back 3 hexes and draws 5 (Challengers 6)."""
    for r in turn_order(g):
        racer = g["racers"][r]
        if racer["hand"] == 0 and on_board(g, r):
            back(g, r, 3)
            k = RECOVER_CHALLENGER if racer["challenger"] else RECOVER_PLAYER
            got = draw(g, r, k)
            note(g, f"{racer['name']} recovers: back 3 hexes, draws {got}")


def walk(g: G) -> None:
    """Continue the open walk (``g["walk"]``) until it ends or a special hex asks something."""
    w = g["walk"]
    r = w["racer"]
    racer = g["racers"][r]
    t = track_of(g, r)
    challenger = racer["challenger"]
    while w["left"] > 0 and not racer["finished"]:
        p, route = racer["p"], tuple(racer["route"]) if racer["route"] else None
        if route is None and not challenger and t.ramp_at(t.hex_of(p)) is not None:
            g["prompt"] = {"kind": "glass", "racer": r, "left": w["left"]}
            return
        p, route = t.forward(p, route, challenger=challenger)
        w["left"] -= 1
        w["moved"] += 1
        set_position(g, r, p, route)
        on_signal = t.signal_at(t.hex_of(p)) is not None
        if route is None and not challenger and on_signal and not racer["finished"]:
            g["prompt"] = {"kind": "shortcut", "racer": r}
            return
    end_walk(g)


def end_walk(g: G) -> None:
    w = g["walk"]
    g["walk"] = None
    r = w["racer"]
    racer = g["racers"][r]
    t = track_of(g, r)
    if (w["ctx"] == "speed" and w["moved"] > 0 and not racer["challenger"] and racer["route"] is None
            and not racer["finished"] and t.hex_of(racer["p"]) in t.flames):
        g["prompt"] = {"kind": "flame", "racer": r}


def start_walk(g: G, r: int, n: int, ctx: str) -> None:
    if n < 0:
        back(g, r, -n)
        return
    if n == 0 or not on_board(g, r):
        return
    g["walk"] = {"racer": r, "left": n, "ctx": ctx, "moved": 0}
    walk(g)


def fireball_targets(g: G, r: int) -> list[int]:
    """Racers hit by Fireballs from racer ``r``'s flame hex (see the ``fireballs`` option)."""
    me = g["racers"][r]["p"]
    others = [i for i in range(len(g["racers"])) if i != r and on_board(g, i)
              and racer_side(g, i) == racer_side(g, r)]
    if g["options"]["fireballs"] == "within-two":
        return [i for i in others if abs(g["racers"][i]["p"] - me) <= 2]
    hexes = sorted({g["racers"][i]["p"] for i in others}, key=lambda p: (abs(p - me), -p))[:2]
    return [i for i in others if g["racers"][i]["p"] in hexes]


# --------------------------------------------------------------------------- the steps


def speed_of(g: G, r: int, speed: int) -> int:
    """A player's card Speed on this track: deep snow (Polaria inner) takes 1 off; never below 0."""
    if track_of(g, r).deep_snow:
        speed -= 1
    return max(0, speed)


def enrage(g: G) -> None:
    """Two or more Aggressive cards enrage their owners (three with six racers, five in the Derby)."""
    opts = g["options"]
    if g["mode"] == "derby":
        need = 5
    else:
        count = len(g["racers"]) if opts["six_racer_rule"] == "racers" else len(g["players"])
        need = 3 if count >= 6 else 2
    angry = [i for i, r in enumerate(g["racers"]) if r["played"] and r["played"]["kind"] == "aggressive"
             and (opts["red_kiwi_counts"] or not r["played"]["red_kiwi"])]
    hit = len(angry) >= need
    for i, r in enumerate(g["racers"]):
        r["enraged"] = hit and i in angry
    if hit:
        note(g, f"{len(angry)} Aggressive cards: " + ", ".join(g["racers"][i]["name"] for i in angry)
             + " enraged (effects cancelled)")
    steps: list[list[Any]] = []
    if g["mode"] == "derby":
        steps += derby_bonus(g)
    steps.append(["turns"])
    g["queue"][:0] = steps


def derby_bonus(g: G) -> list[list[Any]]:
    """A Derby team whose two cards match in type advances 1 each, in turn order."""
    matched = set()
    for team in range(4):
        a, b = g["racers"][team]["played"], g["racers"][team + 4]["played"]
        if a and b and a["kind"] == b["kind"] != "none":
            matched |= {team, team + 4}
            for i in (team, team + 4):
                g["racers"][i]["stats"]["matched"] += 1
    return [["advance", r, 1, "bonus"] for r in turn_order(g) if r in matched and on_board(g, r)]


def begin_turn(g: G, r: int) -> None:
    racer = g["racers"][r]
    card = racer["played"]
    g["turn"] = r
    if card is None:
        g["turn"] = None
        return
    steps: list[list[Any]] = []
    if racer["finished"]:  # Derby: the card's Speed goes to the partner, its effect is ignored
        partner = (r + 4) % 8
        if on_board(g, partner):
            steps.append(["advance", partner, speed_of(g, partner, card["speed"]), "partner"])
        effect = None
    elif racer["challenger"]:
        b, red, green = racer["mods"]
        kind = card["kind"]
        if kind == "normal":
            steps.append(["advance", r, card["speed"] + b, "speed"])
        elif kind == "aggressive":
            steps.append(["advance", r, card["speed"] * red, "speed"])
        elif green > 0:
            steps.append(["cdice", r, green])
        effect = {"active": kind == "aggressive" and not racer["enraged"],
                  "why": "enraged" if racer["enraged"] else None, "blocks": 0, "locked": False, "paid": False}
    else:
        kind = card["kind"]
        steps.append(["advance", r, speed_of(g, r, card["speed"]), "speed"])
        cancelled = kind == "aggressive" and racer["enraged"] and not card["red_kiwi"]
        effect = {"active": kind != "none" and not cancelled, "why": "enraged" if cancelled else
                  ("no card" if kind == "none" else None), "blocks": 0, "locked": False, "paid": False}
    steps += [["window", "turn", r, effect], ["end_turn", r]]
    g["queue"][:0] = steps


def effect_on(w: G | None) -> bool:
    """The current card's effect still applies (not cancelled, not blocked an odd number of times)."""
    if not w or not w.get("effect"):
        return False
    e = w["effect"]
    return bool(e["active"]) and e["blocks"] % 2 == 0


def close_turn_window(g: G) -> None:
    """The turn's window closes: a Challenger's Aggressive card (not enraged, not blocked) deals
    2 damage to every other racer."""
    w = g["window"]
    r = w["racer"]
    racer = g["racers"][r]
    if racer["challenger"] and effect_on(w):
        for i in range(len(g["racers"])):
            if i != r and on_board(g, i):
                damage(g, i, 2)
        note(g, f"{racer['name']}'s Aggressive card: 2 damage to every other racer")


def end_turn(g: G, r: int) -> None:
    racer = g["racers"][r]
    if racer["played"] is not None:
        if racer["played"]["kind"] != "none":
            g["discard"] += 1
        racer["played"] = None
    g["turn"] = None
    recover(g)


def round_end(g: G) -> None:
    opts = g["options"]
    steps: list[list[Any]] = []
    if g["mode"] == "derby":
        steps += [["pass_marker"], ["derby_places"], ["recover"], ["check_end"], ["next_round"]]
    else:
        if opts["abilities"] or any(not r["challenger"] and r["power_ups"] for r in g["racers"]):
            steps.append(["window", "round_end", None, None])
        steps += [["lead"], ["draws"], ["recover"], ["check_end"], ["pass_marker"], ["next_round"]]
    g["queue"][:0] = steps


def leaders(g: G, among: list[int]) -> list[int]:
    if not among:
        return []
    best = max(g["racers"][i]["p"] for i in among)
    top = [i for i in among if g["racers"][i]["p"] == best]
    if len(top) > 1 and g["options"]["lead_tie"] == "none":
        return []
    return top


def lead(g: G) -> None:
    """The Lead Racer advances 1 hex."""
    g["leaders"] = leaders(g, [i for i in turn_order(g) if on_board(g, i)])
    g["queue"][:0] = [["advance", i, 1, "lead"] for i in g["leaders"]]


def draws(g: G) -> None:
    """Everyone else draws 1, from the first player (or the one to their left if the first player leads)."""
    for i in turn_order(g):
        if i not in g["leaders"] and on_board(g, i):
            draw(g, i, 1)


def derby_places(g: G) -> None:
    """Derby end of round, each track: leaders +2, second places +1 and draw 1, the others draw 2."""
    steps: list[list[Any]] = []
    for side in ("inner", "outer"):
        here = [i for i in turn_order(g) if on_board(g, i) and racer_side(g, i) == side]
        ps = sorted({g["racers"][i]["p"] for i in here}, reverse=True)
        for i in here:
            p = g["racers"][i]["p"]
            if p == ps[0]:
                steps.append(["advance", i, 2, "lead"])
            elif len(ps) > 1 and p == ps[1]:
                steps.append(["advance", i, 1, "lead"])
                draw(g, i, 1)
            else:
                draw(g, i, 2)
    g["queue"][:0] = steps


def pass_marker(g: G) -> None:
    """The first-player marker passes to the left (skipping Challengers if so set)."""
    order = turn_order(g)[1:] + [g["marker"]]
    if g["options"]["challenger_marker"] == "skip":
        order = [i for i in order if not g["racers"][i]["challenger"]] or order
    g["marker"] = order[0]


def scheme(g: G) -> None:
    g["phase"] = "scheming"
    for r in g["racers"]:
        r["played"] = None
        r["enraged"] = False
    pending = [i for i in turn_order(g) if not g["racers"][i]["challenger"]
               and (not g["racers"][i]["finished"] or g["racers"][i]["hand"] > 0)]
    g["prompt"] = {"kind": "reveal", "pending": pending}


def after_reveals(g: G) -> None:
    """All players revealed: each Challenger's top card next, then the enraged check."""
    steps: list[list[Any]] = [["challenger", i] for i in turn_order(g) if g["racers"][i]["challenger"]]
    steps.append(["enrage"])
    g["queue"][:0] = steps


def step(g: G, s: list[Any]) -> None:
    kind = s[0]
    if kind == "scheme":
        scheme(g)
    elif kind == "challenger":
        if g["racers"][s[1]]["hand"] == 0:  # only if the deck and discard pile ran dry
            note(g, f"{g['racers'][s[1]]['name']} has no card to reveal")
            return
        mode = g["options"]["challenger_cards"]
        g["prompt"] = {"kind": "challenger_draw" if mode == "drawn" else "challenger_card", "racer": s[1]}
    elif kind == "enrage":
        enrage(g)
    elif kind == "turns":
        g["phase"] = "running"
        g["queue"][:0] = [["turn", r] for r in turn_order(g)] + [["round_end"]]
    elif kind == "turn":
        begin_turn(g, s[1])
    elif kind == "advance":
        start_walk(g, s[1], s[2], s[3])
    elif kind == "cdice":
        g["prompt"] = {"kind": "challenger_dice", "racer": s[1], "dice": s[2]}
    elif kind == "window":
        if s[1] != "turn":
            g["phase"] = s[1]
        g["window"] = {"kind": s[1], "racer": s[2], "effect": s[3], "entries": 0, "reactions": 0,
                       "open": False}
        g["prompt"] = {"kind": "window", "window": s[1], "racer": s[2]}
    elif kind == "end_turn":
        end_turn(g, s[1])
    elif kind == "round_end":
        g["phase"] = "round_end"
        round_end(g)
    elif kind == "lead":
        lead(g)
    elif kind == "draws":
        draws(g)
    elif kind == "derby_places":
        derby_places(g)
    elif kind == "recover":
        recover(g)
    elif kind == "check_end":
        ending.check_end(g)
    elif kind == "pass_marker":
        pass_marker(g)
    elif kind == "next_round":
        g["round"] += 1
        g["leaders"] = []
        g["queue"][:0] = [["scheme"]]
    elif kind == "race_over":
        ending.race_over(g)
    elif kind == "tiebreak":
        ending.tiebreak_prompt(g)
    elif kind == "awards":
        ending.awards(g)
    else:  # pragma: no cover
        raise AssertionError(f"unknown step {kind}")


def run(g: G) -> None:
    """Carry out queued steps until one asks for an entry or the game is over. A window left open
    by an effect's move (which asked something on the way) takes its prompt back."""
    while g["prompt"] is None and g["phase"] != "over":
        w = g["window"]
        if w is not None:
            g["prompt"] = {"kind": "window", "window": w["kind"], "racer": w["racer"]}
            return
        if not g["queue"]:
            return
        step(g, g["queue"].pop(0))
