"""Pawns and the contacts of a player's hand: point-force profiles on the load grid.

``Force`` is a force profile (grams, down positive) at a fixed point of the level disc;
``press_profile`` is a finger setting a pawn down, ``release_now`` cuts a press short (the player
feels the disc go and lets go); ``drop_profile`` is a pawn let go a few mm above the disc (a child's
placement: it lands with an impact and bounces once before it stays).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from companion.sensing.layout import DiscLayout
from hardware.simfamily.disc import STEP_MS, G


def on_line(layout: DiscLayout, x: float, y: float, radius: float) -> bool:
    """Whether a pawn footprint at (x, y) touches a ring or zone line, the centre disc or the rim."""
    return layout.locate(x, y, radius) == (None, None)


def edge(k: float, n: float) -> float:
    if n <= 0:
        return 1.0
    return 0.5 - 0.5 * math.cos(math.pi * min(1.0, max(0.0, k / n)))


@dataclass
class Pawn:
    """A pawn on the level disc (x, y) with its own mass and friction."""

    pid: int
    size: str
    mass: float
    x: float
    y: float
    mu_s: float
    mu_k: float


@dataclass
class Force:
    """A point force profile on the grid (down positive), at a fixed point of the level disc."""

    t0: float  # ms of the first grid value
    values: list[float]
    x: float
    y: float

    def at(self, t: float) -> float:
        i = int(round((t - self.t0) / STEP_MS))
        return self.values[i] if 0 <= i < len(self.values) else 0.0

    @property
    def end(self) -> float:
        return self.t0 + (len(self.values) - 1) * STEP_MS


def press_profile(rng: random.Random, peak: float, dur_ms: float) -> list[float]:
    """A finger press: 10-50 ms attack, a sagging or growing plateau with 6-12 Hz tremor, 20-90 ms release."""
    n = max(4, int(dur_ms / STEP_MS))
    att, rel = rng.uniform(10, 50) / STEP_MS, rng.uniform(20, 90) / STEP_MS
    if att + rel > n:
        att = rel = n / 2
    trend, trem, fr, ph = (
        rng.uniform(-0.3, 0.2),
        rng.uniform(0.0, 0.1),
        rng.uniform(6, 12),
        rng.uniform(0, 6.3),
    )
    out = [
        max(
            0.0,
            peak
            * (1 + trend * k / n)
            * (1 + trem * math.sin(2 * math.pi * fr * k * STEP_MS / 1000 + ph))
            * edge(k, att)
            * edge(n - k, rel),
        )
        for k in range(n + 1)
    ]
    out[-1] = 0.0
    return out


def release_now(values: list[float], k: int, rng: random.Random) -> list[float]:
    """Cut a press short at index ``k``: the finger lets go over 20-60 ms from there."""
    rel = max(2, int(rng.uniform(20, 60) / STEP_MS))
    level = values[min(k, len(values) - 1)]
    return values[:k] + [level * edge(rel - j, rel) for j in range(rel)] + [0.0]


@dataclass(frozen=True)
class Drop:
    """A pawn dropped onto the disc: the load *beyond* its steady weight from the first impact on."""

    values: list[float]  # grams per grid step from touch-down (impacts positive, the hop negative)
    height_mm: float
    flight_ms: float  # the hop after the first impact
    settle_ms: float  # touch-down to the end of the second impact

    @property
    def impulse_gms(self) -> float:
        """Impulse beyond the weight (g.ms): the momentum it brought, ``m sqrt(2 g h) / g``."""
        return sum(self.values) * STEP_MS


def _pulse(impulse_gms: float, contact_ms: float) -> list[float]:
    """A half-sine contact of ``impulse_gms`` (g.ms) over ``contact_ms``, as per-step means on the grid."""
    n = max(1, int(round(contact_ms / STEP_MS)))
    shape = [math.sin(math.pi * (k + 0.5) / n) for k in range(n)]
    total = sum(shape) * STEP_MS
    return [impulse_gms * v / total for v in shape]


def drop_profile(rng: random.Random, mass_g: float) -> Drop:
    """A pawn let go 2-15 mm above the disc: it lands at ``v = sqrt(2 g h)``, bounces off with a
    restitution of 0.2-0.5 (wood or plastic on a wooden disc), hops for ``2 e v / g`` (a few to 35 ms)
    and stays at its second landing. The first contact (1-4 ms) takes ``m v (1 + e)``, the hop gives
    back ``m`` for its flight, the second contact takes ``m e v``: in all the momentum ``m v``."""
    h = rng.uniform(2.0, 15.0)
    e = rng.uniform(0.2, 0.5)
    v = math.sqrt(2 * G * h)  # mm/s
    to_gms = mass_g / G * 1000.0  # (mm/s) -> g.ms of impulse for this mass
    first = _pulse(to_gms * v * (1 + e), rng.uniform(1.0, 4.0))
    flight = 2 * e * v / G * 1000.0
    hop = [-mass_g] * max(1, int(round(flight / STEP_MS)))
    # the hop's grid steps carry -m each: shift the second impact so the total impulse is m v / g
    second = _pulse(to_gms * v * e + (len(hop) * STEP_MS - flight) * mass_g, rng.uniform(1.0, 4.0))
    values = first + hop + second
    return Drop(values, h, flight, len(values) * STEP_MS)
