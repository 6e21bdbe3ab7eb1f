"""Turn order: ending a turn, the fall window, the next player, rounds and finishes.

Hot paths fill one *draft* of the new state (a list, see state.py) and freeze it once (the benchmark
counts): the ``*_draft`` functions take the old state ``s`` and the draft ``v``.
"""

from __future__ import annotations

from typing import Any

from companion.games.dingo_disc.actions import Counts
from companion.games.dingo_disc.state import (
    ATTEMPT,
    CURRENT,
    DICE_TAKEN,
    FINISHING,
    FIRST,
    GIVERS,
    LAST_PLACE,
    PHASE,
    REVIEW,
    ROUND,
    SUPPLY,
    TURN,
    WINDOW,
    Finish,
    State,
    Window,
)

_tnew = tuple.__new__  # builds a named tuple without its Python-level __new__ (2x faster)


def add_counts(counts: Counts, idx: int, delta: int) -> Counts:
    """``counts`` with ``delta`` added to size ``idx``."""
    if idx == 0:
        return (counts[0] + delta, counts[1], counts[2])
    if idx == 1:
        return (counts[0], counts[1] + delta, counts[2])
    return (counts[0], counts[1], counts[2] + delta)


def plus(a: Counts, b: Counts) -> Counts:
    """Element-wise ``a + b``."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def minus(a: Counts, b: Counts) -> Counts:
    """Element-wise ``a - b``."""
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def offset(s: State, seat: int) -> int:
    """Position of ``seat`` in the round (0 = the first player)."""
    assert s.first is not None
    return (seat - s.first) % len(s.names)


def finish_pos(s: State, seat: int, round_no: int, turn_seat: int) -> Finish:
    """A finish of ``seat`` in round ``round_no``, during ``turn_seat``'s turn."""
    return Finish(seat, round_no, (round_no - 1) * len(s.names) + offset(s, turn_seat))


SEATS_AFTER: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple((seat + i) % n for i in range(1, n + 1)) for seat in range(n)) for n in range(7))
"""``SEATS_AFTER[n][seat]``: the seats of an ``n``-player game in turn order after ``seat``, ``seat`` last."""


def advance_draft(s: State, v: list[Any], from_seat: int) -> None:
    """Set in draft ``v`` (of ``s``, see state.py) the fields passing the turn from ``from_seat`` to the
    next player holding pawns in ``v``'s supply (or to the end phase when nobody holds any). The first
    player, round and turn are read from ``v`` (by position, cheaper than attributes): callers have not
    changed them."""
    supply = v[SUPPLY]
    n = len(supply)
    v[DICE_TAKEN] = False
    v[ATTEMPT] = 0
    v[GIVERS] = ()
    for nxt in SEATS_AFTER[n][from_seat]:  # the next seat holding pawns
        if supply[nxt] != (0, 0, 0):
            break
    else:
        v[PHASE] = "ending"
        v[CURRENT] = None
        return
    first = v[FIRST]
    v[PHASE] = "roll"
    v[CURRENT] = nxt
    v[TURN] += 1
    if (nxt - first) % n <= (from_seat - first) % n:
        v[ROUND] += 1


def advance(s: State, from_seat: int) -> State:
    """Pass the turn from ``from_seat`` to the next player holding pawns (or to the end phase)."""
    v = [*s]
    advance_draft(s, v, from_seat)
    return _tnew(State, v)


def end_turn_draft(s: State, v: list[Any], placed: bool) -> None:
    """End the current player's turn of ``s`` in draft ``v`` (``s`` plus this action's changes): their
    fall window opens, the turn passes (current seat, round and turn read from ``v``: callers have not
    changed them)."""
    cur = v[CURRENT]
    assert cur is not None
    v[WINDOW] = _tnew(Window, (cur, v[ROUND], v[TURN], v[ATTEMPT], placed))
    v[REVIEW] = None
    advance_draft(s, v, cur)


def end_turn(s: State, placed: bool) -> State:
    """The current player's turn ends: their fall window opens, the turn passes."""
    v = [*s]
    end_turn_draft(s, v, placed)
    return _tnew(State, v)


def close_window_draft(s: State, v: list[Any]) -> None:
    """Close ``s``'s open fall window in draft ``v``; a window owner without pawns has now finished for
    good. The window and supply are read from ``v`` (cheaper): callers have not changed them."""
    w = v[WINDOW]
    if w is None:
        return
    v[WINDOW] = None
    v[LAST_PLACE] = None
    c = v[SUPPLY][w.seat]
    if not (c[0] or c[1] or c[2]) and all(f.seat != w.seat for f in s.finishing):
        v[FINISHING] = (*s.finishing, finish_pos(s, w.seat, w.round, w.seat))


def close_window(s: State) -> State:
    """Close the open fall window (see :func:`close_window_draft`)."""
    if s.window is None:
        return s
    v = [*s]
    close_window_draft(s, v)
    return _tnew(State, v)
