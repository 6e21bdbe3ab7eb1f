"""Tip detectors of the sensing pipeline (a mixin of ``Pipeline``; see docs/sensing.md, Tips).

The excess-moment test against a quiet reference, the rim strike, the gates that say when a tip
is possible at all, and the release watch's wiring (``release.py``) with the window noise it
needs. Pure: everything comes from the pipeline's sample history.
"""

from __future__ import annotations

import math
from itertools import islice
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections import deque

    from companion.sensing.cells import CellFilter
    from companion.sensing.release import ReleaseWatch
    from companion.sensing.segments import SegmentJudge
    from companion.sensing.settings import SensingSettings
    from companion.sensing.trace import TraceHeader

STILL = "still"
TIP_AFTER_PUSH_MS = 80  # no moment tip this soon after a press (its transient is in the smoothed signals)


STRIKE_ALIGN = 0.5  # a rim strike lies within 60 degrees of the load's moment (the side the disc tips to)
LANDING_DIP = 0.6  # a force this many lightest pawns below the reference before a pulse: a landing
RELEASE_NOISE_WINDOWS = 16  # window-noise samples (1-2 s of still disc) before the release watch


def _median(v: list[float]) -> float:
    """Median of a short list (the mean of the middle two for an even length)."""
    v.sort()
    m = len(v) // 2
    return v[m] if len(v) % 2 else 0.5 * (v[m - 1] + v[m])


