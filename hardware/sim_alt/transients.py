"""Short force profiles on the grid: finger presses, hands, bumps, pinches, impacts.

Each function returns a list of grid values (one per ``STEP_MS``) and draws its randomness
from the ``random.Random`` it is given.
"""

from __future__ import annotations

import math
import random

from hardware.sim_alt.loads import STEP_MS


def _edge(k: int, n: int) -> float:
    """Raised-cosine ramp 0 -> 1 over ``n`` steps."""
    if n <= 0:
        return 1.0
    return 0.5 - 0.5 * math.cos(math.pi * min(1.0, k / n))


def press_profile(rng: random.Random, peak_g: float, duration_ms: float) -> list[float]:
    """A finger press: quick attack, a plateau that sags or grows, 8-12 Hz tremor, slower release.

    The profile ends at exactly zero (the release instant is its end).
    """
    n = max(3, int(duration_ms / STEP_MS))
    attack = max(1, int(rng.uniform(12, 45) / STEP_MS))
    release = max(1, int(rng.uniform(25, 90) / STEP_MS))
    if attack + release > n:
        attack = release = n // 2
    trend = rng.uniform(-0.3, 0.2)
    trem_a, trem_f, phase = rng.uniform(0.02, 0.1), rng.uniform(8, 12), rng.uniform(0, 6.3)
    out = []
    for k in range(n + 1):
        env = _edge(k, attack) * _edge(n - k, release)
        tremor = trem_a * math.sin(2 * math.pi * trem_f * k * STEP_MS / 1000 + phase)
        level = peak_g * (1 + trend * k / n) * (1 + tremor)
        out.append(max(0.0, env * level))
    out[-1] = 0.0
    return out


def hand_profile(rng: random.Random, force_g: float, duration_ms: float) -> list[float]:
    """A hand holding the disc: 60-300 ms ramps, slow wander (+-20 %) and 3-9 Hz tremor."""
    n = max(4, int(duration_ms / STEP_MS))
    ramp_up = max(1, int(rng.uniform(60, 300) / STEP_MS))
    ramp_down = max(1, int(rng.uniform(60, 300) / STEP_MS))
    if ramp_up + ramp_down > n:
        ramp_up = ramp_down = n // 2
    wander_f, wander_p = rng.uniform(0.2, 0.8), rng.uniform(0, 6.3)
    trem_a, trem_f, trem_p = rng.uniform(0.03, 0.1), rng.uniform(3, 9), rng.uniform(0, 6.3)
    out = []
    for k in range(n + 1):
        t = k * STEP_MS / 1000
        env = _edge(k, ramp_up) * _edge(n - k, ramp_down)
        level = force_g * (1 + 0.2 * math.sin(2 * math.pi * wander_f * t + wander_p)
                           + trem_a * math.sin(2 * math.pi * trem_f * t + trem_p))
        out.append(env * level)
    out[-1] = 0.0
    return out


def bump_profile(rng: random.Random, amplitude_g: float) -> tuple[list[float], float, float, list[float]]:
    """A table knock: a damped two-mode oscillation with no lasting change.

    Returns ``(force, lever_x_mm, lever_y_mm, rocking)``: the bounce of the whole load and a
    rocking moment profile (g*mm) along the lever direction.
    """
    f1, tau = rng.uniform(6, 30), rng.uniform(30, 250)
    f2 = f1 * rng.uniform(1.4, 2.6)
    a2 = rng.uniform(0.1, 0.4)
    p1, p2 = rng.uniform(0, 6.3), rng.uniform(0, 6.3)
    angle = rng.uniform(0, 2 * math.pi)
    lever = rng.uniform(0, 90)
    n = int(5 * tau / STEP_MS) + 1
    force, rock = [], []
    for k in range(n):
        t = k * STEP_MS
        env = math.exp(-t / tau) * _edge(k, 2)
        force.append(amplitude_g * env * math.sin(2 * math.pi * f1 * t / 1000 + p1))
        rock.append(amplitude_g * lever * a2 * env * math.sin(2 * math.pi * f2 * t / 1000 + p2))
    return force, math.cos(angle), math.sin(angle), rock


def pulse_profile(area_g_ms: float, width_ms: float) -> list[float]:
    """A half-sine force pulse of a given area (g*ms: an impulse) and width."""
    n = max(1, int(round(width_ms / STEP_MS)))
    peak = area_g_ms * math.pi / (2 * width_ms)
    return [peak * math.sin(math.pi * (k + 0.5) / n) for k in range(n)]


def ramp_profile(rng: random.Random, mass_g: float) -> list[float]:
    """A pawn being lowered onto the disc: its weight arrives over 20-80 ms."""
    n = max(1, int(rng.uniform(20, 80) / STEP_MS))
    return [mass_g * _edge(k, n) for k in range(n + 1)]
