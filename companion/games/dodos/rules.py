"""The action handlers: each checks its action against the open prompt, changes the working copy and
lets the round machine run on. An illegal action raises before the state is touched."""

from __future__ import annotations

from typing import Any, NoReturn

from companion.games.base import IllegalAction
from companion.games.dodos import ending
from companion.games.dodos.actions import (
    CHALLENGER_KINDS,
    DAMAGE_STEPS,
    DRAW_STEPS,
    KINDS,
    MAX_SPEED,
    MOVE_STEPS,
    PAY_STEPS,
    PROJECTILES,
    Action,
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
    NewGame,
    OpenEntries,
    Pay,
    PlayReaction,
    Reveal,
    RollDie,
    ShortcutRoll,
    Steal,
    TiebreakRoll,
)
from companion.games.dodos.engine import (
    after_reveals,
    close_turn_window,
    damage,
    draw,
    effect_on,
    end_walk,
    fireball_targets,
    note,
    on_board,
    run,
    set_position,
    start_walk,
    walk,
)
from companion.games.dodos.setup import track_of
from companion.games.dodos.tracks import CHALLENGER_DECK

G = dict[str, Any]
MAX_ENTRIES = 10
"""Entries one window takes (reactions, damage, moves...) before it must be closed: keeps a turn bounded."""


def illegal(a: Action, rule: str, reason: str) -> NoReturn:
    raise IllegalAction(a, rule, reason)


def _prompt(g: G, a: Action, *kinds: str) -> G:
    p = g["prompt"]
    if g["phase"] == "over":
        illegal(a, "game-over", "the race is over")
    if p is None or p["kind"] not in kinds:
        from companion.games.dodos.legal import next_sentence

        illegal(a, "wrong-step", f"not possible now; next: {next_sentence(g)}")
    return p


def _racer(g: G, a: Action, r: int, what: str = "racer") -> dict[str, Any]:
    if not 0 <= r < len(g["racers"]):
        illegal(a, "bad-value", f"{what} must be a racer from 0 to {len(g['racers']) - 1}, got {r}")
    return g["racers"][r]


def _player(g: G, a: Action, seat: int) -> dict[str, Any]:
    if not 0 <= seat < len(g["players"]):
        illegal(a, "bad-value", f"seat must be a player from 0 to {len(g['players']) - 1}, got {seat}")
    return g["racers"][seat]


def _name(g: G, r: int) -> str:
    return g["racers"][r]["name"]


# --------------------------------------------------------------------------- scheming


def reveal(g: G, a: Reveal) -> None:
    p = _prompt(g, a, "reveal")
    racer = _player(g, a, a.seat)
    if a.seat not in p["pending"]:
        illegal(a, "one-card-each", f"{racer['name']} has already revealed a card this round")
    if a.seat != p["pending"][0]:
        illegal(a, "reveal-in-turn-order", f"the cards are entered in turn order: "
                                           f"{_name(g, p['pending'][0])}'s card first")
    if a.kind not in (*KINDS, "none"):
        illegal(a, "scheming-normal-or-aggressive",
                f"only Normal or Aggressive cards are played in the Scheming phase, got {a.kind!r}")
    if not 0 <= a.speed <= MAX_SPEED:
        illegal(a, "bad-value", f"Speed must be 0 to {MAX_SPEED}, got {a.speed}")
    if a.kind == "none" and (a.speed or a.red_kiwi):
        illegal(a, "bad-value", "no card played: Speed 0 and no Red Kiwi")
    if a.kind != "none" and racer["hand"] < 1:
        illegal(a, "no-cards", f"{racer['name']} has no card in hand")
    if a.red_kiwi and (g["mode"] != "cup" or a.kind != "aggressive" or racer["power_ups"] < 1):
        illegal(a, "red-kiwi", "Red Kiwi plays an Aggressive card in the Cup, by a racer holding Power-ups")
    if a.kind != "none":
        racer["hand"] -= 1
        racer["played"] = {"kind": a.kind, "speed": a.speed, "red_kiwi": a.red_kiwi}
    else:
        racer["played"] = {"kind": "none", "speed": 0, "red_kiwi": False}
    racer["stats"][a.kind] += 1
    p["pending"] = [s for s in p["pending"] if s != a.seat]
    if not p["pending"]:
        g["prompt"] = None
        after_reveals(g)


