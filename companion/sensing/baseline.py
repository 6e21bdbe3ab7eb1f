"""What the pipeline learns of the load while the disc is still: the baseline, the empty-disc zero,
the noise, the drift and the trigger thresholds (``Pipeline``'s estimation; it composes this).

The baseline is the still level the fast path tests every sample against (and lets follow slow
drift); the warm-up learns it afresh (at the start, and after a cell was replaced: ``resync``).
Every 4th still sample the noise estimate and the empty-disc zero are kept up (``upkeep``), and
from time to time the drift rate (``track_slope``) and the trigger thresholds (``thresholds``).
"""

from __future__ import annotations

import math

from companion.sensing.settings import SensingSettings

RESYNC_NOISE = 3.0  # a level learned after a cell was replaced is rejected if this much noisier


class Baseline:
    """The still level (``bF``, ``bX``, ``bY``), the zero (``zF``, ...), the noise (``sig_f``,
    ``sig_m``), the drift (``slope``) and the fast path's thresholds (``trig_f``, ``trig_m2``).
    ``zero_tol_g``: a still level this close to the zero is the empty disc."""

    __slots__ = ("a_base", "_lag", "_zero_tol", "_trigger_min_g", "_trigger_sigmas", "bF", "bX", "bY",
                 "zF", "zX", "zY", "noise", "noise_m", "sig_f", "sig_m", "resync_mass", "resync_noise",
                 "resync_tries", "_prevF", "_prevX", "_prevY", "trig_f", "trig_m2", "slope", "_slope_t",
                 "_slope_ref")

    def __init__(self, settings: SensingSettings, dt: float, zero_tol_g: float) -> None:
        s = settings
        self.a_base = 1.0 - math.exp(-dt / s.baseline_tau_ms)
        self._lag = s.baseline_tau_ms
        self._zero_tol = zero_tol_g
        self._trigger_min_g = s.trigger_min_g
        self._trigger_sigmas = s.trigger_sigmas
        self.bF = self.bX = self.bY = 0.0  # still baseline
        self.zF = self.zX = self.zY = 0.0  # empty-disc zero (drift), set when empty and still
        self.noise = 0.0  # EMA of |dF| between samples while still
        self.noise_m = 0.0
        self.sig_f = self.sig_m = 0.0  # the noise per sample the judge reads (``_noise_changed``)
        self._noise_changed()
        self.resync_mass: tuple[float, float, float] | None = None  # the load kept through a resync
        self.resync_noise = 0.0  # force noise before the resync (mean step, g)
        self.resync_tries = 0
        self._prevF = self._prevX = self._prevY = 0.0
        self.trig_f = s.trigger_min_g
        self.trig_m2 = math.inf
        self.slope: tuple[float, float, float] = (0.0, 0.0, 0.0)  # drift of the still level per ms
        self._slope_t: int | None = None
        self._slope_ref = (0.0, 0.0, 0.0)

    def _noise_changed(self) -> None:
        """Set ``sig_f`` and ``sig_m`` after the noise estimates changed (they are read many
        times per sample inside a segment, where the estimates stay fixed)."""
        self.sig_f = max(0.02, self.noise / 1.128)
        self.sig_m = max(2.0, self.noise_m / 1.77)

    def baseline(self) -> tuple[float, float, float]:
        """The still level now (F, Mx, My): the slow baseline plus the drift it lags behind."""
        lag = self._lag
        sf, sx, sy = self.slope
        return self.bF + sf * lag, self.bX + sx * lag, self.bY + sy * lag

    def warm_up(self, F: float, X: float, Y: float, n: int) -> None:
        """The ``n``-th sample of a warm-up: the starting level is its mean (and the noise)."""
        k = 1.0 / n
        self.bF += k * (F - self.bF)
        self.bX += k * (X - self.bX)
        self.bY += k * (Y - self.bY)
        if n > 1:
            self.noise += k * (abs(F - self._prevF) - self.noise)
            self.noise_m += k * (math.hypot(X - self._prevX, Y - self._prevY) - self.noise_m)
            self._noise_changed()
        self._prevF, self._prevX, self._prevY = F, X, Y

    def too_noisy(self) -> bool:
        """At the end of a warm-up after a resync: far noisier than before the fault, a hand is on
        the disc (the cell may well have failed under it); its tremor is no level to learn, so
        the warm-up starts over (True, and all it learned is forgotten) until the disc is still."""
        if self.resync_mass is None or self.resync_noise <= 0.0 or \
                self.noise <= RESYNC_NOISE * 1.5 ** self.resync_tries * self.resync_noise:
            return False
        self.resync_tries += 1
        self.bF = self.bX = self.bY = 0.0
        self.noise = self.noise_m = 0.0
        self._noise_changed()
        return True

    def warmed(self) -> None:
        """The warm-up is over: the zero is where the load kept through a resync puts it, or the
        level itself when the disc is empty."""
        if self.resync_mass is not None:
            m = self.resync_mass
            self.zF, self.zX, self.zY = self.bF - m[0], self.bX - m[1], self.bY - m[2]
            self.resync_mass = None
        elif abs(self.bF) < self._zero_tol:
            self.zF, self.zX, self.zY = self.bF, self.bX, self.bY

    def upkeep(self, F: float, X: float, Y: float, F2: float, X2: float, Y2: float, empty: bool) -> None:
        """Every 4th still sample (``F``, ``X``, ``Y``; the one before: ``F2``, ...): the noise
        estimate, and the zero re-zeroed slowly when the disc is known to be ``empty`` (drift)."""
        d = abs(F - F2)
        noise = self.noise
        sigma_f = noise / 1.128  # sig_f (max() is a costly call here)
        if d < 8.0 * (sigma_f if sigma_f > 0.02 else 0.02) + 0.5:
            dm = math.hypot(X - X2, Y - Y2)
            self.noise = noise + 0.008 * (d - noise)
            self.noise_m += 0.008 * (dm - self.noise_m)
            self._noise_changed()
        if empty:
            bF = self.bF
            zF = self.zF
            if abs(bF - zF) < self._zero_tol:
                # the disc is known to be empty and still: re-zero slowly (drift)
                a = 4.0 * self.a_base
                self.zF = zF + a * (bF - zF)
                self.zX += a * (self.bX - self.zX)
                self.zY += a * (self.bY - self.zY)

    def track_slope(self, t: int) -> None:
        """Drift rate of the baseline (slow EMA of its change per ms, bounded to thermal drift)."""
        if self._slope_t is not None and t > self._slope_t:
            dt = t - self._slope_t
            c = min(1.0, dt / 10000.0)
            lim = 20.0 / 60000.0  # 20 g per minute
            old = self.slope
            ref = self._slope_ref
            now = (self.bF - ref[0], self.bX - ref[1], self.bY - ref[2])
            self.slope = (old[0] + c * (max(-lim, min(lim, now[0] / dt)) - old[0]),
                          old[1] + c * (max(-lim * 150, min(lim * 150, now[1] / dt)) - old[1]),
                          old[2] + c * (max(-lim * 150, min(lim * 150, now[2] / dt)) - old[2]))
        self._slope_t = t
        self._slope_ref = (self.bF, self.bX, self.bY)

    def thresholds(self, gain: float, trigger_m: float | None) -> None:
        """The fast path's trigger thresholds from the noise (``gain``: the fast EMA's noise
        relative to one sample; ``trigger_m``: the least moment threshold, None: mass only)."""
        self.trig_f = max(self._trigger_min_g, self._trigger_sigmas * self.sig_f * gain)
        if trigger_m is not None:
            trig_m = max(trigger_m, 6.0 * self.sig_m * gain)
            self.trig_m2 = trig_m * trig_m
        else:
            self.trig_m2 = math.inf

    def resync(self) -> None:
        """A failed cell was replaced (or the cells failed): keep the mass and moment on the disc
        as they were (the first time) and learn the level afresh."""
        if self.resync_mass is None:
            self.resync_mass = (self.bF - self.zF, self.bX - self.zX, self.bY - self.zY)
            self.resync_noise = self.noise
            self.resync_tries = 0
        self.bF = self.bX = self.bY = 0.0
        self.noise = self.noise_m = 0.0
        self._noise_changed()
        self._slope_t = None

    def settle(self, level: tuple[float, float, float]) -> None:
        """A segment ended: ``level`` is the still level from now on (the drift measured afresh)."""
        self._slope_t = None
        self.bF, self.bX, self.bY = level
