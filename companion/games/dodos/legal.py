"""What can be entered now (every legal action with its button label), who acts, and the sentences."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from companion.games.base import CHANCE, LegalAction, ToMove
from companion.games.dodos.actions import (
    DAMAGE_STEPS,
    DRAW_STEPS,
    MAX_SPEED,
    MOVE_STEPS,
    PAY_STEPS,
    PROJECTILES,
    ChallengerCard,
    ChallengerDice,
    Damage,
    DiscardPowerUp,
    Done,
    Draw,
    Flame,
    GlassFail,
    GlassJump,
    Launch,
    Move,
    OpenEntries,
    Pay,
    PlayReaction,
    Reveal,
    RollDie,
    ShortcutRoll,
    Steal,
    TiebreakRoll,
)
from companion.games.dodos.engine import effect_on, on_board
from companion.games.dodos.rules import MAX_ENTRIES, entries_open
from companion.games.dodos.setup import track_of
from companion.games.dodos.tracks import CHALLENGER_DECK

G = dict[str, Any]
HOST_SEAT = 0
"""The seat that enters the Challengers' cards (the host; in 1-Player Mode the only player)."""


def dice_sums(n: int) -> dict[int, Fraction]:
    """Probability of each total of ``n`` six-sided dice."""
    dist = {0: Fraction(1)}
    for _ in range(n):
        new: dict[int, Fraction] = {}
        for total, pr in dist.items():
            for face in range(1, 7):
                new[total + face] = new.get(total + face, Fraction(0)) + pr / 6
        dist = new
    return dist


def _name(g: G, r: int) -> str:
    return g["racers"][r]["name"]


def legal(g: G) -> list[LegalAction]:
    p = g["prompt"]
    if g["phase"] == "over" or p is None:
        return []
    kind = p["kind"]
    out: list[LegalAction] = []
    if kind == "reveal":
        for seat in p["pending"][:1]:  # entered in turn order (the cards were revealed together)
            racer = g["racers"][seat]
            nm = racer["name"]
            if racer["hand"] > 0:
                for k in ("normal", "aggressive"):
                    for s in range(MAX_SPEED + 1):
                        out.append(LegalAction(Reveal(seat, k, s), label=f"{nm}: {k.title()} {s}"))
                if g["mode"] == "cup" and racer["power_ups"] > 0:
                    for s in range(MAX_SPEED + 1):
                        out.append(LegalAction(Reveal(seat, "aggressive", s, True),
                                               label=f"{nm}: Aggressive {s} (Red Kiwi)"))
            out.append(LegalAction(Reveal(seat, "none", 0), label=f"{nm}: no card to play"))
    elif kind == "challenger_card":
        r = p["racer"]
        for k in ("normal", "aggressive", "reaction"):
            for s in range(MAX_SPEED + 1):
                out.append(LegalAction(ChallengerCard(r, k, s), label=f"{_name(g, r)}: {k.title()} {s}"))
    elif kind == "challenger_draw":
        r = p["racer"]
        total = sum(c for _, _, c in CHALLENGER_DECK)
        merged: dict[tuple[str, int], int] = {}
        for k, s, c in CHALLENGER_DECK:
            merged[(k, s)] = merged.get((k, s), 0) + c
        for (k, s), c in merged.items():
            out.append(LegalAction(ChallengerCard(r, k, s, True), chance=True, probability=c / total,
                                   label=f"{_name(g, r)} draws {k.title()} {s}"))
    elif kind == "challenger_dice":
        for total, pr in sorted(dice_sums(p["dice"]).items()):
            out.append(LegalAction(ChallengerDice(total), chance=True, probability=float(pr),
                                   label=f"Dice show {total}"))
    elif kind in ("shortcut", "tiebreak"):
        for v in range(1, 7):
            a = ShortcutRoll(v) if kind == "shortcut" else TiebreakRoll(p["racer"], v)
            out.append(LegalAction(a, chance=True, probability=1 / 6, label=f"Rolled {v}"))
    elif kind == "glass":
        r = p["racer"]
        t = track_of(g, r)
        ramp = t.ramp_at(t.hex_of(g["racers"][r]["p"]))
        assert ramp is not None
        for h in ramp.landings:
            paw = " (smallest paw)" if h == ramp.smallest_paw else ""
            out.append(LegalAction(GlassJump(h), label=f"Egg landed on hex {h}{paw}"))
        out.append(LegalAction(GlassJump(None), label="Egg missed"))
    elif kind == "glass_fail":
        out += [LegalAction(GlassFail("damage"), label="Take 2 damage, go to the smallest paw"),
                LegalAction(GlassFail("stay"), label="Stay on the glass ramp")]
    elif kind == "flame":
        out += [LegalAction(Flame("ashes"), label="Ashes: take a card from the discard pile"),
                LegalAction(Flame("fireballs"), label="Fireballs: 1 damage to the 2 nearest hexes"),
                LegalAction(Flame("ignore"), label="Ignore the flame (adjacent hex)")]
    elif kind == "window":
        out += window_actions(g)
    return out


