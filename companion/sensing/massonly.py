"""One load cell (mass only): a tip is invisible, but a pawn set down whose weight then leaves
again without a pinch can only have gone over the edge with the disc.

With one cell there is no moment: no tip test, no rim strike, no landing position. What is left
is the force after the finger lets go. A pawn-sized plateau right after the release (the pawn
on the disc) followed, in the same segment, by a level below that plateau by at least the
lightest pawn and with no second press (a pinch would lift a pawn off) reads as: placed, tipped,
fell, settled. So does a loss without any press that starts within ``FALL_AFTER_PLACED_MS`` of a
``placed`` (the placement was judged before the falls began): tipped, fell, settled. The falls
are not confident: their counts come from the mass alone. (A pawn that slides off alone soon
after a placement reads as a tip too: with one cell the two cannot be told apart.)

Tables that locate loads use the same reading (``tip_after_release``) for the tips their
tip tests missed, with two guards: more than one pawn's weight must be gone, and the plateau must
have held for ``PLATEAU_HOLD_MS`` (a pinch lifting a pawn off drops below the base at once).

Both readings are pure functions of the segment's press (``Press``) and the step (``tip_of``,
``tip_after_release``); so is ``tip_events``, the events that report a reading.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.sensing.placing import Placements

PLATEAU_MS = 60.0  # the plateau is read over this long right after the release
PLATEAU_HOLD_MS = 150.0  # ... and (tables that locate loads) held at least this long
FALL_AFTER_PLACED_MS = 1500.0  # a loss with no press starting this soon after a ``placed``


@dataclass(frozen=True)
class Press:
    """A segment's finger press, as these readings need it."""

    point: tuple[float, float] | None  # where the strongest press pressed (None: no press)
    presses: int  # finger-like press episodes (apart in time)
    post_press: list[float]  # the force above the base after the strongest press
    since_placed_ms: float  # from the last ``placed`` to the segment's start


@dataclass(frozen=True)
class MissedTip:
    """A tip read from the weight that left: the mass lost and the pawn set down just before
    (size, mass, x, y; None: none)."""

    lost: float
    placed: tuple[str, float, float, float] | None


def tip_of(press: Press, placing: Placements, dt: float, d_f: float) -> MissedTip | None:
    """A tip seen on a mass-only table (``d_f``: the step of the still level), or None when the
    segment is no such tip."""
    if placing.positional:
        return None
    lightest = min(placing.masses.values())
    if press.point is None and -d_f >= 0.75 * lightest and press.since_placed_ms <= FALL_AFTER_PLACED_MS:
        return MissedTip(-d_f, None)
    return tip_after_release(press, placing, dt, d_f, 0.75 * lightest)


def tip_after_release(press: Press, placing: Placements, dt: float, d_f: float,
                      min_lost_g: float) -> MissedTip | None:
    """A pawn set down (one press, a pawn-sized plateau right after the release) and then, in the
    same segment, a level at least ``min_lost_g`` below that plateau: placed, tipped, fell,
    settled. None when the segment is no such tip. On a table that locates loads the tip tests
    run first; this catches the tips they missed (at 10 Hz a tip can show in no reading), and
    only for losses of more than one pawn: one pawn leaving right after a placement may have
    slid off alone."""
    post = press.post_press
    if press.point is None or press.presses != 1 or not post:
        return None
    k = max(1, round(PLATEAU_MS / dt))
    vals = sorted(post[:k])
    plateau = vals[len(vals) // 2]
    size = placing.match_size(plateau)
    lost = plateau - d_f
    if size is None or lost < min_lost_g:
        return None
    x = y = 0.0
    if placing.positional:
        # the pawn stood on the disc for a while: a pinch lifting a pawn off drops below the
        # base within a reading of its release, a tipping disc needs time to shed pawns
        n = max(2, round(PLATEAU_HOLD_MS / dt))
        if len(post) < n or min(post[:n]) < 0.6 * plateau:
            return None
        x, y = press.point
    return MissedTip(lost, (size, plateau, x, y))


def tip_events(t: int, placed: dict | None, falls: list[dict]) -> list[dict]:
    """The events of a tip read from the weight that left (``MissedTip``): ``placed`` (the pawn
    set down, if any), ``tipped``, the ``falls`` of the mass lost (the judge reads them; made not
    confident here: counts from the mass alone) and ``settled`` (the judge ends the segment)."""
    events = [] if placed is None else [placed]
    events.append({"event": "tipped", "t_ms": t})
    for ev in falls:
        ev["confident"] = False
    events.extend(falls)
    events.append({"event": "settled", "t_ms": t})
    return events
