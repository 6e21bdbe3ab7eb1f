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
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.sensing.pipeline import Pipeline
    from companion.sensing.segments import SegmentJudge

PLATEAU_MS = 60.0  # the plateau is read over this long right after the release
FALL_AFTER_PLACED_MS = 1500.0  # a loss with no press starting this soon after a ``placed``


def mass_only_tip(judge: SegmentJudge, pipe: Pipeline, t: int, level: tuple[float, float, float],
                  d_f: float) -> list[dict] | None:
    """The events of a tip seen on a mass-only table, or None when the segment is no such tip."""
    if judge.positional:
        return None
    lightest = min(judge.masses.values())
    if judge.press_w <= 0 and -d_f >= 0.75 * lightest and judge.t0 - judge.placed_t <= FALL_AFTER_PLACED_MS:
        return _tip(judge, pipe, t, level, -d_f, [])
    if judge.press_w <= 0 or judge.presses != 1 or not judge.post_press:
        return None
    k = max(1, round(PLATEAU_MS / judge.dt))
    vals = sorted(judge.post_press[:k])
    plateau = vals[len(vals) // 2]
    size = judge._match_size(plateau)
    lost = plateau - d_f
    if size is None or lost < 0.75 * lightest:
        return None
    return _tip(judge, pipe, t, level, lost, [judge._placed_event(pipe, t, size, plateau, 0.0, 0.0)])


def _tip(judge: SegmentJudge, pipe: Pipeline, t: int, level: tuple[float, float, float], lost: float,
         events: list[dict]) -> list[dict]:
    events.append({"event": "tipped", "t_ms": t})
    falls = judge._loss_events(pipe, t, lost, None, removed=False)
    for ev in falls:
        ev["confident"] = False
    events.extend(falls)
    events.append({"event": "settled", "t_ms": t})
    pipe.end_segment(level)
    return events
