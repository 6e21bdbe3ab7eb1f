"""A knocked table is no tip: the swing test of the excess-moment tip test.

Used by ``TipTests`` (``tips.py``); see docs/sensing.md, Tips. On the bump-only traces (a table
knocked, nobody playing) every false ``tipped`` was the excess test reading a knock: the disc's
moment swings to and fro (at 10 Hz one reading out, the next one turned or back) and comes back
to where it was, with the force within a gram or two of its level. A tipping disc's load moves
out one way and stays. So, on a disc that no load can tip (no finger press in the segment, the
pawns' moment below any disc's hold, no pawn gone -- the caller decides that):

* an excess whose moment (about the still baseline) points against one beyond the tip threshold
  seen within ``SWING_MS`` is a swing (``step`` returns True): no tip yet; one that lasts is read
  once the swing is over;
* at low rates (``confirm_n`` 2) a tip needs two readings out the same way (within 60 degrees,
  ``KNOCK_ALIGN``), or one far out (``KNOCK_FAR`` thresholds) after one out the same way.

Pure: numbers in, a yes/no out.
"""

from __future__ import annotations

import math
from collections import deque

SWING_MS = 400  # a knock's swing: an opposite moment this recent
KNOCK_ALIGN = 0.5  # on a disc no load can tip, two readings of a tip lie within 60 degrees
KNOCK_FAR = 3.0  # ... and one this many thresholds out, after one out the same way, is no swing


class KnockWatch:
    """The recent moments of the disc about its still baseline (see the module's doc)."""

    def __init__(self, confirm_n: int, step_g: float) -> None:
        self.confirm_n = confirm_n  # readings a tip of a disc no load can tip needs (2 at 10 Hz)
        self.step_g = step_g  # a force this far from the baseline: a pawn or finger, no knock
        self._d_now = (0.0, 0.0)  # the latest reading's moment about the still baseline
        self._d_before = (0.0, 0.0)  # ... and the one before it
        # recent moments beyond the threshold with the force near the baseline (time, x, y)
        self._swings: deque[tuple[int, float, float]] = deque()

    def step(self, t: int, dx: float, dy: float, df: float, thr: float) -> bool:
        """One reading: its moment (``dx``, ``dy``) and force (``df``) about the still baseline,
        ``thr`` the tip threshold. True when the moment points against one beyond the threshold
        seen within ``SWING_MS`` with the force within a pawn's step of the baseline (no pawn or
        finger put it there): the disc is swinging."""
        sw = self._swings
        while sw and t - sw[0][0] > SWING_MS:
            sw.popleft()
        swung = any(dx * sx + dy * sy < 0.0 for _, sx, sy in sw)
        self._d_before, self._d_now = self._d_now, (dx, dy)
        if math.hypot(dx, dy) > thr and abs(df) < self.step_g:
            sw.append((t, dx, dy))
        return swung

    def too_soon(self, run: int, excess: float, thr: float) -> bool:
        """For a disc no load can tip, after ``step`` of this reading: too soon to call the excess
        ``excess`` (its ``run``-th reading over the threshold) a tip? At low rates it may be a
        knock's first swing, which the next reading shows coming back or turning (more than
        60 degrees from the one before: a tipping disc's load moves out one way)."""
        if self.confirm_n < 2:
            return False
        (ax, ay), (bx, by) = self._d_before, self._d_now
        a = math.hypot(ax, ay)
        aligned = ax * bx + ay * by >= KNOCK_ALIGN * a * math.hypot(bx, by)
        if aligned and a > thr and excess >= KNOCK_FAR * thr:
            return False  # out the same way two readings running, and far: lasting
        return run < self.confirm_n or not aligned
