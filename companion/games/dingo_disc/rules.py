"""The Dingo Disc rules: ``initial_state`` and the pure ``apply(state, action) -> state``.

Interpretations of the rulebook are documented in ``docs/rules.md``; the action vocabulary in
``docs/actions.md``. Every handler either returns a new state or raises :class:`IllegalAction`
before freezing a new state (at most a draft list was built), so an illegal action changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import Any, NoReturn

from companion.games.base import IllegalAction
from companion.games.dingo_disc import falls
from companion.games.dingo_disc.actions import (
    COLOURS,
    SIZES,
    AcceptPlacement,
    Action,
    ConfirmFall,
    CorrectFall,
    CorrectSize,
    DismissFlag,
    EndGame,
    Fall,
    FirstPlayer,
    Give,
    Hand,
    NewGame,
    Place,
    RedoPlacement,
    Removed,
    Roll,
    RollColour,
    TakeDice,
)
from companion.games.dingo_disc.state import (
    ATTEMPT,
    COLOURS_AT,
    CURRENT,
    DICE_COLOUR,
    DICE_NUMBER,
    DICE_TAKEN,
    DISC,
    DISC_PAWNS,
    FINISHING,
    FLAGS,
    GIVERS,
    LAST_PLACE,
    NEXT_FLAG_ID,
    OPTION_VALUES,
    PAWNS_PER_SIZE,
    PHASE,
    REVIEW,
    SUPPLY,
    VERSION,
    ColourRoll,
    DiscPawn,
    Flag,
    LastPlace,
    Options,
    Review,
    State,
)
from companion.games.dingo_disc.turns import (
    SEATS_AFTER,
    add_counts,
    close_window,
    close_window_draft,
    end_turn,
    end_turn_draft,
    finish_pos,
)

_tnew = tuple.__new__  # builds a named tuple without its Python-level __new__ (2x faster)


def illegal(action: Action, rule: str, reason: str) -> NoReturn:
    """Raise :class:`IllegalAction` for ``action`` breaking ``rule``."""
    raise IllegalAction(action, rule, reason)


def _where(zone: str | None, number: int | None) -> str:
    return "a line" if zone is None or number is None else f"{zone.upper()} {number}"


def initial_state(setup: NewGame) -> State:
    """The state after ``new_game``: pawns dealt per the rulebook table, first player not chosen yet."""
    if not isinstance(setup, NewGame):
        raise IllegalAction(setup, "setup", "a game starts with a new_game action")
    if setup.game != "dingo-disc":
        illegal(setup, "setup", f"unknown game {setup.game!r} (this core plays 'dingo-disc')")
    if setup.version not in (1, 2):
        illegal(setup, "setup", f"version must be 1 or 2, got {setup.version!r}")
    names = tuple(name.strip() for name in setup.players)
    if not 2 <= len(names) <= 6:
        illegal(setup, "players-2-to-6", f"Dingo Disc is for 2 to 6 players, got {len(names)}")
    if any(not name for name in names):
        illegal(setup, "setup", "player names must not be empty")
    if len(set(names)) != len(names):
        illegal(setup, "setup", "player names must be distinct")
    opts: dict[str, Any] = dict(setup.options)
    for key, value in opts.items():
        allowed = OPTION_VALUES.get(key)
        if allowed is None:
            illegal(setup, "setup", f"unknown option {key!r} (options: {', '.join(OPTION_VALUES)})")
        if value not in allowed:
            illegal(setup, "setup", f"option {key} must be one of {', '.join(allowed)}, got {value!r}")
    k = PAWNS_PER_SIZE[len(names)]
    return State(version=setup.version, names=names, options=Options(**opts),
                 supply=((k, k, k),) * len(names),
                 colours=(None,) * len(names), phase="first_player")


def _phase(s: State, a: Action, *phases: str) -> None:
    if s.phase not in phases:
        from companion.games.dingo_disc.expected import expected

        illegal(a, "wrong-phase", f"not possible now (phase {s.phase}); expected: {expected(s)['prompt']}")


def _seat(s: State, a: Action, seat: int, what: str) -> None:
    if not 0 <= seat < s.n:
        illegal(a, "bad-value", f"{what} must be a seat from 0 to {s.n - 1}, got {seat}")


def _first_player(s: State, a: FirstPlayer) -> State:
    _phase(s, a, "first_player")
    _seat(s, a, a.seat, "seat")
    if s.version == 1:
        return s.evolve(first=a.seat, current=a.seat, phase="roll", round=1, turn=1)
    return s.evolve(first=a.seat, current=a.seat, phase="colours")


def _roll_colour(s: State, a: RollColour) -> State:
    _phase(s, a, "colours")
    cur = s.current
    assert cur is not None
    if a.colour in s.colours:
        return s.evolve(colour_rolls=(*s.colour_rolls, ColourRoll(cur, a.colour, True)))
    colours = list(s.colours)
    colours[cur] = a.colour
    s = s.evolve(colours=tuple(colours), colour_rolls=(*s.colour_rolls, ColourRoll(cur, a.colour, False)))
    if all(c is not None for c in colours):
        return s.evolve(phase="roll", current=s.first, round=1, turn=1)
    return s.evolve(current=(cur + 1) % s.n)


def _take_dice(s: State, a: TakeDice) -> State:
    v = [*s]  # the draft; read by position too before any change (cheaper than the state's attributes)
    if v[PHASE] != "roll":
        _phase(s, a, "roll")
    if v[DICE_TAKEN]:
        illegal(a, "take-dice", "the dice are already taken")
    close_window_draft(s, v)
    v[DICE_TAKEN] = True
    return _tnew(State, v)


def _givers(s: State) -> tuple[int, ...]:
    cur = s.current
    assert cur is not None
    least = 2 if s.options.last_pawn_gift == "keep" else 1
    supply = s.supply
    out = []
    for seat in SEATS_AFTER[len(supply)][cur][:-1]:  # everyone else, from the player's left
        if sum(supply[seat]) >= least:
            out.append(seat)
    return tuple(out)


def _roll(s: State, a: Roll) -> State:
    v = [*s]  # the draft; read by position too before any change (cheaper than the state's attributes)
    if v[PHASE] != "roll":
        _phase(s, a, "roll")
    number, colour = a.number, a.colour
    if not 1 <= number <= 6:
        illegal(a, "dice", f"the number die shows 1 to 6, got {number}")
    cur = v[CURRENT]
    assert cur is not None
    if v[VERSION] == 1:
        if colour is None:
            illegal(a, "v1-roll-both-dice", "version 1: roll both dice (colour and number)")
    else:
        own = v[COLOURS_AT][cur]
        if colour is not None and colour != own:
            illegal(a, "v2-own-colour-zone", f"version 2: {s.names[cur]} plays in their own colour {own}")
        colour = own
    if not v[DICE_TAKEN]:
        close_window_draft(s, v)
    v[DICE_COLOUR] = colour
    v[DICE_NUMBER] = number
    v[DICE_TAKEN] = True
    if number == 1:
        v[ATTEMPT] = 0
        givers = _givers(s)
        if not givers:
            end_turn_draft(s, v, False)
            return _tnew(State, v)
        v[PHASE] = "penalty"
        v[GIVERS] = givers
        return _tnew(State, v)
    v[PHASE] = "place"
    v[ATTEMPT] = 1
    return _tnew(State, v)


def _give(s: State, a: Give) -> State:
    if s.phase != "penalty":
        _phase(s, a, "penalty")
    expected_giver = s.givers[0]
    if a.giver != expected_giver:
        _seat(s, a, a.giver, "giver")
        illegal(a, "penalty-givers-in-order",
                f"{s.names[expected_giver]} gives now (givers go in seat order from the player's left)")
    idx = SIZES.index(a.size)
    held = s.supply[a.giver]
    if held[idx] < 1:
        sizes = ", ".join(SIZES[i] for i in range(3) if held[i]) or "nothing"
        illegal(a, "penalty-giver-chooses-a-size-they-hold",
                f"{s.names[a.giver]} has no {a.size} pawn (holds: {sizes})")
    cur = s.current
    assert cur is not None
    supply = list(s.supply)
    supply[a.giver] = add_counts(held, idx, -1)
    supply[cur] = add_counts(supply[cur], idx, 1)
    v = [*s]
    v[SUPPLY] = tuple(supply)
    v[GIVERS] = givers = s.givers[1:]
    if sum(held) == 1:  # only with last_pawn_gift = "give": giving the last pawn finishes
        v[FINISHING] = (*s.finishing, finish_pos(s, a.giver, s.round, cur))
    if not givers:
        end_turn_draft(s, v, False)
        return _tnew(State, v)
    return _tnew(State, v)


def _place(s: State, a: Place) -> State:
    v = [*s]  # the draft; read by position too before any change (cheaper than the state's attributes)
    if v[PHASE] != "place":
        _phase(s, a, "place")
    cur = v[CURRENT]
    assert cur is not None
    idx = SIZES.index(a.size)
    supply = v[SUPPLY]
    held = supply[cur]
    if held[idx] < 1:
        illegal(a, "place-a-pawn-you-hold", f"{s.names[cur]} has no {a.size} pawn left")
    zone, number = a.zone, a.number
    if number is not None and not 2 <= number <= 6:
        illegal(a, "bad-value", f"positions are numbered 2 to 6, got {number}")
    rolled_zone, rolled_number = v[DICE_COLOUR], v[DICE_NUMBER]
    if not a.sensed:
        zone = rolled_zone if zone is None else zone
        number = rolled_number if number is None else number
    supply = list(supply)
    disc = v[DISC]
    if idx == 0:  # add_counts inlined (the most frequent action)
        supply[cur] = (held[0] - 1, held[1], held[2])
        v[DISC] = (disc[0] + 1, disc[1], disc[2])
    elif idx == 1:
        supply[cur] = (held[0], held[1] - 1, held[2])
        v[DISC] = (disc[0], disc[1] + 1, disc[2])
    else:
        supply[cur] = (held[0], held[1], held[2] - 1)
        v[DISC] = (disc[0], disc[1], disc[2] + 1)
    v[SUPPLY] = tuple(supply)
    v[DISC_PAWNS] = v[DISC_PAWNS] + (_tnew(DiscPawn, (idx, zone, number, a.x_mm, a.y_mm, cur)),)
    v[LAST_PLACE] = _tnew(LastPlace, (cur, idx, zone, number))
    if zone == rolled_zone and number == rolled_number:
        end_turn_draft(s, v, True)
        return _tnew(State, v)
    rolled = _where(rolled_zone, rolled_number)
    if zone is None or number is None:
        reason = f"{s.names[cur]}'s pawn straddles a line (rolled {rolled}): accept or redo"
    else:
        reason = f"{s.names[cur]}'s pawn is in {_where(zone, number)}, rolled {rolled}: accept or redo"
    fid = s.next_flag_id
    v[PHASE] = "review"
    v[REVIEW] = Review(fid, zone, number)
    v[NEXT_FLAG_ID] = fid + 1
    v[FLAGS] = (*s.flags, Flag(fid, "placement", cur, reason))
    return _tnew(State, v)


def _accept(s: State, a: AcceptPlacement) -> State:
    _phase(s, a, "review")
    assert s.review is not None
    fid = s.review.flag_id
    s = s.evolve(review=None, flags=tuple(f for f in s.flags if f.id != fid))
    return end_turn(s, placed=True)


def _take_back(s: State) -> State:
    """The flagged pawn goes back to the player's supply; they place again (same attempt)."""
    lp = s.last_place
    assert lp is not None and s.review is not None
    fid = s.review.flag_id
    supply = list(s.supply)
    supply[lp.seat] = add_counts(supply[lp.seat], lp.size, 1)
    return s.evolve(supply=tuple(supply), disc=add_counts(s.disc, lp.size, -1),
                    disc_pawns=s.disc_pawns[:-1], last_place=None, review=None, phase="place",
                    flags=tuple(f for f in s.flags if f.id != fid))


