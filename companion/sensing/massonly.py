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

Tables that locate loads use the same reading (``loss_after_release_tip``) for the tips their
tip tests missed, with two guards: more than one pawn's weight must be gone, and the plateau must
have held for ``PLATEAU_HOLD_MS`` (a pinch lifting a pawn off drops below the base at once).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.sensing.pipeline import Pipeline
    from companion.sensing.segments import SegmentJudge

PLATEAU_MS = 60.0  # the plateau is read over this long right after the release
PLATEAU_HOLD_MS = 150.0  # ... and (tables that locate loads) held at least this long
FALL_AFTER_PLACED_MS = 1500.0  # a loss with no press starting this soon after a ``placed``


def mass_only_tip(judge: SegmentJudge, pipe: Pipeline, t: int, level: tuple[float, float, float],
                  d_f: float) -> list[dict] | None:
    """The events of a tip seen on a mass-only table, or None when the segment is no such tip."""
    if judge.positional:
        return None
    lightest = min(judge.masses.values())
    if judge.press_w <= 0 and -d_f >= 0.75 * lightest and judge.t0 - judge.placed_t <= FALL_AFTER_PLACED_MS:
        return _tip(judge, pipe, t, level, -d_f, [])
    return loss_after_release_tip(judge, pipe, t, level, d_f, 0.75 * lightest)


def loss_after_release_tip(judge: SegmentJudge, pipe: Pipeline, t: int, level: tuple[float, float, float],
                           d_f: float, min_lost_g: float) -> list[dict] | None:
    """A pawn set down (one press, a pawn-sized plateau right after the release) and then, in the
    same segment, a level at least ``min_lost_g`` below that plateau: placed, tipped, fell,
    settled. None when the segment is no such tip. On a table that locates loads the tip tests
    run first; this catches the tips they missed (at 10 Hz a tip can show in no reading), and
    only for losses of more than one pawn: one pawn leaving right after a placement may have
    slid off alone."""
    if judge.press_w <= 0 or judge.presses != 1 or not judge.post_press:
        return None
    k = max(1, round(PLATEAU_MS / judge.dt))
    vals = sorted(judge.post_press[:k])
    plateau = vals[len(vals) // 2]
    size = judge.placing.match_size(plateau)
    lost = plateau - d_f
    if size is None or lost < min_lost_g:
        return None
    x = y = 0.0
    if judge.positional:
        # the pawn stood on the disc for a while: a pinch lifting a pawn off drops below the
        # base within a reading of its release, a tipping disc needs time to shed pawns
        n = max(2, round(PLATEAU_HOLD_MS / judge.dt))
        if len(judge.post_press) < n or min(judge.post_press[:n]) < 0.6 * plateau:
            return None
        x, y = judge._press_point()
    return _tip(judge, pipe, t, level, lost, [judge.placed_event(pipe, t, size, plateau, x, y)])


def _tip(judge: SegmentJudge, pipe: Pipeline, t: int, level: tuple[float, float, float], lost: float,
         events: list[dict]) -> list[dict]:
    events.append({"event": "tipped", "t_ms": t})
    falls = judge.falls.loss_events(pipe, t, lost, None, removed=False)
    for ev in falls:
        ev["confident"] = False
    events.extend(falls)
    events.append({"event": "settled", "t_ms": t})
    pipe.end_segment(level)
    return events