class TipDetectors:
    """The tip tests; mixed into ``Pipeline``, whose state they read."""

    header: TraceHeader
    settings: SensingSettings
    pawns: list
    base_pawns: list
    _cells: CellFilter
    _judge: SegmentJudge
    _release: ReleaseWatch | None
    _hF: deque[float]
    _hX: deque[float]
    _hY: deque[float]
    _t: int
    _n: int
    _state: str
    _warm: int
    _win_n: int
    _win_var: float
    landing: tuple[int, float, float] | None
    _win_count: int
    _win_done_n: int
    _still_from_n: int
    _bX: float
    _bY: float
    _zX: float
    _zY: float
    _quiet_n: int
    _persist_n: int
    _quiet_g: float
    _ref_n: int
    _cur_n: int
    _lag_n: int
    _ref: tuple[float, float, float] | None
    _seg: tuple[list[float], list[float], list[float], list[int]] | None
    _strike: tuple[int, float] | None
    _no_tip_until: int
    _pushed_t: int
    _tip_max_push: float
    _pawn_range: tuple[float, float]
    _suspect_until: int

    def sigma_f(self) -> float:  # provided by Pipeline
        raise NotImplementedError

    def sigma_m(self) -> float:  # provided by Pipeline
        raise NotImplementedError

    def _track_window_noise(self) -> None:
        """How far a short window's mean moment strays from the still baseline: the noise the
        release watch must clear. Measured, not derived from the per-sample noise, because slow
        (1/f) noise and vibration do not average out over a few samples. Each call (every 64
        still samples) takes the non-overlapping windows of the still samples buffered since the
        last call."""
        n = self._win_n
        if self._state != STILL or self._n <= self._warm:
            return
        fresh = min(len(self._hX), self._n - max(self._still_from_n, self._warm, self._win_done_n))
        if fresh < n:
            return
        self._win_done_n = self._n
        m = len(self._hX)
        k = 1.0 / n
        floor = self.sigma_m() ** 2 * k
        for end in range(m, m - fresh + n - 1, -n):
            dx = sum(islice(self._hX, end - n, end)) * k - self._bX
            dy = sum(islice(self._hY, end - n, end)) * k - self._bY
            d2 = 0.5 * (dx * dx + dy * dy)
            self._win_count += 1
            if self._win_var <= 0.0:
                self._win_var = max(d2, floor)
            elif d2 < 25.0 * self._win_var:  # a window that caught a bump is no noise sample
                # a plain mean of the first windows, then a slow average
                self._win_var += max(0.02, 1.0 / self._win_count) * (d2 - self._win_var)
        self._win_var = max(self._win_var, floor)

    def window_sigma_m(self) -> float:
        """Noise (g·mm, per axis) of the mean moment over the release watch's window."""
        return math.sqrt(self._win_var) if self._win_var > 0.0 else self.sigma_m()

    def _tip_possible(self) -> bool:
        """Can the disc be going over now? Not while a hand or finger presses on it or lifts it
        (the force far from the base: it holds the disc), and not within ``tip_refractory_ms`` of
        a tip episode (the disc righting itself swings the moment too) unless a pawn was placed
        since."""
        if self._refractory():
            return False
        push = self._hF[-1] - self._judge.base[0]
        if abs(push) > self._tip_max_push:
            self._pushed_t = self._t
        if self._t - self._pushed_t < TIP_AFTER_PUSH_MS:
            return False  # the smoothed signals still carry the press that just ended
        on_disc = sum(p.mass_g for p in self.pawns) + sum(p.mass_g for p in self.base_pawns)
        return -(on_disc + self._tip_max_push) <= push <= self._tip_max_push

    def _released_off_level(self) -> bool:
        """The release watch (``release.py``): a finger just let go of a pawn and the level is far
        from where the press put it, with the force quiet and one pawn heavier."""
        j = self._judge
        if self._release is None or j.press_w <= 0 or j.cur_ep is not None or self._refractory() or \
                self._win_count < RELEASE_NOISE_WINDOWS:
            return False
        w = j.press_w
        press = (w, j.press_x / w, j.press_y / w)
        off = self._release.step(press, j.base, (self._hF[-1], self._hX[-1], self._hY[-1]),
                                 (self._zX, self._zY), self._pawn_range, self.sigma_f(),
                                 self.window_sigma_m())
        return off != 0.0 and not self._cells.suspect and self._n >= self._suspect_until

    def tip_episode_over(self, t: int) -> None:
        """A tip episode ended at ``t`` (settled): start the refractory window."""
        self._no_tip_until = t + int(self.settings.tip_refractory_ms)

    def _refractory(self) -> bool:
        """Within ``tip_refractory_ms`` of a tip episode, and no finger has set a pawn down since
        (a press in the current segment): the disc righting itself is no new tip."""
        return self._t < self._no_tip_until and not self._judge.presses

    def pawn_placed(self) -> None:
        """A placement was judged on a level disc: a new tip is possible again."""
        self._no_tip_until = -1

    def _force_range_above(self, n: int) -> bool:
        """The total force's range over the last ``n`` samples exceeds the quiet limit."""
        h = self._hF
        m = len(h)
        seg = self._seg  # inside a segment: the same samples as a list (a slice is cheaper)
        if seg is not None and n > 0 and m > 0:
            recent = seg[0][-min(n, m):]
        else:
            recent = list(islice(h, max(0, m - n), m))
        return max(recent) - min(recent) > max(self._quiet_g, 6.0 * self.sigma_f())

    def _quiet(self) -> bool:
        """The total force has been nearly constant over the last ``tip_quiet_ms``."""
        return not self._force_range_above(self._quiet_n)

    def _rang(self) -> bool:
        """The total force was not quiet at some time in the last ``tip_persist_ms`` (its range
        over that time and the quiet window before it is beyond the quiet limit)."""
        return self._force_range_above(self._quiet_n + self._persist_n)

    def tip_threshold(self) -> float:
        """Unexplained moment (g*mm) that means a tip (public: the segment judge weighs the tilt
        excursion against it)."""
        return self._tip_threshold()

    _thr_memo: tuple[float, float] = (-1.0, 0.0)  # (sigma_m, threshold): asked several times per sample

    def _tip_threshold(self) -> float:
        """Unexplained moment (g*mm) that means a tip: a floor, raised on noisy tables."""
        sigma_m = self.sigma_m()
        if self._thr_memo[0] == sigma_m:
            return self._thr_memo[1]
        k = math.sqrt(1.0 / self._ref_n + 1.0 / self._cur_n)  # noise of the lagged difference
        thr = max(self.settings.tip_excess_gmm, self.settings.tip_sigmas * k * sigma_m)
        self._thr_memo = (sigma_m, thr)
        return thr

    def _lag_excess(self) -> float:
        """Unexplained moment change against a quiet reference ``tip_lag_ms`` ago (the load after
        a finger let go, which the still baseline before the segment does not include)."""
        lag, k = self._lag_n, self._ref_n
        h = self._hF
        if len(h) < lag + k + self._cur_n:
            return 0.0
        n = len(h)
        a, b = n - lag - k, n - lag
        c = self._cur_n
        seg = self._seg  # inside a segment: the same samples as lists (slices are cheaper)
        if seg is not None:
            sf, sx, sy = seg[0], seg[1], seg[2]
            ref_f = sf[a - n:b - n]
            if max(ref_f) - min(ref_f) > max(self.settings.still_tol_min_g, 4.0 * self.sigma_f()):
                self._ref = None
                return 0.0
            rf = sum(ref_f) / k
            # the reference moment is a median: a disc snapping back onto its support after a wobble
            # swings the moment for one reading, and that reading is no quiet level to compare with
            rx = _median(sx[a - n:b - n])
            ry = _median(sy[a - n:b - n])
            cf = sum(sf[-c:]) / c
            cx = sum(sx[-c:]) / c
            cy = sum(sy[-c:]) / c
        else:
            ref_f = list(islice(h, a, b))
            if max(ref_f) - min(ref_f) > max(self.settings.still_tol_min_g, 4.0 * self.sigma_f()):
                self._ref = None
                return 0.0
            hx, hy = self._hX, self._hY
            rf = sum(ref_f) / k
            rx = _median(list(islice(hx, a, b)))
            ry = _median(list(islice(hy, a, b)))
            cf = sum(islice(h, n - c, n)) / c
            cx = sum(islice(hx, n - c, n)) / c
            cy = sum(islice(hy, n - c, n)) / c
        self._ref = (rf, rx, ry)
        excess = math.hypot(cx - rx, cy - ry) - self._judge.lever_mm * abs(cf - rf)
        if excess > 0 and (cx - rx) * (cx - self._zX) + (cy - ry) * (cy - self._zY) < 0:
            return -excess  # the load moves inwards: a disc righting itself, not tipping
        return excess

    def _rim_strike(self) -> bool:
        """A tipping disc's rim strikes its stop: a short force pulse (<= ``strike_ms``) whose
        centre of pressure is at the rim, back to the reference right after. Returns True when
        such a pulse has just ended."""
        ref = self._ref
        if ref is None:
            self._strike = None
            return False
        f = self._hF[-1] - ref[0]
        s = self.settings
        if self._strike is not None:
            t0, peak = self._strike
            if f <= max(1.5, 4.0 * self.sigma_f(), 0.3 * peak):
                self._strike = None
                return True
            if self._t - t0 > s.strike_ms:
                self._strike = None
            elif f > peak:
                self._strike = (t0, f)
            return False
        lo = max(s.strike_min_g, 10.0 * self.sigma_f())
        if f < lo or len(self._hF) < 2 or self._hF[-2] - ref[0] >= lo:
            return False  # a strike rises from the quiet level (not the tail of a finger press)
        dx, dy = self._hX[-1] - ref[1], self._hY[-1] - ref[2]
        d = math.hypot(dx, dy)
        if d / f < s.strike_rim_frac * self.header.layout.radius_mm:
            return False
        lx, ly = ref[1] - self._zX, ref[2] - self._zY
        load = math.hypot(lx, ly)
        if load < self._tip_threshold() or dx * lx + dy * ly < STRIKE_ALIGN * d * load:
            # the disc goes over towards the side its load's moment points to: a pulse at the rim
            # elsewhere (or on a disc whose load has no moment to tip it) is a knock on the table
            return False
        dip = ref[0] - self._hF[-2]
        if dip >= LANDING_DIP * min(self.header.pawn_mass_g.values()):
            # a pawn's weight was gone just before: its flight, and this its landing on the base
            # plate (a pawn sliding off alone), not a rim strike
            self.landing = (self._t, dip, math.atan2(dy, dx))
            return False
        self._strike = (self._t, f)
        return False