def challenger_card(g: G, a: ChallengerCard) -> None:
    p = _prompt(g, a, "challenger_card", "challenger_draw")
    if a.racer != p["racer"]:
        illegal(a, "challenger-order", f"{_name(g, p['racer'])}'s card comes now")
    drawn = p["kind"] == "challenger_draw"
    if a.drawn != drawn:
        illegal(a, "challenger-cards-setting",
                "the companion draws the Challengers' cards" if drawn
                else "the host enters the Challengers' cards")
    if a.kind not in CHALLENGER_KINDS:
        illegal(a, "bad-value", f"a card is normal, aggressive or reaction, got {a.kind!r}")
    if not 0 <= a.speed <= MAX_SPEED:
        illegal(a, "bad-value", f"Speed must be 0 to {MAX_SPEED}, got {a.speed}")
    if drawn and not any(k == a.kind and s == a.speed for k, s, _ in CHALLENGER_DECK):
        illegal(a, "challenger-deck", f"the configured deck has no {a.kind} card of Speed {a.speed}")
    racer = g["racers"][a.racer]
    racer["hand"] -= 1
    racer["played"] = {"kind": a.kind, "speed": a.speed, "red_kiwi": False}
    racer["stats"][a.kind if a.kind != "reaction" else "reactions"] += 1
    g["prompt"] = None


def challenger_dice(g: G, a: ChallengerDice) -> None:
    p = _prompt(g, a, "challenger_dice")
    if not p["dice"] <= a.total <= 6 * p["dice"]:
        illegal(a, "bad-value", f"{p['dice']} dice make {p['dice']} to {6 * p['dice']}, got {a.total}")
    g["prompt"] = None
    start_walk(g, p["racer"], a.total, "speed")


# --------------------------------------------------------------------------- special hexes


def shortcut_roll(g: G, a: ShortcutRoll) -> None:
    p = _prompt(g, a, "shortcut")
    if not 1 <= a.value <= 6:
        illegal(a, "bad-value", f"a die shows 1 to 6, got {a.value}")
    r = p["racer"]
    racer = g["racers"][r]
    racer["stats"]["rolled"] += 1
    g["prompt"] = None
    if a.value >= 4:
        t = track_of(g, r)
        set_position(g, r, racer["p"], (t.signal_at(t.hex_of(racer["p"])), 0))
        note(g, f"{racer['name']} rolled {a.value}: through the shortcut")
    else:
        damage(g, r, 1)
        note(g, f"{racer['name']} rolled {a.value}: 1 damage, the regular path")
    walk(g)


def glass_jump(g: G, a: GlassJump) -> None:
    p = _prompt(g, a, "glass")
    r = p["racer"]
    racer = g["racers"][r]
    t = track_of(g, r)
    ramp = t.ramp_at(t.hex_of(racer["p"]))
    assert ramp is not None
    if a.landing is not None and a.landing not in ramp.landings:
        hexes = ", ".join(map(str, ramp.landings))
        illegal(a, "glass-landing", f"the landing hexes of this ramp are {hexes}")
    w = g["walk"]
    w["left"] -= 1
    g["prompt"] = None
    if a.landing is not None:
        set_position(g, r, racer["p"] - ramp.ramp + a.landing, None)
        w["moved"] += 1
        walk(g)
    elif w["left"] == 0:
        g["prompt"] = {"kind": "glass_fail", "racer": r}
    else:
        walk(g)


def glass_fail(g: G, a: GlassFail) -> None:
    p = _prompt(g, a, "glass_fail")
    if a.choice not in ("damage", "stay"):
        illegal(a, "glass-fail-choice", "out of attempts: take 2 damage (smallest paw) or stay on the ramp")
    r = p["racer"]
    g["prompt"] = None
    if a.choice == "damage":
        racer = g["racers"][r]
        t = track_of(g, r)
        ramp = t.ramp_at(t.hex_of(racer["p"]))
        assert ramp is not None
        damage(g, r, 2)
        set_position(g, r, racer["p"] - ramp.ramp + ramp.smallest_paw, None)
    end_walk(g)


def flame(g: G, a: Flame) -> None:
    p = _prompt(g, a, "flame")
    if a.choice not in ("ashes", "fireballs", "ignore"):
        illegal(a, "flame-choice", "on a flame: ashes, fireballs, or ignore it (the adjacent hex)")
    r = p["racer"]
    g["prompt"] = None
    if a.choice == "ashes":
        if g["discard"] > 0:
            g["discard"] -= 1
            g["racers"][r]["hand"] += 1
        else:
            note(g, "Ashes: the discard pile is empty")
    elif a.choice == "fireballs":
        hit = fireball_targets(g, r)
        for i in hit:
            damage(g, i, 1)
        note(g, "Fireballs: 1 damage to " + (", ".join(_name(g, i) for i in hit) or "nobody"))


