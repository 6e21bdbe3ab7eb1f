"""What flows between the segment judge and its fall readings (``FallWatch``), both ways, and
from the judge to the pipeline.

``SegmentFacts``: what the judge tells the fall readings of its segment, built for each call
(``SegmentJudge.fall_facts``). ``StairsRead``: what a sample of the tilted disc decided of the
segment, for the judge to apply (``SegmentJudge._apply_stairs``). ``Verdict``: what a judged
sample decided of the pipeline's state, for the pipeline to apply. Plain immutable data.
"""

from __future__ import annotations

from typing import NamedTuple


class SegmentFacts(NamedTuple):
    """What ``FallWatch`` is told of the segment it reads the falls of, built by the judge
    (``SegmentJudge.fall_facts``) for each call: its tip, its base, what the disc did, and the
    pawn whose release (or press) tipped it."""

    tip_t: int | None  # when the segment's tip was detected (None: no tip)
    base: tuple[float, float, float]  # the segment's base level (F, Mx, My)
    drifted: tuple[float, float, float]  # ... carried forward to the call's sample along the drift
    righted: bool  # the disc was seen righting itself after the tip
    exc_max: float  # the tilt excursion since the tip
    seg_exc_max: float  # ... and before any tip (the disc's own mass moved: ``explain.went_over``)
    placed_t: int  # when the last ``placed`` was reported
    press_at_tip: bool  # a finger still pressed a pawn when the disc went over
    unsure_falls: bool  # the falls of this tip may include a pawn never weighed
    touched: frozenset[int]  # the hand-like runs after the tip that came back (``HandRuns.touched``)
    tipping_est: float | None  # the estimate of the pawn that tipped the disc (``TippingPawn.est``)
    tipping_placed: bool  # ... estimated (or placed) in this segment (``TippingPawn.placed``)


class StairsRead(NamedTuple):
    """What ``FallWatch.watch_stairs`` decided of a sample of the tilted disc: the events, and
    what the judge applies to its segment. ``placed``: the pawn that tipped the disc, weighed on
    the tilted disc (size, mass, x, y): the judge reports its ``placed`` (not confident), marks
    the tipping pawn placed and raises the base by it. ``unsure``: the falls of this tip may
    include a pawn never weighed."""

    events: tuple[dict, ...] | list[dict]
    placed: tuple[str, float, float, float] | None = None
    unsure: bool = False


NO_STAIRS = StairsRead(())  # nothing seen (``watch_stairs`` on most samples)


class Verdict(NamedTuple):
    """What the segment judge decided at a sample (``SegmentJudge.check``, ``flush``), for the
    pipeline to apply: the events; ``level``: the still level the segment ends at (None: it goes
    on); ``tip_over``: a tip episode ended at this time (the tip tests' refractory window starts);
    ``placed``: a placement was judged on a level disc (a new tip is possible again); ``tipped``:
    the disc was found lying tilted once still (a tip the tip tests missed: the episode starts)."""

    events: list[dict]
    level: tuple[float, float, float] | None = None
    tip_over: int | None = None
    placed: bool = False
    tipped: bool = False