def _redo(s: State, a: RedoPlacement) -> State:
    _phase(s, a, "review")
    return _take_back(s)


def _hand(s: State, a: Hand) -> State:
    if a.duration_ms < 0:
        illegal(a, "bad-value", f"duration_ms must be >= 0, got {a.duration_ms}")
    player = s.current if s.current is not None else (s.window.seat if s.window else None)
    who = s.names[player] if player is not None else "someone"
    fid = s.next_flag_id
    reason = f"a hand held the disc for {a.duration_ms} ms during {who}'s turn (forbidden to hold the disc)"
    return s.evolve(next_flag_id=fid + 1, flags=(*s.flags, Flag(fid, "hand", player, reason)))


def _dismiss(s: State, a: DismissFlag) -> State:
    flag = next((f for f in s.flags if f.id == a.id), None)
    if flag is None:
        illegal(a, "no-such-flag", f"there is no open flag {a.id}")
    if flag.kind == "placement":
        illegal(a, "placement-flag", "a placement flag is closed with accept_placement or redo_placement")
    return s.evolve(flags=tuple(f for f in s.flags if f.id != a.id))


def _removed(s: State, a: Removed) -> State:
    _phase(s, a, "roll", "penalty", "place", "review", "ending")
    idx = SIZES.index(a.size)
    lp = s.last_place
    if s.phase == "review" and lp is not None and lp.size == idx:
        return _take_back(s)
    if s.disc[idx] < 1:
        illegal(a, "no-such-pawn", f"there is no {a.size} pawn on the disc")
    return falls.lift_off(s, idx)


