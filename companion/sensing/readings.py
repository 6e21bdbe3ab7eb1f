"""What the segment judge and its stages read of the signals: the short history of the force, the
moments and the times (``SignalHistory``; the pipeline keeps it, the stages read windows of it).

Plain data below the judge: the pipeline writes the history, the judge and its stages read it.
"""

from __future__ import annotations

from collections import deque
from itertools import islice

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
