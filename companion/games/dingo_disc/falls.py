"""Falls and lifted pawns: who gets them, failed attempts, confirmation and correction.

Consecutive falls (only ``hand``/``dismiss_flag`` in between) are one fall: the state keeps the
state before it (``last_fall.base``) and every new fall, confirmation or correction is computed
from that base with the new total, so a correction gives exactly the state a right sensing would.
"""

from __future__ import annotations

from typing import Any

from companion.games.base import IllegalAction
from companion.games.dingo_disc.actions import SIZES, Action, ConfirmFall, CorrectFall, Counts, Fall
from companion.games.dingo_disc.state import (
    ATTEMPT,
    CURRENT,
    DICE_TAKEN,
    DISC,
    DISC_PAWNS,
    FLAGS,
    GIVERS,
    IN_HAND,
    LAST_FALL,
    LAST_PLACE,
    NEXT_FLAG_ID,
    PENDING_FALL,
    PHASE,
    REVIEW,
    ROUND,
    SUPPLY,
    TURN,
    WINDOW,
    Flag,
    LastFall,
    PendingFall,
    State,
)
from companion.games.dingo_disc.turns import add_counts, advance, advance_draft, end_turn_draft, minus, plus

_tnew = tuple.__new__  # builds a named tuple without its Python-level __new__ (2x faster)


def _either(a: bool | None, b: bool | None) -> bool | None:
    if a or b:
        return True
    if a is None or b is None:
        return None
    return False


def _check_on_disc(action: Action, pawns: Counts, disc: Counts) -> None:
    for i, size in enumerate(SIZES):
        if pawns[i] > disc[i]:
            raise IllegalAction(action, "only-pawns-on-the-disc-fall",
                                f"{pawns[i]} {size} pawn(s) fell but only {disc[i]} are on the disc")


def _remove_positions(s: State, pawns: Counts, placed_fell: bool) -> tuple:
    """Best effort: drop the fallen pawns' entries, the placed pawn first, then the outermost (highest
    number; the latest placed among equals) of each size."""
    items = s.disc_pawns
    todo = list(pawns)
    if placed_fell:
        todo[items[-1].size] -= 1
        items = items[:-1]
    limit = len(items) - 1 if s.last_place is not None and not placed_fell else len(items)
    ranked = sorted([(p.number or 0, i, p.size) for i, p in enumerate(items[:limit]) if todo[p.size] > 0],
                    reverse=True)
    gone = []
    for _number, i, size in ranked:
        if todo[size] > 0:
            todo[size] -= 1
            gone.append(i)
    if not gone:
        return items
    left = list(items)
    for i in sorted(gone, reverse=True):
        del left[i]
    return tuple(left)


def placed_pawn_fell(base: State, pawns: Counts, placed_fell: bool | None, action: Action) -> bool:
    """Whether the pawn placed this turn is among ``pawns`` (told, forced by the counts, or the default)."""
    lp = base.last_place
    if lp is None:
        if placed_fell:
            raise IllegalAction(action, "placed-fell", "no pawn placed this turn is on the disc")
        return False
    size = SIZES[lp.size]
    others = base.disc[lp.size] - 1
    if placed_fell is None:
        return pawns[lp.size] > others or (
            base.options.placed_fell_default == "if_size_fell" and pawns[lp.size] > 0)
    if placed_fell and not pawns[lp.size]:
        raise IllegalAction(action, "placed-fell", f"the placed pawn is {size} but no {size} pawn fell")
    if not placed_fell and pawns[lp.size] > others:
        raise IllegalAction(action, "placed-fell",
                            f"{pawns[lp.size]} {size} pawn(s) fell: the placed one must be among them")
    return placed_fell


def resolve_draft(base: State, v: list[Any], pawns: Counts, placed_fell: bool | None, action: Action,
                  tipped: bool = False) -> None:
    """Make draft ``v`` of ``base`` the state after ``pawns`` fell from ``base`` (all checks done here,
    nothing else changes). With option ``tip_attempt: "pass"`` a tip that takes the placed pawn is no
    failed attempt: the fallen pawns go back and the game continues with the next player."""
    w = base.window
    owner = w.seat if w is not None else base.current
    assert owner is not None
    pf = placed_pawn_fell(base, pawns, placed_fell, action)
    supply = list(base.supply)
    supply[owner] = plus(supply[owner], pawns)
    v[SUPPLY] = tuple(supply)
    v[DISC] = minus(base.disc, pawns)
    v[DISC_PAWNS] = _remove_positions(base, pawns, pf)
    retry = not (tipped and base.options.tip_attempt == "pass")
    if pf:
        v[LAST_PLACE] = None
        if w is not None and retry:  # the turn had passed: the placer's fall window is open
            if w.attempt < 2:  # attempt 1 failed: back to the placer for attempt 2, same dice
                v[PHASE] = "place"
                v[CURRENT] = w.seat
                v[ROUND] = w.round
                v[TURN] = w.turn
                v[ATTEMPT] = w.attempt + 1
                v[WINDOW] = None
                v[DICE_TAKEN] = True
                v[GIVERS] = ()
                return
        elif w is None:  # during the placer's own turn (a flagged placement under review)
            review = base.review
            if review is not None:
                v[REVIEW] = None
                v[FLAGS] = tuple(f for f in base.flags if f.id != review.flag_id)
            if base.attempt < 2 and retry:
                v[PHASE] = "place"
                v[ATTEMPT] = base.attempt + 1
                return
            end_turn_draft(base, v, placed=False)  # second attempt failed: keeps the pawn, passes
            return
    if base.phase == "ending" and sum(supply[owner]):
        advance_draft(base, v, owner)