def _correct_size(s: State, a: CorrectSize) -> State:
    lp = s.last_place
    if lp is None:
        illegal(a, "correct-size", "no placed pawn of this turn is on the disc")
    idx = SIZES.index(a.size)
    if idx == lp.size:
        illegal(a, "correct-size", f"the placed pawn is already {a.size}")
    if s.supply[lp.seat][idx] < 1:
        illegal(a, "correct-size", f"{s.names[lp.seat]} has no {a.size} pawn left, so it cannot be {a.size}")
    supply = list(s.supply)
    supply[lp.seat] = add_counts(add_counts(supply[lp.seat], lp.size, 1), idx, -1)
    disc = add_counts(add_counts(s.disc, lp.size, -1), idx, 1)
    last = s.disc_pawns[-1]._replace(size=idx)
    return s.evolve(supply=tuple(supply), disc=disc, disc_pawns=(*s.disc_pawns[:-1], last),
                    last_place=lp._replace(size=idx))


def _end_game(s: State, a: EndGame) -> State:
    _phase(s, a, "ending")
    s = close_window(s)
    fin = s.finishing
    if s.options.draw_window == "round":
        draw = len({f.round for f in fin}) == 1
    else:
        draw = max(f.pos for f in fin) - min(f.pos for f in fin) < s.n
    return s.evolve(phase="over", current=None, draw=draw, attempt=0)


