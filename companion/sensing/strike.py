"""The rim-strike tip test: a tipping disc's rim striking its stop.

Used by ``TipTests`` (``tips.py``) inside a segment; see docs/sensing.md, Tips. The stop is on
the base plate, so the strike shows on the cells as a short force pulse (<= ``strike_ms``) whose
centre of pressure lies at the rim, on the side the load's moment points to, rising from the
quiet level and falling back right after. A pulse at the rim elsewhere (or on a disc whose load
has no moment to tip it) is a knock on the table; one that follows a pawn's weight gone is that
pawn landing on the base plate (``landing``). Pure: the conditioned signals in, a yes/no out.
"""

from __future__ import annotations

import math

from companion.sensing.settings import SensingSettings
from companion.sensing.tipviews import Signals

STRIKE_ALIGN = 0.5  # a rim strike lies within 60 degrees of the load's moment (the side the disc tips to)
LANDING_DIP = 0.6  # a force this many lightest pawns below the reference before a pulse: a landing

Level = tuple[float, float, float]


def median(v: list[float]) -> float:
    """Median of a short list (the mean of the middle two for an even length)."""
    v.sort()
    m = len(v) // 2
    return v[m] if len(v) % 2 else 0.5 * (v[m - 1] + v[m])


class RimStrike:
    """The rim-strike test (see the module's doc), one reading at a time."""

    def __init__(self, settings: SensingSettings, radius_mm: float, lever_mm: float, lightest_g: float,
                 short_n: int, quiet_g: float) -> None:
        self.s = settings
        self.radius_mm = radius_mm
        self.lever_mm = lever_mm
        self.lightest_g = lightest_g
        self.short_n = short_n  # readings of the reference just before a pulse
        self.quiet_g = quiet_g  # ... within which their force range counts as quiet
        # a pawn seen landing on the base plate in this segment (time, weight gone, direction)
        self.landing: tuple[int, float, float] | None = None
        self._strike: tuple[int, float] | None = None  # (start, peak) of the pulse under way
        self._ref: Level = (0.0, 0.0, 0.0)  # the level that pulse rose from
        self._short = False  # ... read off the readings just before it

    def reset(self) -> None:
        """No pulse under way (the pipeline re-learns its level)."""
        self._strike = None

    def step(self, sig: Signals, lagged: Level | None, thr: float) -> bool:
        """One reading: True when a rim strike has just ended. ``lagged``: the quiet reference of
        the lagged excess test (None when that window was not quiet); ``thr``: the tip threshold.
        Where the lagged window was not quiet (a finger let go just before the disc went over),
        the pulse is measured from the readings just before it, and must also leave the load's
        moment beyond what its force explains (a disc lying over, not a pawn tapped down)."""
        if self._strike is not None:
            ref: Level | None = self._ref
        else:
            ref = lagged
            self._short = ref is None
            if ref is None:
                ref = self._short_ref(sig)
        if ref is None:
            self._strike = None
            return False
        hf = sig.f
        f = hf[-1] - ref[0]
        s = self.s
        if self._strike is not None:
            t0, peak = self._strike
            if f <= max(1.5, 4.0 * sig.sigma_f, 0.3 * peak):
                self._strike = None
                if self._short:
                    moved = math.hypot(sig.x[-1] - ref[1], sig.y[-1] - ref[2]) - self.lever_mm * abs(f)
                    return moved > thr
                return True
            if sig.t - t0 > s.strike_ms:
                self._strike = None
            elif f > peak:
                self._strike = (t0, f)
            return False
        lo = max(s.strike_min_g, 10.0 * sig.sigma_f)
        if f < lo or sig.n < 2 or hf[-2] - ref[0] >= lo:
            return False  # a strike rises from the quiet level (not the tail of a finger press)
        dx, dy = sig.x[-1] - ref[1], sig.y[-1] - ref[2]
        d = math.hypot(dx, dy)
        if d / f < s.strike_rim_frac * self.radius_mm:
            return False
        lx, ly = ref[1] - sig.zero[0], ref[2] - sig.zero[1]
        load = math.hypot(lx, ly)
        if load < thr or dx * lx + dy * ly < STRIKE_ALIGN * d * load:
            # the disc goes over towards the side its load's moment points to: a pulse at the rim
            # elsewhere (or on a disc whose load has no moment to tip it) is a knock on the table
            return False
        dip = ref[0] - hf[-2]
        if dip >= LANDING_DIP * self.lightest_g:
            # a pawn's weight was gone just before: its flight, and this its landing on the base
            # plate (a pawn sliding off alone), not a rim strike
            self.landing = (sig.t, dip, math.atan2(dy, dx))
            return False
        self._strike = (sig.t, f)
        self._ref = ref
        return False

    def _short_ref(self, sig: Signals) -> Level | None:
        """The level of the few readings before this one, if the force was quiet over them."""
        c = self.short_n
        if sig.n < c + 1:
            return None
        f = sig.f[-c - 1:-1]
        if max(f) - min(f) > max(self.quiet_g, 6.0 * sig.sigma_f):
            return None
        return sum(f) / c, median(list(sig.x[-c - 1:-1])), median(list(sig.y[-c - 1:-1]))
