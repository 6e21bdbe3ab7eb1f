"""Is the load still? The test of the last readings a segment's levels are read from.

``StillWindow`` (the judge's ``stillness`` stage) returns the last ``n`` readings (force,
moments, times) when they are still -- the force within a tolerance, the moments within theirs --
and remembers, for the segment, the reading that kept a window from being still: while it is in
the window, the test is not run again. Inputs: the signal history (``readings.py``), the sample
count and the noise.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from operator import sub
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.sensing.readings import SignalHistory, Window
    from companion.sensing.settings import SensingSettings

STILL_TOL_MIN_GMM = 150.0  # the moments of a still window lie within this (or their noise's tolerance)


def _apart(values: list[float], tol: float) -> int:
    """How far back (0: the latest) the most recent reading lies that is more than ``tol`` apart
    from a later one (``len(values)`` if none is): the ranges of ever longer tails of the window
    only grow, so the first that exceeds ``tol`` is found by bisection."""
    tail = values[::-1]
    return bisect_right(list(map(sub, accumulate(tail, max), accumulate(tail, min))), tol)


class StillWindow:
    """The stillness test of a segment (its memory of the reading that broke it)."""

    def __init__(self, settings: SensingSettings, positional: bool) -> None:
        self.s = settings
        self.positional = positional
        self._tol_f = (-1.0, 0.0)  # (sigma_f, ``tol_f`` for it)
        self._tol_m = (-1.0, 0.0)  # (sigma_m, the moments' tolerance for it)
        self.reset()

    def reset(self) -> None:
        """A new segment: no reading known to break stillness."""
        self.unstill: tuple[int, float, float] | None = None

    def tol_f(self, sigma_f: float) -> float:
        """Range of the total force within which a window counts as still, for the force's noise
        ``sigma_f`` (remembered for the last noise: it is fixed within a segment)."""
        memo = self._tol_f
        if memo[0] == sigma_f:
            return memo[1]
        tol = max(self.s.still_tol_min_g, self.s.still_tol_sigmas * sigma_f)
        self._tol_f = (sigma_f, tol)
        return tol

    def window(self, history: SignalHistory, count: int, sigma_m: float, n: int,
               tol_f: float) -> Window | None:
        """The last ``n`` samples (force, moments, times) of ``history`` if they are still -- the
        force within ``tol_f``, the moments within their tolerance for the moment's noise
        ``sigma_m`` -- else None. A window that was not still holds two readings too far apart;
        while the older one is in the window it cannot be still, and the test is not run again
        (``unstill``: that reading's sample count; ``count``: the latest sample's)."""
        memo = self._tol_m
        if memo[0] == sigma_m:
            tol_m = memo[1]
        else:  # (the noise is fixed within a segment)
            tol_m = max(STILL_TOL_MIN_GMM, self.s.still_tol_sigmas * sigma_m)
            self._tol_m = (sigma_m, tol_m)
        u = self.unstill
        if u is not None and u[0] > count - n and u[1] == tol_f and u[2] == tol_m:
            return None
        fs = history.window_f(n)
        assert fs is not None
        still = max(fs) - min(fs) <= tol_f
        if not still:
            self.unstill = (count - _apart(fs, tol_f), tol_f, tol_m)
            return None
        # the moments only when the force is still (the usual case inside a press is not)
        _, xs, ys, ts = history.window(n)  # type: ignore[misc]
        still = not self.positional or (max(xs) - min(xs) <= tol_m and max(ys) - min(ys) <= tol_m)
        if not still:
            self.unstill = (count - min(_apart(xs, tol_m), _apart(ys, tol_m)), tol_f, tol_m)
            return None
        return fs, xs, ys, ts