def _fall(s: State, a: Fall) -> State:
    _phase(s, a, "roll", "penalty", "place", "review", "confirm_fall", "ending")
    return falls.fall(s, a)


def _confirm(s: State, a: ConfirmFall) -> State:
    _phase(s, a, "confirm_fall")
    return falls.confirm(s, a)


def _correct_fall(s: State, a: CorrectFall) -> State:
    return falls.correct(s, a)


def _new_game(s: State, a: NewGame) -> State:
    illegal(a, "game-started", "the game has already started (new_game only comes first)")


_HANDLERS: MappingProxyType[type, Callable[[State, Any], State]] = MappingProxyType({
    NewGame: _new_game, FirstPlayer: _first_player, RollColour: _roll_colour, TakeDice: _take_dice,
    Roll: _roll, Give: _give, Place: _place, AcceptPlacement: _accept, RedoPlacement: _redo, Fall: _fall,
    ConfirmFall: _confirm, CorrectFall: _correct_fall, CorrectSize: _correct_size, Hand: _hand,
    DismissFlag: _dismiss, Removed: _removed, EndGame: _end_game})

# Actions after which a fall can still be corrected/merged (everything else closes it).
_KEEP_FALL = frozenset({Fall, ConfirmFall, CorrectFall, Hand, DismissFlag})
# The only actions allowed while an unconfident fall waits for confirmation.
_DURING_CONFIRM = frozenset({Fall, ConfirmFall, Hand, DismissFlag})
# The phases that restrict every action.
_GUARDED = frozenset({"over", "confirm_fall"})


def apply(state: State, action: Action) -> State:
    """Return the state after ``action``; raise IllegalAction (state unchanged) if it breaks a rule."""
    kind = type(action)
    try:
        handler = _HANDLERS[kind]
    except KeyError:
        raise IllegalAction(action, "unknown-action", f"not a Dingo Disc action: {action!r}") from None
    phase = state.phase
    if phase in _GUARDED:  # one test for the common case
        if phase == "over":
            illegal(action, "game-over", "the game is over")
        if kind not in _DURING_CONFIRM:
            illegal(action, "confirm-fall-first", "confirm what fell first (confirm_fall)")
    new = handler(state, action)
    if new.last_fall is not None and kind not in _KEEP_FALL:
        new = new.evolve(last_fall=None)
    return new


__all__ = ["COLOURS", "apply", "illegal", "initial_state"]