def _carry_flags(v: list[Any], current: State, base: State) -> State:
    """Freeze draft ``v`` (recomputed from ``base``) with the flags: placement flags follow the recomputed
    result; other flags follow the live state ``current``."""
    live = set(current.flags)
    flags = [f for f in v[FLAGS] if f.kind == "placement" or f in live]
    flags += [f for f in current.flags if f.id >= base.next_flag_id and f.kind != "placement"]
    flags.sort(key=_flag_id)
    v[FLAGS] = tuple(flags)
    v[NEXT_FLAG_ID] = current.next_flag_id
    return _tnew(State, v)


def _flag_id(flag: Flag) -> int:
    return flag.id


def _settle(s: State, base: State, pawns: Counts, tipped: bool, pf: bool | None, confident: bool,
            action: Action) -> State:
    _check_on_disc(action, pawns, base.disc)
    v = [*base]
    v[LAST_FALL] = LastFall(pawns, tipped, pf, base)
    if not confident:
        guess = placed_pawn_fell(base, pawns, pf, action)
        v[PHASE] = "confirm_fall"
        v[DISC] = minus(base.disc, pawns)
        v[IN_HAND] = pawns
        v[DISC_PAWNS] = _remove_positions(base, pawns, guess)
        v[PENDING_FALL] = PendingFall(pawns, tipped, pf)
        return _carry_flags(v, s, base)
    resolve_draft(base, v, pawns, pf, action, tipped)
    v[PENDING_FALL] = None
    v[IN_HAND] = (0, 0, 0)
    return _carry_flags(v, s, base)


def fall(s: State, a: Fall) -> State:
    """Apply a ``fall`` (merged with an unconfirmed or just-resolved previous fall)."""
    if not sum(a.pawns):
        raise IllegalAction(a, "bad-value", "a fall needs at least one pawn")
    lf = s.last_fall
    if lf is None:
        return _settle(s, s, a.pawns, a.tipped, a.placed_fell, a.confident, a)
    confident = a.confident and s.pending_fall is None
    return _settle(s, lf.base, plus(lf.pawns, a.pawns), lf.tipped or a.tipped,
                   _either(lf.placed_fell, a.placed_fell), confident, a)


def confirm(s: State, a: ConfirmFall) -> State:
    """Confirm (or correct) the pending unconfident fall."""
    lf, pending = s.last_fall, s.pending_fall
    assert lf is not None and pending is not None
    pawns = pending.pawns if a.pawns is None else a.pawns
    pf = pending.placed_fell if a.placed_fell is None else a.placed_fell
    if a.pawns is not None and a.placed_fell is None and pawns != pending.pawns:
        pf = None  # new counts: the default applies again unless told
    return _settle(s, lf.base, pawns, pending.tipped, pf, True, a)


def correct(s: State, a: CorrectFall) -> State:
    """Replace the last fall by what really fell."""
    lf = s.last_fall
    if lf is None or s.pending_fall is not None:
        raise IllegalAction(a, "correct-fall", "there is no just-settled fall to correct")
    return _settle(s, lf.base, a.pawns, lf.tipped, a.placed_fell, True, a)


def lift_off(s: State, idx: int) -> State:
    """A pawn of size ``idx`` lifted off by hand: it goes to whoever a fall would go to; flagged."""
    w = s.window
    owner = w.seat if w is not None else s.current
    assert owner is not None
    items = list(s.disc_pawns)
    lp = s.last_place
    cands = [i for i in range(len(items)) if items[i].size == idx]
    if lp is not None and len(cands) > 1 and cands[-1] == len(items) - 1:
        cands.pop()  # prefer a pawn other than the one just placed
    gone = cands[-1]
    del items[gone]
    last_place = None if lp is not None and gone == len(s.disc_pawns) - 1 else lp
    supply = list(s.supply)
    supply[owner] = add_counts(supply[owner], idx, 1)
    fid = s.next_flag_id
    reason = f"a {SIZES[idx]} pawn was lifted off the disc by hand; it went back to {s.names[owner]}"
    out = s.evolve(supply=tuple(supply), disc=add_counts(s.disc, idx, -1), disc_pawns=tuple(items),
                   last_place=last_place, next_flag_id=fid + 1,
                   flags=(*s.flags, Flag(fid, "removed", owner, reason)))
    if out.phase == "ending":
        return advance(out, owner)
    return out
