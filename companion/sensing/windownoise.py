"""The noise of a short window's mean moment on the still disc (the release watch's noise).

Measured, not derived from the per-sample noise: slow (1/f) noise and vibration do not average
out over a few samples. Used by ``TipTests`` (``tips.py``); pure: moments in, a sigma out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import islice

BUMP_SHARE = 25.0  # a window this many variances out caught a bump: no noise sample


class WindowNoise:
    """How far the mean of ``window_n`` readings of the still disc strays from its baseline."""

    def __init__(self, window_n: int) -> None:
        self.window_n = window_n
        self.count = 0  # windows measured
        self._done_n = 0  # the sample count when windows were last measured
        self._var = 0.0  # variance of a window mean about the still baseline (per axis, g²mm²)
        self._sigma = 0.0  # ... its root

    def restart(self) -> None:
        """The sample count starts again (the pipeline re-learns its level)."""
        self._done_n = 0

    def track(self, hx: Sequence[float], hy: Sequence[float], count: int, still_from: int,
              base_xy: tuple[float, float], sigma_m: float) -> None:
        """Take the non-overlapping windows of the still samples buffered since the last call
        (every 64 still samples). ``hx``, ``hy``: the still disc's recent moments; ``count``:
        the sample count now; ``still_from``: since when the disc has been still (and warm);
        ``base_xy``: the still baseline's moment; ``sigma_m``: the per-sample moment noise."""
        n = self.window_n
        fresh = min(len(hx), count - max(still_from, self._done_n))
        if fresh < n:
            return
        self._done_n = count
        m = len(hx)
        k = 1.0 / n
        floor = sigma_m ** 2 * k
        bx, by = base_xy
        for end in range(m, m - fresh + n - 1, -n):
            dx = sum(islice(hx, end - n, end)) * k - bx
            dy = sum(islice(hy, end - n, end)) * k - by
            d2 = 0.5 * (dx * dx + dy * dy)
            self.count += 1
            if self._var <= 0.0:
                self._var = max(d2, floor)
            elif d2 < BUMP_SHARE * self._var:
                # a plain mean of the first windows, then a slow average
                self._var += max(0.02, 1.0 / self.count) * (d2 - self._var)
        self._var = max(self._var, floor)
        self._sigma = math.sqrt(self._var)

    def sigma(self, sigma_m: float) -> float:
        """Noise (g·mm, per axis) of a window's mean moment (``sigma_m`` until measured)."""
        return self._sigma if self._var > 0.0 else sigma_m
