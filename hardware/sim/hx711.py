"""The HX711 channel of one load cell: calibration, noise, drift, glitches and faults.

Turns the true grams on a cell into the raw signed 24-bit reading the host would log.
Randomness comes from the caller's ``random.Random`` so a whole trace is reproducible per seed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

RAW_MIN = -8388608
RAW_MAX = 8388607
FAULT_KINDS = ("stuck", "saturated", "disconnected", "noisy")
GLITCH_KINDS = ("flip", "max", "min", "minus_one")


@dataclass
class Hx711Params:
    """Per-cell HX711 parameters (chosen at random per trace by the simulator)."""

    offset: int
    counts_per_gram: float
    noise_g: float
    drift_g_per_min: float  # slow linear (thermal) drift
    walk_g_per_sqrt_s: float  # random-walk part of the drift
    glitch_prob: float  # per reading
    miss_prob: float  # per reading (empty field)


class Hx711Cell:
    """One simulated HX711 channel; ``read(grams, t_s)`` returns a raw code or None (missed read)."""

    def __init__(self, params: Hx711Params, rng: random.Random) -> None:
        self.p = params
        self._rng = rng
        self._walk = 0.0
        self._last_t = 0.0
        self._last_raw = params.offset
        self.fault: str | None = None
        self._fault_value: int | None = None
        self._noisy_sigma = 0.0

    def set_fault(self, kind: str | None) -> None:
        """Start (or clear with None) a persistent fault: stuck, saturated, disconnected, noisy."""
        if kind is not None and kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; expected one of {', '.join(FAULT_KINDS)}")
        self.fault = kind
        self._fault_value = None
        if kind == "stuck":
            self._fault_value = self._last_raw
        elif kind == "saturated":
            self._fault_value = self._rng.choice((RAW_MAX, RAW_MIN))
        elif kind == "disconnected":
            # a floating DOUT reads all ones (-1) or the read times out (missed)
            self._fault_value = self._rng.choice((-1, 0, None))  # type: ignore[arg-type]
            if self._fault_value == 0:
                self._fault_value = None
        elif kind == "noisy":
            self._noisy_sigma = self._rng.uniform(15.0, 80.0)

    def drift_g(self, t_s: float) -> float:
        """Current drift in grams (advances the random walk to ``t_s``)."""
        dt = t_s - self._last_t
        if dt >= 0.25:  # the walk is slow: a step every quarter second is plenty
            self._walk += self._rng.gauss(0.0, self.p.walk_g_per_sqrt_s * math.sqrt(dt))
            self._last_t = t_s
        return self.p.drift_g_per_min * t_s / 60.0 + self._walk

    def read(self, grams: float, t_s: float) -> int | None:
        """The raw reading for ``grams`` on the cell at time ``t_s`` (seconds)."""
        rng = self._rng
        drift = self.drift_g(t_s)
        if self.fault in ("stuck", "saturated", "disconnected"):
            return self._fault_value
        sigma = self.p.noise_g + (self._noisy_sigma if self.fault == "noisy" else 0.0)
        value = self.p.offset + self.p.counts_per_gram * (grams + drift + rng.gauss(0.0, sigma))
        raw = int(round(value))
        raw = RAW_MAX if raw > RAW_MAX else RAW_MIN if raw < RAW_MIN else raw
        self._last_raw = raw
        u = rng.random()
        if u < self.p.miss_prob:
            return None
        if u < self.p.miss_prob + self.p.glitch_prob:
            return glitch(raw, rng)
        return raw


def glitch(raw: int, rng: random.Random) -> int:
    """A single bad reading: one flipped bit (12..23), 8388607, -8388608 or -1."""
    kind = rng.choice(GLITCH_KINDS)
    if kind == "max":
        return RAW_MAX
    if kind == "min":
        return RAW_MIN
    if kind == "minus_one":
        return -1
    bit = rng.randint(12, 23)  # bits 12-15 make a "lone spike" of ~5-100 g, 16-23 a huge one
    unsigned = (raw & 0xFFFFFF) ^ (1 << bit)
    return unsigned - (1 << 24) if unsigned & 0x800000 else unsigned