def window_actions(g: G) -> list[LegalAction]:
    w = g["window"]
    out = [LegalAction(Done(), label="Done" if w["kind"] != "turn" else "End the turn")]
    if not w["open"]:
        what = "Reactions and effects" if w["kind"] == "turn" else "Abilities and powers"
        return [*out, LegalAction(OpenEntries(), label=f"{what}…")]
    if w["entries"] >= MAX_ENTRIES:
        return out
    racers = g["racers"]
    players = range(len(g["players"]))
    board = [i for i in range(len(racers)) if on_board(g, i)]
    if w["kind"] == "turn":
        e = w["effect"]
        cur = racers[w["racer"]]
        for s in players:
            if racers[s]["hand"] > 0 and on_board(g, s):
                out.append(LegalAction(PlayReaction(s), label=f"{_name(g, s)} plays a Reaction"))
                if e is not None and not e["locked"]:
                    out.append(LegalAction(PlayReaction(s, True), label=f"{_name(g, s)} blocks"))
        if effect_on(w) and not cur["challenger"] and not cur["finished"] and not e["paid"]:
            for c in PAY_STEPS:
                out.append(LegalAction(Pay(c), label=f"{cur['name']} pays {c}"))
    for i in players:
        if racers[i]["power_ups"] > 0:
            out.append(LegalAction(DiscardPowerUp(i), label=f"{_name(g, i)} discards a Power-up"))
    if not entries_open(g, w):
        return out
    for i in board:
        for c in DAMAGE_STEPS:
            out.append(LegalAction(Damage(i, c), label=f"{_name(g, i)} takes {c} damage"))
    for i in board:
        for h in MOVE_STEPS:
            word = "forward" if h > 0 else "back"
            out.append(LegalAction(Move(i, h), label=f"{_name(g, i)} {word} {abs(h)}"))
    for i in board:
        for c in DRAW_STEPS:
            out.append(LegalAction(Draw(i, c), label=f"{_name(g, i)} draws {c}"))
    for s in players:
        if not on_board(g, s):
            continue
        for j in board:
            if j != s and racers[j]["hand"] > 0:
                out.append(LegalAction(Steal(s, j), label=f"{_name(g, s)} takes a card from {_name(g, j)}"))
        for pr in PROJECTILES:
            out.append(LegalAction(Launch(s, pr), label=f"{_name(g, s)} launches the {pr}"))
        out.append(LegalAction(RollDie(s), label=f"{_name(g, s)} rolls a die"))
    return out


def to_move(g: G) -> ToMove:
    p = g["prompt"]
    if g["phase"] == "over" or p is None:
        return ToMove(())
    kind = p["kind"]
    if kind == "reveal":
        return ToMove(tuple(p["pending"][:1]))
    if kind in ("challenger_draw", "challenger_dice", "shortcut", "tiebreak"):
        return ToMove((CHANCE,))
    if kind == "challenger_card":
        return ToMove((HOST_SEAT,))
    if kind in ("glass", "glass_fail", "flame"):
        return ToMove((p["racer"],))
    return ToMove(tuple(range(len(g["players"]))))