# --------------------------------------------------------------------------- windows


def _window(g: G, a: Action) -> G:
    _prompt(g, a, "window")
    w = g["window"]
    if not w["open"]:
        illegal(a, "open-entries-first", "open the entries first (Reactions and effects)")
    if w["entries"] >= MAX_ENTRIES:
        illegal(a, "entry-limit", f"{MAX_ENTRIES} entries in one window: close it (done) or undo")
    return w


def entries_open(g: G, w: G) -> bool:
    """Effects may be entered: the card's effect stands (a player's card) or a Reaction card was played;
    end-of-round and start-of-race windows take abilities and powers."""
    if w["kind"] != "turn":
        return True
    r = w["racer"]
    return w["reactions"] > 0 or (effect_on(w) and not g["racers"][r]["challenger"]
                                  and not g["racers"][r]["finished"])


def _entry(g: G, a: Action) -> G:
    w = _window(g, a)
    if not entries_open(g, w):
        illegal(a, "effect-cancelled", _why_closed(g, w))
    return w


def _why_closed(g: G, w: G) -> str:
    r = w["racer"]
    racer = g["racers"][r]
    if racer["challenger"]:
        return "Challengers' card effects are ignored (a Reaction card played now can have effects)"
    if racer["finished"]:
        return "a finished Derby racer's card effects are ignored"
    e = w["effect"]
    why = e["why"] or ("blocked" if e["blocks"] % 2 else "cancelled")
    return f"{racer['name']}'s effect is cancelled ({why})"


def _target(g: G, a: Action, r: int) -> dict[str, Any]:
    racer = _racer(g, a, r)
    if not on_board(g, r):
        illegal(a, "finished-off-board", f"{racer['name']} has finished and left the board")
    return racer


def reaction(g: G, a: PlayReaction) -> None:
    w = _window(g, a)
    racer = _player(g, a, a.seat)
    if w["kind"] != "turn":
        illegal(a, "reactions-in-running-phase", "Reaction cards are played during the Running phase turns")
    if racer["finished"]:
        illegal(a, "finished-off-board", f"{racer['name']} has finished: only their Speed still counts")
    if racer["hand"] < 1:
        illegal(a, "no-cards", f"{racer['name']} has no card in hand")
    if a.cancels:
        e = w["effect"]
        if e is None:
            illegal(a, "block-nothing-to-cancel", "there is no Movement card effect to cancel")
        if e["locked"]:
            illegal(a, "block-too-late", "a thrown Projectile or die, or an effect its owner already paid "
                                         "cards for, cannot be cancelled")
    racer["hand"] -= 1
    g["discard"] += 1
    racer["stats"]["reactions"] += 1
    w["reactions"] += 1
    w["entries"] += 1
    if a.cancels:
        w["effect"]["blocks"] += 1


def pay(g: G, a: Pay) -> None:
    w = _window(g, a)
    if w["kind"] != "turn":
        illegal(a, "pay-own-effect", "paying is for the card of the current turn")
    r = w["racer"]
    racer = g["racers"][r]
    if racer["challenger"] or racer["finished"] or not effect_on(w):
        illegal(a, "effect-cancelled", _why_closed(g, w) if not effect_on(w) or racer["challenger"]
                else "a finished Derby racer's effects are ignored")
    if w["effect"]["paid"]:
        illegal(a, "pay-once", "the effect's cost is already paid")
    if a.cards not in PAY_STEPS:
        illegal(a, "bad-value", f"a cost is {PAY_STEPS[0]} to {PAY_STEPS[-1]} cards, got {a.cards}")
    w["entries"] += 1
    w["effect"]["paid"] = True
    if a.cards > racer["hand"]:
        w["effect"]["active"] = False
        w["effect"]["why"] = "could not pay"
        note(g, f"{racer['name']} cannot pay {a.cards} cards: the effect is cancelled")
        return
    damage(g, r, a.cards)
    w["effect"]["locked"] = True


def damage_entry(g: G, a: Damage) -> None:
    w = _entry(g, a)
    _target(g, a, a.racer)
    if a.cards not in DAMAGE_STEPS:
        illegal(a, "bad-value", f"damage is entered {DAMAGE_STEPS[0]} to {DAMAGE_STEPS[-1]} at a time")
    w["entries"] += 1
    damage(g, a.racer, a.cards)


