"""Turn order: ending a turn, the fall window, the next player, rounds and finishes.

Hot paths build a dict of changes and call :meth:`State.evolve` once (the benchmark counts).
"""

from __future__ import annotations

from typing import Any

from companion.games.dingo_disc.actions import Counts
from companion.games.dingo_disc.state import Finish, State, Window

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


def next_seat(supply: tuple[Counts, ...], after: int) -> int | None:
    """The next seat after ``after`` (to its left) that still holds pawns; ``after`` itself last."""
    n = len(supply)
    for i in range(1, n + 1):
        seat = (after + i) % n
        c = supply[seat]
        if c[0] or c[1] or c[2]:
            return seat
    return None


def advance_changes(s: State, from_seat: int, supply: tuple[Counts, ...], ch: dict[str, Any]) -> None:
    """Add to ``ch`` the changes passing the turn from ``from_seat`` to the next player holding pawns
    (or to the end phase when nobody holds any)."""
    nxt = next_seat(supply, from_seat)
    ch["dice_taken"] = False
    ch["attempt"] = 0
    ch["givers"] = ()
    if nxt is None:
        ch["phase"] = "ending"
        ch["current"] = None
        return
    n = len(supply)
    first = s.first
    ch["phase"] = "roll"
    ch["current"] = nxt
    ch["turn"] = s.turn + 1
    if (nxt - first) % n <= (from_seat - first) % n:  # type: ignore[operator]
        ch["round"] = s.round + 1


def advance(s: State, from_seat: int) -> State:
    """Pass the turn from ``from_seat`` to the next player holding pawns (or to the end phase)."""
    ch: dict[str, Any] = {}
    advance_changes(s, from_seat, s.supply, ch)
    return s.with_changes(ch)


def end_turn(s: State, placed: bool, changes: dict[str, Any] | None = None) -> State:
    """The current player's turn ends (with ``changes`` applied): their fall window opens, the turn passes."""
    cur = s.current
    assert cur is not None
    ch = {} if changes is None else changes
    ch["window"] = _tnew(Window, (cur, s.round, s.turn, ch.get("attempt", s.attempt), placed))
    ch["review"] = None
    advance_changes(s, cur, ch.get("supply", s.supply), ch)
    return s.with_changes(ch)


def close_window_changes(s: State) -> dict[str, Any]:
    """Changes closing the open fall window; a window owner without pawns has now finished for good."""
    w = s.window
    if w is None:
        return {}
    ch: dict[str, Any] = {"window": None, "last_place": None}
    c = s.supply[w.seat]
    if not (c[0] or c[1] or c[2]) and all(f.seat != w.seat for f in s.finishing):
        ch["finishing"] = (*s.finishing, finish_pos(s, w.seat, w.round, w.seat))
    return ch


def close_window(s: State) -> State:
    """Close the open fall window (see :func:`close_window_changes`)."""
    ch = close_window_changes(s)
    return s.with_changes(ch) if ch else s
