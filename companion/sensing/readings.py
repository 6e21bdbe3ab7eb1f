"""What the segment judge and its stages read of the pipeline: the short history of the force,
the moments and the times (``SignalHistory``; the pipeline keeps it, the stages read windows of
it), and a segment's ``Readings`` (that history, the noise, the tip threshold, the zero, the pawns).

Plain data below the judge: the pipeline writes it, the judge and its stages read it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.sensing.falls import Pawn

Window = tuple[list[float], list[float], list[float], list[int]]  # force, moments, times (oldest first)


class SignalHistory:
    """The last ``size`` samples of force, moments and times (``f``, ``x``, ``y``, ``t``), and
    inside a segment the same history in plain lists (``seg``: a window of them is a slice, and a
    segment's sample asks for several windows; cut back to ``size`` beyond four times that; None
    while still). The pipeline appends (``push``: the deques' ``append``); the stages read
    ``window`` and ``window_f``."""

    __slots__ = ("f", "x", "y", "t", "push", "seg", "size", "seg_max")

    def __init__(self, size: int) -> None:
        self.f: deque[float] = deque(maxlen=size)
        self.x: deque[float] = deque(maxlen=size)
        self.y: deque[float] = deque(maxlen=size)
        self.t: deque[int] = deque(maxlen=size)
        self.push = (self.f.append, self.x.append, self.y.append, self.t.append)
        self.seg: tuple[list[float], list[float], list[float], list[int]] | None = None
        self.size = size
        self.seg_max = 4 * size

    @property
    def n(self) -> int:
        """Samples kept (``window`` reaches back this far)."""
        return len(self.f)

    def begin_segment(self) -> tuple[list[float], list[float], list[float], list[int]]:
        """A segment starts: its lists start from the history (returned)."""
        seg = self.seg = (list(self.f), list(self.x), list(self.y), list(self.t))
        return seg

    def end_segment(self) -> None:
        """Back to still (or the level re-learned): no segment's lists."""
        self.seg = None

    def window(self, n: int) -> Window | None:
        """The last ``n`` samples of force, moments and times (None if fewer are buffered)."""
        m = len(self.f)
        if m < n:
            return None
        seg = self.seg
        if seg is not None and n > 0:
            return seg[0][-n:], seg[1][-n:], seg[2][-n:], seg[3][-n:]
        k = m - n
        return (list(islice(self.f, k, m)), list(islice(self.x, k, m)), list(islice(self.y, k, m)),
                list(islice(self.t, k, m)))

    def window_f(self, n: int) -> list[float] | None:
        """The last ``n`` samples of the total force (None if fewer are buffered)."""
        m = len(self.f)
        if m < n:
            return None
        seg = self.seg
        if seg is not None and n > 0:
            return seg[0][-n:]
        return list(islice(self.f, m - n, m))


@dataclass(frozen=True, slots=True)
class Readings:
    """What the segment judge and its stages read of the pipeline while they judge a segment,
    built as it starts (or as a change kept open expires on the still disc): the signal history
    (its windows), the noise per sample of the force and of the moment, the tip threshold and the
    empty disc's zero (F, Mx, My) -- all fixed while the disc is not still --, and the pawns
    tracked on the disc and on the base plate (the pipeline's lists: the stages update them as
    they report pawn events)."""

    history: SignalHistory
    sigma_f: float  # g
    sigma_m: float  # g*mm
    tip_threshold: float  # unexplained moment (g*mm) that means a tip
    zero: tuple[float, float, float]
    pawns: list[Pawn]
    base_pawns: list[Pawn]