def move_entry(g: G, a: Move) -> None:
    w = _entry(g, a)
    _target(g, a, a.racer)
    if a.hexes not in MOVE_STEPS:
        illegal(a, "bad-value", f"moves are entered {MOVE_STEPS[0]} to {MOVE_STEPS[-1]} hexes a time, not 0")
    w["entries"] += 1
    g["prompt"] = None
    start_walk(g, a.racer, a.hexes, "effect")


def draw_entry(g: G, a: Draw) -> None:
    w = _entry(g, a)
    _target(g, a, a.racer)
    if a.cards not in DRAW_STEPS:
        illegal(a, "bad-value", f"draws are entered {DRAW_STEPS[0]} to {DRAW_STEPS[-1]} at a time")
    w["entries"] += 1
    draw(g, a.racer, a.cards)


def steal(g: G, a: Steal) -> None:
    w = _entry(g, a)
    taker = _player(g, a, a.racer)
    _target(g, a, a.racer)
    victim = _target(g, a, a.from_racer)
    if a.from_racer == a.racer:
        illegal(a, "bad-value", "a racer takes a card from another racer")
    if victim["hand"] < 1:
        illegal(a, "no-cards", f"{victim['name']} has no card to take")
    w["entries"] += 1
    victim["hand"] -= 1
    taker["hand"] += 1


def launch(g: G, a: Launch) -> None:
    w = _entry(g, a)
    racer = _player(g, a, a.seat)
    _target(g, a, a.seat)
    if a.projectile not in PROJECTILES:
        illegal(a, "bad-value", f"projectiles: {', '.join(PROJECTILES)}")
    w["entries"] += 1
    racer["stats"]["launched"] += 1
    if w["effect"] is not None:
        w["effect"]["locked"] = True


def roll_die(g: G, a: RollDie) -> None:
    w = _entry(g, a)
    racer = _player(g, a, a.seat)
    _target(g, a, a.seat)
    w["entries"] += 1
    racer["stats"]["rolled"] += 1
    if w["effect"] is not None:
        w["effect"]["locked"] = True


def discard_power_up(g: G, a: DiscardPowerUp) -> None:
    w = _window(g, a)
    racer = _racer(g, a, a.racer)
    if racer["challenger"]:
        illegal(a, "challengers-ignore-powers", "Challengers' Power-ups give them only their head start")
    if racer["power_ups"] < 1:
        illegal(a, "no-power-up", f"{racer['name']} holds no Power-up card")
    w["entries"] += 1
    racer["power_ups"] -= 1
    g["pu_discard"] += 1


def open_entries(g: G, a: OpenEntries) -> None:
    _prompt(g, a, "window")
    if g["window"]["open"]:
        illegal(a, "entries-open", "the entries are already open")
    g["window"]["open"] = True


def done(g: G, a: Done) -> None:
    _prompt(g, a, "window")
    if g["window"]["kind"] == "turn":
        close_turn_window(g)
    g["window"] = None
    g["prompt"] = None


def tiebreak_roll(g: G, a: TiebreakRoll) -> None:
    p = _prompt(g, a, "tiebreak")
    if a.racer != p["racer"]:
        illegal(a, "tiebreak-order", f"{_name(g, p['racer'])} rolls now")
    if not 1 <= a.value <= 6:
        illegal(a, "bad-value", f"a die shows 1 to 6, got {a.value}")
    ending.tiebreak_roll(g, a.racer, a.value)


def new_game(g: G, a: NewGame) -> None:
    illegal(a, "game-started", "the race has already started (new_game only comes first)")


HANDLERS = {
    NewGame: new_game, Reveal: reveal, ChallengerCard: challenger_card, ChallengerDice: challenger_dice,
    ShortcutRoll: shortcut_roll, GlassJump: glass_jump, GlassFail: glass_fail, Flame: flame,
    PlayReaction: reaction, Pay: pay, Damage: damage_entry, Move: move_entry, Draw: draw_entry,
    Steal: steal, Launch: launch, RollDie: roll_die, DiscardPowerUp: discard_power_up, Done: done,
    OpenEntries: open_entries,
    TiebreakRoll: tiebreak_roll,
}


def apply_to(g: G, a: Action) -> None:
    """Apply ``a`` to the working copy ``g`` (raises IllegalAction first if it breaks a rule)."""
    handler = HANDLERS.get(type(a))
    if handler is None:
        illegal(a, "unknown-action", f"not a Dodos Riding Dinos action: {a!r}")
    handler(g, a)
    run(g)
