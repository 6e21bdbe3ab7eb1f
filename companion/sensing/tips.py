"""The tip tests of the sensing pipeline (see docs/sensing.md, Tips).

``TipTests`` is a stage of its own: the pipeline hands it, once per sample inside a segment, a
read-only view of the conditioned signals (``Signals``: the recent force and moments, the fast
smoothed values, the still baseline, the empty-disc zero, the noise) and what the segment judge
knows of the presses (``PressView``); it answers with the excess moment to record and whether the
disc went over. It keeps its own state (the quiet reference, the pending rim strike, the release
watch, the residual test, the window noise, the refractory window) and reads nobody's private
fields. Data flows one way: cells -> signals and baseline (``pipeline.py``) -> tip tests ->
segment judge -> events.

The tests: the excess moment against the still baseline and against a quiet reference
``tip_lag_ms`` earlier, the rim strike, the release watch (``release.py``), the residual test
(``residual.py``: a press explained by its own centre of pressure, the rest by a CUSUM), and the
gates that say when a tip is possible at all (a heavy push for the excess test; soon after a tip
episode, a load that has not moved outwards beyond anything on the disc). Pure: samples in,
decisions out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from companion.sensing.knock import KnockWatch
from companion.sensing.release import ReleaseFollow, ReleaseLimits, ReleaseWatch
from companion.sensing.residual import ResidualTest
from companion.sensing.settings import SensingSettings
from companion.sensing.strike import LANDING_DIP, RimStrike, median
from companion.sensing.tipviews import PressView, Signals
from companion.sensing.trace import TraceHeader
from companion.sensing.windownoise import WindowNoise
from companion.sensing.wobble import WobbleHold

TIP_AFTER_PUSH_MS = 80  # no moment tip this soon after a press (its transient is in the smoothed signals)
RELEASE_NOISE_WINDOWS = 16  # window-noise samples (1-2 s of still disc) before the release watch
HOLD_SHARE = 0.65  # a compliant top loses up to 35 % of its hold: below that share of a carried load, no tip
RESIDUAL_KEEP_MS = 100  # the residual test's finding stands this long for a clean reading to report it
RIGHTING_AFTER_MS = 300  # the load moving back inwards this long after its furthest: righting
# the least moment any level disc holds (a 250 g disc on a 2 mm flat): below it the pawns alone
# cannot tip the disc -- only a press can have tilted it, and an excess is held as a possible
# wobble (``wobble.py``), and the residual test calls no tip
LEAST_HOLD_GMM = 500.0


class TipTests:
    """The tip tests: ``measure`` the moment tests, then ``decide`` (see the module's doc)."""

    def __init__(self, header: TraceHeader, settings: SensingSettings, positional: bool) -> None:
        s = settings
        self.settings = s
        self.positional = positional
        self.radius_mm = header.layout.radius_mm
        self.lever_mm = header.layout.radius_mm * 1.07
        self.lightest_g = min(header.pawn_mass_g.values())
        dt = 1000.0 / header.rate_hz
        self._tip_n = max(1, round(s.tip_confirm_ms / dt))
        # at low rates (10 Hz) one reading against one reading 100 ms older can be a single swing
        # of a knocked table: a tip seen only by that lagged test must be seen again
        self._lag_tip_n = max(self._tip_n, 2 if dt >= s.tip_lag_two_from_ms else 1)
        # at high rates (above 20 Hz) a reading at a turning point of a knock's ringing can pass
        # the threshold while the force is quiet for a moment: soon after the force was not
        # quiet, a tip needs two readings (12-25 ms more; at 10 Hz it would cost 100 ms)
        self._rung_tip_n = 2 if dt < s.tip_lag_two_from_ms else 1
        self._lag_n = max(1, round(s.tip_lag_ms / dt))
        self._ref_n = max(1, round(s.tip_ref_ms / dt))
        self._cur_n = max(1, round(s.tip_cur_ms / dt))
        self._quiet_n = max(2, round(s.tip_quiet_ms / dt))
        self._persist_n = max(1, round(s.tip_persist_ms / dt))
        self._mute_n = max(1, round(40.0 / dt))  # samples muted after a lone jump held as a glitch
        # readings a one-reading impulse stays in the smoothed signals (down to ~5 % of it)
        self._impulse_n = max(self._cur_n, math.ceil(3.0 * s.fast_tau_ms / dt)) + 1
        # a rim strike is only told from a finger by its brevity: needs >= 2 samples per pulse
        self._strike_ok = 2.0 * dt <= s.strike_ms
        # the tipping disc's inertia moves the force by a gram or two within the quiet window;
        # at low rates that window is two long samples, which also average bumps into small steps
        self._quiet_g = 3.0 if dt <= 25.0 else 1.5
        self._rim = RimStrike(s, self.radius_mm, self.lever_mm, self.lightest_g, self._cur_n + 1,
                              self._quiet_g)
        # the most any force on the disc may exceed the base while a tip is still possible: a
        # pawn just set down plus the disc's own inertia (a finger or hand holds the disc down)
        self._tip_max_push = 1.3 * max(header.pawn_mass_g.values()) + 2.0
        # a placement's wobble read as a tip (``wobble.py``): held until it rocks back or goes on
        # over (confirmed by two readings at high rates, where one can be the disc snapping back)
        # one pawn heavier: any size, with room for the tipping disc's inertia (a gram or two)
        masses = header.pawn_mass_g.values()
        self._pawn_range = (0.75 * min(masses), 1.25 * max(masses) + 1.0)
        # a knocked table (``knock.py``): at low rates a knock's first swing is one reading, so on a
        # disc that no load can tip a tip needs a second reading out the same way
        self._knock = KnockWatch(2 if dt >= s.tip_lag_two_from_ms else 1, self._pawn_range[0])
        self._wobble = WobbleHold(LANDING_DIP * self.lightest_g, self._tip_max_push, self._rung_tip_n,
                                  self._pawn_range[0])
        self._win_n = max(2, round(s.release_window_ms / dt))
        self._blk_scale = math.sqrt(self._win_n / max(1, round(s.tip_block_ms / dt)))
        # at low rates (10 Hz) a window is one or two readings, each averaging the finger's lift
        # and any wobble: too few to tell a pinned load from a misread press, so only the level's
        # motion decides there (a steady drift outwards, or motion since the first window)
        self._release = ReleaseWatch(ReleaseLimits(motion_only=self._win_n < 3,
            skip_n=max(1, round(s.release_skip_ms / dt)),
            window_n=self._win_n,
            min_n=max(2, round(s.release_min_ms / dt)),
            watch_n=max(2, round(s.release_watch_ms / dt)),
            aim_mm=s.release_aim_mm, floor_gmm=s.release_floor_gmm,
            motion_floor_gmm=s.release_motion_gmm, sigmas=s.release_sigmas, quiet_g=s.release_quiet_g,
            radius_mm=header.layout.radius_mm, pawn_masses=tuple(masses)))
        block_n = round(s.tip_block_ms / dt)
        cells_r = sum(math.hypot(c.x_mm, c.y_mm) for c in header.cells) / len(header.cells)
        self._residual = ResidualTest(block_n, dt, cells_r, LANDING_DIP * self.lightest_g,
                                      self._tip_max_push) \
            if block_n >= 3 and positional else None
        # state
        self.carried_gmm = 0.0  # the largest pawn moment the disc was seen to carry level
        self.tilt = 0.0  # the latest excess over the threshold (the page's tilt gauge)
        self.fired_by = ""  # which test saw the latest tip: excess, strike, release or residual
        self._tip_run = 0
        self._ref: tuple[float, float, float] | None = None
        self._suspect_until = 0
        self._exceed_t: int | None = None  # since when the excess moment has been above threshold
        self._residual_t: int | None = None  # when the residual test last found the disc going over
        self._no_tip_until = -1  # after a tip episode, the disc righting itself is no new tip
        self._pushed_t = -10**9  # last time a finger or hand pushed (or lifted) well beyond a pawn
        self._window = WindowNoise(self._win_n)  # the release watch's window noise
        self._thr_memo: tuple[float, float] = (-1.0, 0.0)  # (sigma_m, threshold)
        # carried from ``measure`` to ``decide`` within one sample
        self._excess = 0.0
        self._excess_fast = 0.0
        self._lag = 0.0
        self._strike_now = False
        # the release watch, in its segment and on after it (``ReleaseFollow``)
        self.follow = ReleaseFollow(self._release, self._pawn_range)

    @property
    def landing(self) -> tuple[int, float, float] | None:
        """A pawn seen landing on the base plate in this segment (time, weight gone, direction)."""
        return self._rim.landing

    # ------------------------------------------------------------------ life cycle
    def begin_segment(self) -> None:
        """A segment starts: no tip run, no landing seen yet."""
        self._tip_run = 0
        self._residual_t = None
        self._wobble.reset()
        self._rim.landing = None
        if self._residual is not None:
            self._residual.reset()
        self.follow.begin_segment()

    def tipped_late(self) -> None:
        """The segment judge found the disc lying tilted (a tip these tests missed)."""
        self._tip_run = 0
        if self._residual is not None:
            self._residual.reset()

    def resync(self) -> None:
        """The pipeline re-learns its level (a cell replaced): the sample count starts again."""
        self._window.restart()
        self._rim.reset()

    def level(self) -> None:
        """The disc is still and level again: the tilt gauge reads zero."""
        self.tilt = 0.0

    def carried(self, moment_gmm: float) -> None:
        """A segment ended on a still level with the tracked pawns' moment ``moment_gmm``: the
        disc holds at least that much (its hold only grows as pawns add weight), so a load below
        it (less a margin for a compliant top losing some of its hold) cannot be going over."""
        if moment_gmm > self.carried_gmm:
            self.carried_gmm = moment_gmm

    def episode_over(self, t: int) -> None:
        """A tip episode ended at ``t`` (settled): start the refractory window."""
        self._no_tip_until = t + int(self.settings.tip_refractory_ms)
        self.follow.stop()

    def pawn_placed(self) -> None:
        """A placement was judged on a level disc: a new tip is possible again."""
        self._no_tip_until = -1

    # ------------------------------------------------------------------ noise
    def track_window_noise(self, hx: Sequence[float], hy: Sequence[float], count: int,
                           still_from: int, base_xy: tuple[float, float], sigma_m: float) -> None:
        """The still disc's window noise, the noise the release watch must clear
        (``windownoise.py``)."""
        self._window.track(hx, hy, count, still_from, base_xy, sigma_m)

    def threshold(self, sigma_m: float) -> float:
        """Unexplained moment (g*mm) that means a tip: a floor, raised on noisy tables."""
        if self._thr_memo[0] == sigma_m:
            return self._thr_memo[1]
        k = math.sqrt(1.0 / self._ref_n + 1.0 / self._cur_n)  # noise of the lagged difference
        thr = max(self.settings.tip_excess_gmm, self.settings.tip_sigmas * k * sigma_m)
        self._thr_memo = (sigma_m, thr)
        return thr

    # ------------------------------------------------------------------ per sample
    def measure(self, sig: Signals, tipped: bool, placed: bool,
                tip_excursion: tuple[float, int] = (0.0, 0)) -> tuple[float, bool]:
        """The moment tests of one sample. Returns the excess moment to record as the tilt
        excursion (0 while the force is not quiet after a tip: a rim strike is a pulse) and,
        after a tip (``tipped``), whether the disc is seen righting itself.

        ``placed``: a finger set a pawn down in this segment; ``tip_excursion``: after a tip, the
        largest excess seen since and the later of the tip's and that peak's times."""
        fF, fX, fY = sig.fast
        bF, bX, bY = sig.base
        zX, zY = sig.zero
        bx, by = fX - bX, fY - bY
        # (``_outward_excess`` written out: this runs every sample of a segment)
        excess = math.hypot(bx, by) - self.lever_mm * abs(fF - bF)
        if bx * (fX - zX) + by * (fY - zY) < 0:
            excess = min(excess, 0.0)  # moving inwards is no tip
        if excess > 0.0 and self._impulse_recent(sig):
            # a one-reading impulse (a wobbling disc landing back on its support) lingers in the
            # smoothed signals: the latest reading must be out too (a tilt has no such jumps)
            excess = min(excess, _outward_excess(sig.x[-1] - bX, sig.y[-1] - bY, sig.x[-1] - zX,
                                                 sig.y[-1] - zY, self.lever_mm * abs(sig.f[-1] - bF)))
        self._excess_fast = excess
        strike = False
        righted = False
        lag = 0.0
        if self.positional:
            lag = self._lag_excess(sig)
            if tipped:
                thr = self.threshold(sig.sigma_m)
                # the load moved back inwards, well after it had gone out furthest: the disc
                # righted itself (a tip caught at the release is still tilting, and a disc that
                # just struck a soft stop rebounds a little: neither is righting)
                exc_max, since = tip_excursion
                if lag < -thr and exc_max >= thr and self._quiet(sig) and \
                        sig.t - since > RIGHTING_AFTER_MS:
                    righted = True
            else:
                excess = max(excess, lag)
                self.tilt = excess / self.threshold(sig.sigma_m)
                strike = self._strike_ok and self._rim.step(sig, self._ref, self.threshold(sig.sigma_m)) and \
                    not self._refractory(sig, placed)
        self._excess = excess
        self._lag = lag
        self._strike_now = strike
        return (excess if not tipped or self._quiet(sig) else 0.0), righted

    def decide(self, sig: Signals, tipped: bool, pv: PressView) -> bool:
        """After ``measure`` and the judge's press bookkeeping of the same sample: did the disc
        go over now?"""
        if self.follow.take_fired() and not tipped:
            self._tip_run = 0
            self.fired_by = "release"  # the release watch, after its segment had ended
            return True
        excess = self._excess
        strike = self._strike_now
        by = "strike" if strike else "excess"
        lag = self._lag
        if self.positional and not tipped and self._released_off_level(sig, pv):
            strike = True  # the release tipped the disc: as certain as a rim strike
            by = "release"
        if self._residual is not None and not tipped:
            if self._residual.step(sig.f[-1], sig.x[-1], sig.y[-1], sig.base, sig.zero,
                                   self._window.sigma(sig.sigma_m) * self._blk_scale,
                                   self.threshold(sig.sigma_m)) > 0.0 and \
                    self._load_gmm(sig) > max(LEAST_HOLD_GMM, HOLD_SHARE * self.carried_gmm):
                self._residual_t = sig.t
            if self._residual_t is not None and sig.t - self._residual_t <= RESIDUAL_KEEP_MS and \
                    not sig.glitch and sig.count >= self._suspect_until:
                # the disc's own moment moved outwards, beyond what the contacts explain -- read
                # at the first clean reading (the rim striking its stop right then can make a lone
                # cell jump, held as a possible glitch)
                self._residual_t = None
                strike = True
                by = "residual"
        if sig.glitch:
            self._suspect_until = sig.count + self._mute_n
        thr = self.threshold(sig.sigma_m)
        need = self._lag_tip_n if lag > thr >= self._excess_fast else self._tip_n
        if excess > thr and self._rung_tip_n > 1 and self._rang(sig):
            need = max(need, self._rung_tip_n)  # quiet for a moment only (see ``_rung_tip_n``)
        if excess > thr:
            if self._exceed_t is None:
                self._exceed_t = sig.t
        else:
            self._exceed_t = None
        if sig.count < self._suspect_until:
            strike = False
            excess = 0.0
        elif excess > 0.0 and not self._quiet(sig) and not self._losing(sig, pv) and \
                sig.t - (self._exceed_t if self._exceed_t is not None else sig.t) < \
                self.settings.tip_persist_ms:
            # a tip moves the load sideways with the force nearly constant; two loads changing at
            # once (a bump during a press) can mimic the moment, not the quiet force -- and not
            # for long: an excess that lasts is a tip even while pawns land or the rim strikes
            excess = 0.0
        if not tipped and not self._tip_possible(sig, pv) and excess > 0.0:
            excess = 0.0
        if self._swung(sig, thr) and excess > 0.0 and self._untippable(sig, pv):
            excess = 0.0
        wob = self._wobble
        if not tipped and wob.active and not strike:
            if wob.step(sig.t, sig.f[-1], pv.level[0], self._excess_fast, lag, sig.x[-1] - sig.zero[0],
                        sig.y[-1] - sig.zero[1], self._quiet(sig), thr):
                self._tip_run = 0
                self.fired_by = "excess"
                return True
            if wob.active:
                return False  # still possibly a wobble: only the other tests decide meanwhile
        if not tipped and self.positional and (excess > thr or strike):
            self._tip_run += 1
            if strike or self._tip_run >= need and not self._knocked(sig, pv, thr) and \
                    not self._held_as_wobble(sig, pv, excess):
                wob.reset()
                self.fired_by = by if strike else "excess"
                return True
        else:
            self._tip_run = 0
        return False

    # ------------------------------------------------------------------ the tests
    def _tip_possible(self, sig: Signals, pv: PressView) -> bool:
        """Can the disc be going over now? Not while a hand or finger presses on it or lifts it
        (the force far from the base: it holds the disc), and not within ``tip_refractory_ms`` of
        a tip episode (the disc righting itself swings the moment too) unless a pawn was placed
        since."""
        if self._refractory(sig, pv.placed):
            return False
        push = sig.f[-1] - pv.level[0]
        if abs(push) > self._tip_max_push:
            self._pushed_t = sig.t
        if sig.t - self._pushed_t < TIP_AFTER_PUSH_MS:
            return False  # the smoothed signals still carry the press that just ended
        return -(pv.on_disc_g + self._tip_max_push) <= push <= self._tip_max_push

    def _losing(self, sig: Signals, pv: PressView) -> bool:
        """Pawns are leaving the disc: the force has dropped below the level before the segment
        by a pawn's weight or more (yet less than all the disc carries: no hand lifting it). A
        force that changes because pawns leave is no second load mimicking a tip's moment."""
        drop = pv.level[0] - sig.f[-1]
        loss = LANDING_DIP * self.lightest_g  # the least share of a pawn's weight that counts
        return loss <= drop <= pv.on_disc_g + loss

    def _swung(self, sig: Signals, thr: float) -> bool:
        """Is the disc's moment swinging (a knock on the table, ``knock.py``)?"""
        bF, bX, bY = sig.base
        return self._knock.step(sig.t, sig.x[-1] - bX, sig.y[-1] - bY, sig.f[-1] - bF, thr)

    def _pawns_gmm(self, sig: Signals, pv: PressView) -> float:
        """The most the pawns' moment can be now: the level's before the segment plus the new load
        anywhere on the disc."""
        lf, lx, ly = pv.level
        return math.hypot(lx - sig.zero[0], ly - sig.zero[1]) + max(0.0, sig.f[-1] - lf) * self.radius_mm

    def _untippable(self, sig: Signals, pv: PressView) -> bool:
        """No load on the disc can tip it: no finger press in this segment and the pawns' moment
        below the least hold of any disc (``LEAST_HOLD_GMM``), and no pawn gone (a disc read
        level with too little moment to tip, whose pawns now leave, went over after all: its level
        was stale, e.g. a pawn set down while it tipped). Only a knock moves its moment."""
        return pv.press[0] <= 0.0 and not pv.placed and self._pawns_gmm(sig, pv) < LEAST_HOLD_GMM and \
            sig.f[-1] > pv.level[0] - self.lightest_g  # pawns gone: the disc is going over

    def _knocked(self, sig: Signals, pv: PressView, thr: float) -> bool:
        """Too soon to call an excess a tip of a disc no load can tip: at low rates it may be a
        knock's first swing (``knock.py``)."""
        return self._untippable(sig, pv) and self._knock.too_soon(self._tip_run, self._excess, thr)

    def _held_as_wobble(self, sig: Signals, pv: PressView, excess: float) -> bool:
        """Hold an excess over the threshold as a possible wobble (``wobble.py``)? When the pawns
        cannot tip the disc -- their moment, at most the level's before the segment plus the new
        load anywhere on the disc, is below the least moment any level disc holds
        (``LEAST_HOLD_GMM``; what the disc was seen to carry is no safe bound here: a true tip
        held costs its latency, and on living-room tables discs went over at 57 % of it) -- and
        the segment's force stayed within a pawn set down with a finger (a push beyond that can
        take the disc over, and a rim striking its stop is a pulse far beyond it)."""
        wob = self._wobble
        if not wob.may_hold(max(sig.f), pv.level[0], self._pawns_gmm(sig, pv), LEAST_HOLD_GMM):
            return False
        wob.hold(sig.t, excess, sig.x[-1] - sig.zero[0], sig.y[-1] - sig.zero[1])
        return True

    def _released_off_level(self, sig: Signals, pv: PressView) -> bool:
        """The release watch (``release.py``): a finger just let go of a pawn and the level is far
        from where the press put it, with the force quiet and one pawn heavier."""
        w = pv.press[0]
        if pv.pressing or self._refractory(sig, pv.placed) or \
                self._window.count < RELEASE_NOISE_WINDOWS:
            return False
        if w <= 0 and not self.settings.release_watch_light:
            return False
        press = None if w <= 0 else (w, pv.press[1] / w, pv.press[2] / w)
        off = self.follow.step(press, pv.level, (sig.f[-1], sig.x[-1], sig.y[-1]), sig.zero,
                               sig.sigma_f, self._window.sigma(sig.sigma_m))
        return off != 0.0 and not sig.glitch and sig.count >= self._suspect_until

    @staticmethod
    def _load_gmm(sig: Signals) -> float:
        """The moment of everything on the disc now (the latest sample, less the empty disc)."""
        return math.hypot(sig.x[-1] - sig.zero[0], sig.y[-1] - sig.zero[1])

    def _refractory(self, sig: Signals, placed: bool) -> bool:
        """Soon after a tip episode (``tip_refractory_ms``), with no finger press since (a press
        in the current segment), the disc may still be righting itself or settling on its
        support: its load moves inwards, or swings. A new tip moves the load outwards beyond what
        anything on the disc can explain (the excess moment against the level before the segment
        above the tip threshold): only then is it one, even with no pawn placed."""
        return sig.t < self._no_tip_until and not placed and \
            self._excess_fast <= self.threshold(sig.sigma_m)

    def _force_range_above(self, sig: Signals, n: int) -> bool:
        """The total force's range over the last ``n`` samples exceeds the quiet limit."""
        m = sig.n
        recent = sig.f[-min(n, m):] if n > 0 and m > 0 else []
        return max(recent) - min(recent) > max(self._quiet_g, 6.0 * sig.sigma_f)

    def _quiet(self, sig: Signals) -> bool:
        """The total force has been nearly constant over the last ``tip_quiet_ms``."""
        return not self._force_range_above(sig, self._quiet_n)

    def _rang(self, sig: Signals) -> bool:
        """The total force was not quiet at some time in the last ``tip_persist_ms`` (its range
        over that time and the quiet window before it is beyond the quiet limit)."""
        return self._force_range_above(sig, self._quiet_n + self._persist_n)

    def _lag_excess(self, sig: Signals) -> float:
        """Unexplained moment change against a quiet reference ``tip_lag_ms`` ago (the load after
        a finger let go, which the still baseline before the segment does not include)."""
        lag, k = self._lag_n, self._ref_n
        n = sig.n
        if n < lag + k + self._cur_n:
            return 0.0
        a, b = n - lag - k, n - lag
        c = self._cur_n
        sf, sx, sy = sig.f, sig.x, sig.y
        ref_f = sf[a - n:b - n]
        if max(ref_f) - min(ref_f) > max(self.settings.still_tol_min_g, 4.0 * sig.sigma_f):
            self._ref = None
            return 0.0
        rf = sum(ref_f) / k
        # the reference moment is a median: a disc snapping back onto its support after a wobble
        # swings the moment for one reading, and that reading is no quiet level to compare with
        rx = median(sx[a - n:b - n])
        ry = median(sy[a - n:b - n])
        cf = sum(sf[-c:]) / c
        cx = sum(sx[-c:]) / c
        cy = sum(sy[-c:]) / c
        self._ref = (rf, rx, ry)
        zx, zy = sig.zero
        excess = math.hypot(cx - rx, cy - ry) - self.lever_mm * abs(cf - rf)
        if excess > 0 and (cx - rx) * (cx - zx) + (cy - ry) * (cy - zy) < 0:
            return -excess  # the load moves inwards: a disc righting itself, not tipping
        if excess > 0.0 and self._impulse_recent(sig):
            # ... and the latest reading alone: a one-reading impulse must not count in two means
            lx, ly = sx[-1], sy[-1]
            excess = min(excess, _outward_excess(lx - rx, ly - ry, lx - zx, ly - zy,
                                                 self.lever_mm * abs(sf[-1] - rf)))
        return excess

    def _impulse_recent(self, sig: Signals) -> bool:
        """Is one of the recent readings a one-reading impulse of the moment -- far from both its
        neighbours, which agree with each other? The disc's load cannot go there and come back
        within a reading by tilting: it is an impact (a wobbling disc landing back on its
        support) averaged into one conversion. The smoothed signals carry it for
        ``_impulse_n`` readings. (Asked only of an excess: squared distances, no roots.)"""
        x, y = sig.x, sig.y
        thr2 = self.threshold(sig.sigma_m) ** 2
        xa, ya, xb, yb = x[-1], y[-1], x[-2], y[-2]
        after = (xa - xb) ** 2 + (ya - yb) ** 2  # reading -k+1 against reading -k
        for k in range(2, min(self._impulse_n + 1, sig.n - 1) + 1):
            xc, yc = x[-k - 1], y[-k - 1]
            before = (xb - xc) ** 2 + (yb - yc) ** 2
            if after > thr2 and before > thr2 and \
                    (xa - xc) ** 2 + (ya - yc) ** 2 < 0.25 * min(after, before):
                return True
            xa, ya, xb, yb, after = xb, yb, xc, yc, before
        return False


def _outward_excess(dx: float, dy: float, lx: float, ly: float, explained: float) -> float:
    """The moment change (``dx``, ``dy``) beyond what a force change explains (``explained``),
    signed: at most 0 when it points inwards (against the load's moment ``lx``, ``ly``), which is
    no tip."""
    excess = math.hypot(dx, dy) - explained
    return excess if dx * lx + dy * ly >= 0 else min(excess, 0.0)
