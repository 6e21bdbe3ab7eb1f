"""Early tip test right after a finger lets go of a pawn (the *release watch*).

While the disc is level, the moment after a pawn is set down is the moment before plus the pawn's
mass times where the finger pressed it. A disc that starts to go over cannot carry that moment
for long: on a flat pedestal the load is pinned at the pedestal's edge at first (short of the
expectation), then its centre of mass (and its pawns) move towards the low rim as it rotates, so
the moment grows outwards along itself; on a rounded support the contact rolls outwards too.

A level *off* the expectation is only a hypothesis: the press's centre of pressure is not the
pawn's place when the placing hand's other fingers steadied the disc on its far side, when the
disc wobbled during the press and came back, or when the cells' own timing skewed the press (on
the tuned families most such levels were placements, and they stayed put for as long as one
watched). So the watch decides on the evidence a tip leaves and a level disc cannot: the level
moving *outwards* along the moment while the force stays quiet (a least-squares drift from the
release, or the motion since the first full window), or a level no level disc can leave (further
from the expectation than the pawn could be anywhere on the disc). A level moving inwards is a
disc righting itself after a wobble, not a tip. Later evidence (the rim strike, the excess
moment, the losses) is the other tests' job. Pure: samples in, a yes/no out.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

SQRT2 = math.sqrt(2.0)
BASE_SHARE = 0.25  # the level before the press is itself a mean of about four windows' worth
FIT_SIGMAS = 3.0  # a drift's readings lie within this many noise sigmas (rms) of its line
PAWN_SPREAD, PAWN_SPREAD_G = 0.08, 0.3  # a pawn weighs its size's mass within 8 % + 0.3 g
LEVER = 1.07  # a force on the disc acts at most this many radii out (a finger at the rim)
LIGHT = (0.0, 0.0, 0.0)  # the key of a segment watched with no press (``step_light``)


class Run:
    """The samples (force, moments) since the force was last unquiet, kept as running sums: the
    least-squares line of the moment along any direction, and of the force, in O(1) a sample
    (values taken from the run's first sample, which keeps the sums small)."""

    __slots__ = ("n", "_o", "_sf", "_sx", "_sy", "_if", "_ix", "_iy", "_xx", "_yy", "_xy")

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Start the run again."""
        self.n = 0
        self._o = (0.0, 0.0, 0.0)
        self._sf = self._sx = self._sy = self._if = self._ix = self._iy = 0.0
        self._xx = self._yy = self._xy = 0.0

    def add(self, f: float, x: float, y: float) -> None:
        """One more sample."""
        i = self.n
        if i == 0:
            self._o = (f, x, y)
        of, ox, oy = self._o
        f, x, y = f - of, x - ox, y - oy
        self.n = i + 1
        self._sf += f
        self._sx += x
        self._sy += y
        self._if += i * f
        self._ix += i * x
        self._iy += i * y
        self._xx += x * x
        self._yy += y * y
        self._xy += x * y

    def _stt(self) -> tuple[float, float]:
        n = self.n
        return (n - 1) / 2.0, n * (n * n - 1) / 12.0

    def line(self, ux: float, uy: float) -> tuple[float, float]:
        """The moment along unit ``u``: its slope (g·mm a sample) and the residual sum of squares."""
        n = self.n
        tbar, stt = self._stt()
        sv = ux * self._sx + uy * self._sy
        slope = (ux * self._ix + uy * self._iy - tbar * sv) / stt
        svv = ux * ux * self._xx + 2.0 * ux * uy * self._xy + uy * uy * self._yy
        return slope, max(0.0, svv - sv * sv / n - slope * slope * stt)

    def slope_f(self) -> float:
        """The force's slope (g a sample)."""
        tbar, stt = self._stt()
        return (self._if - tbar * self._sf) / stt


@dataclass(frozen=True)
class ReleaseLimits:
    """Thresholds of the release watch (see ``SensingSettings`` for the physical reasons)."""

    skip_n: int  # samples after the release still carrying the finger's lift
    window_n: int  # samples averaged for the level
    min_n: int  # fewest samples in the window before deciding
    watch_n: int  # samples after the release during which the test runs
    aim_mm: float  # a finger's aim errs by this much: the pawn's mass times it is no tip
    floor_gmm: float  # off by at least this much
    sigmas: float  # ... and this many noise sigmas of the window mean
    motion_floor_gmm: float  # the level moving by this much after the release (and 'sigmas')
    quiet_g: float  # the force in the window varies by at most this much (or 6 sigma)
    radius_mm: float = 150.0  # the disc's radius: a pawn stands within it
    trend_sigmas: float = 5.0  # the level's drift along the moment: slope beyond this many sigmas
    trend_floor_gmm: float = 30.0  # ... and moving this much over the samples fitted
    trend_min_n: int = 5  # ... fitted over at least this many samples
    pawn_masses: tuple[float, ...] = ()  # the pawn sizes' masses (g): a light set-down leaves one
    motion_only: bool = False  # only the level's motion decides (low rates: see ``TipTests``)


class ReleaseWatch:
    """Compares the level after a release with the level the finger press predicts."""

    def __init__(self, limits: ReleaseLimits) -> None:
        self.lim = limits
        self._key: tuple[float, float, float] | None = None
        self._k = 0
        self._f: deque[float] = deque(maxlen=limits.window_n)
        self._x: deque[float] = deque(maxlen=limits.window_n)
        self._y: deque[float] = deque(maxlen=limits.window_n)
        self._first: tuple[float, float] | None = None  # the first full window's mean moment
        self._run = Run()  # every sample since the force was last unquiet
        self._peak_f = -math.inf  # the most force seen since a light set-down's watch began
        self.pawn_step = True  # the latest level tested weighed one pawn more than the level before

    def reset(self) -> None:
        """Forget the current release (a new segment or a tip)."""
        self._key = None
        self.pawn_step = True

    @property
    def watching(self) -> bool:
        """The current release is still being watched (its watch has not run out)."""
        lim = self.lim
        return self._key is not None and \
            self._k <= (lim.watch_n if self._key == LIGHT else lim.skip_n + lim.watch_n)

    def step(self, press: tuple[float, float, float], base: tuple[float, float, float],
             sample: tuple[float, float, float], zero: tuple[float, float],
             pawn_range: tuple[float, float],
             sigma_f: float, sigma_win: float, motion_only: bool = False) -> float:
        """One sample after a release: returns the signed departure (g·mm; < 0 short of the
        expectation, > 0 beyond it) when it means a tip, else 0.0.

        ``press``: the press (weight, x_mm, y_mm) whose release is watched; ``base``: the level
        before the segment; ``sample``: this sample's (F, Mx, My); ``zero``: the empty disc's
        moment; ``pawn_range``: the force step (g) one pawn can make; ``sigma_f``: noise of
        one force reading; ``sigma_win``: noise of a full window's mean moment (per axis);
        ``motion_only``: only the level's motion decides (the watch going on after its segment
        ended on a still level: the static departure had its chance, and re-testing a level
        that stays put on every sample would only test its noise).
        """
        lim = self.lim
        if press != self._key:
            self._key = press
            self._k = 0
            self._f.clear()
            self._x.clear()
            self._y.clear()
            self._first = None
            self._run.clear()
        self._k += 1
        k = self._k
        if k <= lim.skip_n or k > lim.skip_n + lim.watch_n:
            return 0.0
        f, x, y = sample
        self._f.append(f)
        self._x.append(x)
        self._y.append(y)
        self._run.add(f, x, y)
        n = len(self._f)
        if n < lim.min_n:
            return 0.0
        fs = self._f
        if max(fs) - min(fs) > max(lim.quiet_g, 6.0 * sigma_f):
            # the force moved (the finger's grip changing, or letting go at last): the level
            # before is no reference for the level after
            self._run.clear()
            self._first = None
            return 0.0
        inv = 1.0 / n
        d_f = sum(fs) * inv - base[0]
        self.pawn_step = pawn_range[0] <= d_f <= pawn_range[1]
        if not self.pawn_step:
            return 0.0
        _, px, py = press
        ex, ey = base[1] + d_f * px, base[2] + d_f * py  # where the moment should be
        ux, uy = ex - zero[0], ey - zero[1]
        norm = math.hypot(ux, uy)
        if norm < 1e-6:
            return 0.0
        mx, my = sum(self._x) * inv, sum(self._y) * inv
        along = ((mx - ex) * ux + (my - ey) * uy) / norm
        across = ((mx - ex) * -uy + (my - ey) * ux) / norm
        drift = self._drift(ux / norm, uy / norm, sigma_win)
        if drift > 0.0:
            return drift  # the load moving outwards along the moment: the disc going over
        noise = sigma_win * math.sqrt(lim.window_n * inv + BASE_SHARE)
        limit = math.hypot(max(lim.floor_gmm, lim.aim_mm * d_f), lim.sigmas * noise)
        if abs(across) > max(limit, 0.5 * abs(along)):
            return 0.0  # the disc tips along its moment; a miss sideways is a misread press
        if abs(along) > limit and not (motion_only or lim.motion_only) and \
                math.hypot(along, across) > d_f * (lim.radius_mm + math.hypot(px, py)):
            return along  # no level disc leaves that moment, wherever on it the pawn stands
        if n < lim.window_n:
            return 0.0
        if self._first is None:
            self._first = (mx, my)
            return 0.0
        # a pawn at rest does not move: the level drifting along the moment since the first full
        # window (the finger's aim error cancels out) is the disc starting to roll over
        moved = ((mx - self._first[0]) * ux + (my - self._first[1]) * uy) / norm
        if moved > math.hypot(lim.motion_floor_gmm, lim.sigmas * sigma_win * SQRT2):
            return moved
        return 0.0

    def step_light(self, base: tuple[float, float, float], sample: tuple[float, float, float],
                   zero: tuple[float, float], pawn_range: tuple[float, float], sigma_f: float,
                   sigma_win: float) -> float:
        """One sample of a segment with no press a finger could make (a pawn set down lightly:
        the pawn and the finger within the press threshold). No press says where the pawn
        should be, so only the motion decides: once the finger has let go (the force came down
        from its peak) and the force is quiet and a pawn's weight (of some size) heavier than
        ``base``, a steady drift of the moment outwards along itself (``_drift``). Returns the
        drift (g·mm) when it means a tip, else 0.0."""
        lim = self.lim
        if self._key != LIGHT:
            self._key = LIGHT
            self._k = 0
            self._f.clear()
            self._run.clear()
            self._peak_f = -math.inf
        self._k += 1
        if self._k > lim.watch_n:
            return 0.0
        f, x, y = sample
        self._f.append(f)
        self._run.add(f, x, y)
        self._peak_f = max(self._peak_f, f)
        fs = self._f
        quiet = max(lim.quiet_g, 6.0 * sigma_f)
        if len(fs) < lim.window_n or max(fs) - min(fs) > quiet:
            self._run.clear()  # the finger still on, or letting go: no motion of the disc yet
            self._run.add(f, x, y)
            return 0.0
        mean_f = sum(fs) / len(fs)
        if self._peak_f - mean_f <= quiet:
            return 0.0  # no finger has let go: one may still rest on the pawn
        d_f = mean_f - base[0]
        self.pawn_step = any(abs(d_f - m) <= PAWN_SPREAD * m + PAWN_SPREAD_G for m in lim.pawn_masses)
        if not self.pawn_step:
            return 0.0  # not a pawn's weight: a finger still resting on it (its moment moves)
        ux, uy = x - zero[0], y - zero[1]
        norm = math.hypot(ux, uy)
        if norm < 1e-6:
            return 0.0
        moved = self._drift(ux / norm, uy / norm, sigma_win)
        if moved <= 0.0:
            return 0.0  # inwards: a disc righting itself after a wobble
        # a finger still on the pawn, easing or sliding, moves the force with the moment: the
        # drift must be more than the force's own change could make anywhere on the disc
        if moved <= LEVER * lim.radius_mm * abs(self._run.slope_f()) * (self._run.n - 1):
            return 0.0
        return moved

    def _drift(self, ux: float, uy: float, sigma_win: float) -> float:
        """A steady drift of the moment along ``u`` since the release (a least-squares slope over
        every sample since the force was last unquiet): a pawn at rest does not move, a disc
        rolling over its pedestal's edge does, and the finger's aim error cancels out. Returns the
        drift over the fitted samples (g·mm) when the slope is significant, else 0.0."""
        lim = self.lim
        run = self._run
        n = run.n
        if n < lim.trend_min_n:
            return 0.0
        sxx = n * (n * n - 1) / 12.0
        slope, rss = run.line(ux, uy)
        # the per-sample noise is no larger than a window mean's times sqrt(window): slow (1/f)
        # noise makes sigma_win the larger share, so this errs on the side of no tip
        sigma_1 = sigma_win * math.sqrt(lim.window_n)
        se = sigma_1 / math.sqrt(sxx)
        moved = slope * (n - 1)
        # a roll is smooth: readings scattered about the line far beyond the noise are something
        # else moving (a dropped pawn bouncing, a knock), not the disc rolling over
        # over a run longer than two windows the slow (1/f) noise, and a compliant top's lean,
        # wander like a drift: the drift must then also move as far as the level between two
        # windows can by noise alone
        floor = lim.trend_floor_gmm if n <= 2 * lim.window_n else \
            math.hypot(lim.trend_floor_gmm, lim.sigmas * SQRT2 * sigma_win)
        if abs(slope) > lim.trend_sigmas * se and abs(moved) > floor and \
                rss <= FIT_SIGMAS ** 2 * sigma_1 * sigma_1 * max(1, n - 2):
            return moved
        return 0.0


class ReleaseFollow:
    """The release watch wired to the segments: it watches the pawn set down in a segment (a
    press released, or a light set-down: ``press`` None) and goes on watching it, once the segment
    ended on a still level, to the end of its watch. A disc rolling over slowly looks still to
    the level test, and the still baseline follows it; only the motion decides then (the static
    departure had its chance in the segment). ``rolling``: the still path is to call
    ``roll_after``."""

    def __init__(self, watch: ReleaseWatch, pawn_range: tuple[float, float]) -> None:
        self.watch = watch
        self.pawn_range = pawn_range
        self.rolling = False
        self._after: tuple | None = None  # (press, level, zero, sigma_f, sigma_win) last watched
        self._fired = False
        self._still_n = 0  # still samples watched since the segment ended

    def begin_segment(self) -> None:
        """A segment starts: a new release to watch (a roll found after the last one stands)."""
        self.watch.reset()
        self.stop()

    def stop(self) -> None:
        """Nothing to watch after the segment (a tip episode ended)."""
        self._after = None
        self.rolling = False

    def step(self, press: tuple[float, float, float] | None, level: tuple[float, float, float],
             sample: tuple[float, float, float], zero: tuple[float, float], sigma_f: float,
             sigma_win: float) -> float:
        """One sample of the segment (see ``ReleaseWatch.step`` and ``step_light``)."""
        watch = self.watch
        self._after = (press, level, zero, sigma_f, sigma_win)
        self.rolling = True
        self._still_n = 0
        if press is None:
            return watch.step_light(level, sample, zero, self.pawn_range, sigma_f, sigma_win)
        return watch.step(press, level, sample, zero, self.pawn_range, sigma_f, sigma_win)

    def roll_after(self, f: float, x: float, y: float) -> bool:
        """One still sample after the segment: True when the disc is seen going over (the
        pipeline starts a segment, whose first decision is that tip: ``take_fired``)."""
        watch, after = self.watch, self._after
        if after is None:
            self.rolling = False
            return False
        press, level, zero, sigma_f, sigma_win = after
        if press is None:
            off = watch.step_light(level, (f, x, y), zero, self.pawn_range, sigma_f, sigma_win)
        else:
            off = watch.step(press, level, (f, x, y), zero, self.pawn_range, sigma_f, sigma_win,
                             motion_only=True)
        self._still_n += 1
        if off == 0.0:
            if not watch.watching or (not watch.pawn_step and self._still_n > watch.lim.window_n):
                self.stop()  # run out, or the still level is no pawn set down (it will stay so)
            return False
        self.stop()
        self._fired = True
        return True

    def take_fired(self) -> bool:
        """Whether ``roll_after`` found a roll since the last call (and forget it)."""
        fired, self._fired = self._fired, False
        return fired
