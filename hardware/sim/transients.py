"""Time-limited loads: finger presses, hands, table bumps and impact pulses.

Each transient returns its contribution ``(F, Mx, My)`` (grams, g*mm) at a time and says when it
is over. Profiles are smooth ramps and damped oscillations, drawn at random per occurrence.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass


def _ramp(t: float, start: float, end: float, rise: float, fall: float) -> float:
    """0..1 trapezoid with raised-cosine edges."""
    if t <= start or t >= end:
        return 0.0
    if t < start + rise:
        return 0.5 - 0.5 * math.cos(math.pi * (t - start) / rise)
    if t > end - fall:
        return 0.5 - 0.5 * math.cos(math.pi * (end - t) / fall)
    return 1.0


@dataclass
class Contact:
    """A finger or hand pressing (positive) or lifting (negative) at a point of the disc."""

    x_mm: float
    y_mm: float
    force_g: float
    start_s: float
    end_s: float
    rise_s: float
    fall_s: float
    tremor: float = 0.0  # relative amplitude
    tremor_hz: float = 6.0
    phase: float = 0.0

    def load(self, t: float) -> tuple[float, float, float]:
        """(F, Mx, My) at time ``t``."""
        k = _ramp(t, self.start_s, self.end_s, self.rise_s, self.fall_s)
        if k == 0.0:
            return 0.0, 0.0, 0.0
        f = self.force_g * k * (1.0 + self.tremor * math.sin(2 * math.pi * self.tremor_hz * t + self.phase))
        return f, f * self.x_mm, f * self.y_mm

    def done(self, t: float) -> bool:
        """True once the contact has ended."""
        return t >= self.end_s


@dataclass
class Oscillation:
    """A damped oscillation of the load (table bump, impact, pawn landing): no lasting change."""

    start_s: float
    amp_g: float
    freq_hz: float
    tau_s: float
    lever_x_mm: float = 0.0
    lever_y_mm: float = 0.0
    phase: float = 0.0

    def load(self, t: float) -> tuple[float, float, float]:
        """(F, Mx, My) at time ``t``."""
        dt = t - self.start_s
        if dt < 0 or dt > 6 * self.tau_s:
            return 0.0, 0.0, 0.0
        f = self.amp_g * math.exp(-dt / self.tau_s) * math.sin(2 * math.pi * self.freq_hz * dt + self.phase)
        return f, f * self.lever_x_mm, f * self.lever_y_mm

    def done(self, t: float) -> bool:
        """True once the oscillation has died out."""
        return t - self.start_s > 6 * self.tau_s


@dataclass
class Pulse:
    """A half-sine force pulse at a point (the disc rim striking its stop)."""

    start_s: float
    peak_g: float
    width_s: float
    x_mm: float
    y_mm: float

    def load(self, t: float) -> tuple[float, float, float]:
        """(F, Mx, My) at time ``t``."""
        dt = t - self.start_s
        if dt < 0 or dt > self.width_s:
            return 0.0, 0.0, 0.0
        f = self.peak_g * math.sin(math.pi * dt / self.width_s)
        return f, f * self.x_mm, f * self.y_mm

    def done(self, t: float) -> bool:
        """True once the pulse is over."""
        return t - self.start_s > self.width_s


Transient = Contact | Oscillation | Pulse


def finger_press(rng: random.Random, x: float, y: float, start: float) -> Contact:
    """The finger that sets a pawn down: 20-200 g for 100-500 ms at the pawn's spot."""
    dur = rng.uniform(0.10, 0.50)
    edge = min(0.06, dur / 3)
    return Contact(x + rng.gauss(0, 2), y + rng.gauss(0, 2), rng.uniform(20, 200), start, start + dur,
                   edge * rng.uniform(0.5, 1.0), edge * rng.uniform(0.5, 1.0),
                   tremor=rng.uniform(0.0, 0.08), tremor_hz=rng.uniform(5, 10), phase=rng.uniform(0, 6.3))


def hand_hold(rng: random.Random, x: float, y: float, start: float, force_g: float,
              duration_s: float) -> Contact:
    """A hand pressing on (force > 0) or lifting (force < 0) the disc, with physiological tremor."""
    edge = min(rng.uniform(0.08, 0.25), duration_s / 3)
    return Contact(x, y, force_g, start, start + duration_s, edge, edge * rng.uniform(0.6, 1.4),
                   tremor=rng.uniform(0.02, 0.08), tremor_hz=rng.uniform(4, 9), phase=rng.uniform(0, 6.3))


def table_bump(rng: random.Random, start: float, amp_g: float | None = None) -> Oscillation:
    """Someone knocks the table: the platform rings briefly (3-40 g, 6-20 Hz, dies in < 1 s)."""
    a = rng.uniform(3, 40) if amp_g is None else amp_g
    return Oscillation(start, a, rng.uniform(6, 20), rng.uniform(0.04, 0.15),
                       rng.uniform(-60, 60), rng.uniform(-60, 60), rng.uniform(0, 6.3))