def next_sentence(g: G) -> str:
    p = g["prompt"]
    if g["phase"] == "over":
        res = g["result"] or {}
        names = ", ".join(_name(g, r) for r in res.get("winners", []))
        return f"{'The Cup is' if g['mode'] == 'cup' else 'The race is'} over: {names} won"
    if p is None:
        return "Nothing to enter"
    kind = p["kind"]
    if kind == "reveal":
        names = ", ".join(_name(g, s) for s in p["pending"])
        return (f"Round {g['round']} scheming: reveal the cards, then enter {_name(g, p['pending'][0])}'s "
                f"(still to enter: {names})")
    r = p.get("racer")
    nm = _name(g, r) if isinstance(r, int) else ""
    if kind == "challenger_card":
        return f"Host: enter the type and Speed of {nm}'s top card"
    if kind == "challenger_draw":
        return f"The companion draws {nm}'s top card"
    if kind == "challenger_dice":
        return f"Roll {p['dice']} dice for {nm}'s Reaction card"
    if kind == "shortcut":
        return f"{nm} is on a shortcut signal: roll a die (4-6 shortcut, 1-3 1 damage)"
    if kind == "glass":
        return f"{nm}: flick the Egg from the glass ramp ({p['left']} movement left)"
    if kind == "glass_fail":
        return f"{nm}: no jumps left: take 2 damage to the smallest paw, or stay on the ramp"
    if kind == "flame":
        return f"{nm} stopped on a flame: Ashes, Fireballs, or ignore it"
    if kind == "tiebreak":
        return f"Tie for a place: {nm} rolls a die"
    w = g["window"]
    if w["kind"] == "round_end":
        return "End of the round: enter end-of-round abilities and powers, then Done"
    if w["kind"] == "race_start":
        return "Start of the race: enter start-of-race powers, then Done"
    cur = g["racers"][w["racer"]]
    if cur["finished"]:
        return f"{cur['name']}'s card moved their partner; Reactions, then end the turn"
    if cur["challenger"]:
        what = "its Aggressive card deals 2 damage to every other racer" if effect_on(w) else "no effect"
        return f"{cur['name']}'s turn ({what}): Reactions, then end the turn"
    state = "enter the effect" if effect_on(w) else f"effect cancelled ({w['effect']['why'] or 'blocked'})"
    return f"{cur['name']}'s turn: Reactions, {state}, then end the turn"


def describe(g: G, a: Any) -> str:
    """A sentence for ``a`` in state ``g`` (names, not numbers)."""
    racers = g["racers"]

    def nm(i: int) -> str:
        return racers[i]["name"] if 0 <= i < len(racers) else f"racer {i}"

    t = a.type
    if t == "reveal":
        if a.kind == "none":
            return f"{nm(a.seat)} has no Normal or Aggressive card to play"
        kiwi = " with Red Kiwi" if a.red_kiwi else ""
        article = "an" if a.kind == "aggressive" else "a"
        return f"{nm(a.seat)} revealed {article} {a.kind.title()} card of Speed {a.speed}{kiwi}"
    if t == "challenger_card":
        how = "drew" if a.drawn else "revealed"
        return f"{nm(a.racer)} {how} a {a.kind.title()} card of Speed {a.speed}"
    if t == "challenger_dice":
        return f"The dice for the Challenger show {a.total}"
    if t == "shortcut_roll":
        return f"Shortcut roll: {a.value} ({'success' if a.value >= 4 else 'failure, 1 damage'})"
    if t == "glass_jump":
        return "The Egg missed" if a.landing is None else f"The Egg landed on hex {a.landing}"
    if t == "glass_fail":
        return "2 damage and on to the smallest paw" if a.choice == "damage" else "Stays on the glass ramp"
    if t == "flame":
        return {"ashes": "Flame: Ashes", "fireballs": "Flame: Fireballs"}.get(a.choice, "Ignores the flame")
    if t == "reaction":
        return f"{nm(a.seat)} plays a {'Block' if a.cancels else 'Reaction'} card"
    if t == "pay":
        return f"Pays {a.cards} card{'s' if a.cards > 1 else ''} for the effect"
    if t == "damage":
        return f"{nm(a.racer)} takes {a.cards} damage"
    if t == "move":
        return f"{nm(a.racer)} moves {'forward' if a.hexes > 0 else 'back'} {abs(a.hexes)}"
    if t == "draw":
        return f"{nm(a.racer)} draws {a.cards}"
    if t == "steal":
        return f"{nm(a.racer)} takes a card from {nm(a.from_racer)}"
    if t == "launch":
        return f"{nm(a.seat)} launches the {a.projectile}"
    if t == "roll_die":
        return f"{nm(a.seat)} rolls a die"
    if t == "discard_power_up":
        return f"{nm(a.racer)} discards a Power-up card"
    if t == "done":
        return "Done"
    if t == "open_entries":
        return "Entries opened"
    if t == "tiebreak_roll":
        return f"{nm(a.racer)} rolled {a.value} for the tie"
    if t == "new_game":
        return f"A new {g.get('mode', 'race')} with {', '.join(a.players)}"
    return t
