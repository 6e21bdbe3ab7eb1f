"""Running a tip episode to its end: the disc comes to rest level, or lies tipped and is re-levelled.

``run_episode`` drives an ``Integrator`` (``hardware.simfamily.disc``): it integrates until nothing
moves, lets a balanced-on-the-edge disc go one way, shakes the outermost downhill pawn loose while
the rest would tip the disc again once level, and then has a player lift the low rim and bring the
disc level (a minimum-jerk path; the hand's force follows from the torque balance).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from hardware.simfamily.disc import DISC_RADIUS, Integrator, min_jerk


def run_episode(
    integ: Integrator,
    rng: random.Random,
    disc_mass_g: float,
    onset: float,
    ext: Callable[[float], list],
    relevel: bool = True,
) -> tuple[str, float | None]:
    """Integrate until the episode is over; returns (how it ended, when a hand began to re-level it)."""
    sup = integ.sup
    still = 0
    end_kind = "timeout"
    shaken = 0
    t_rel = None
    hand_s = 0.0
    while integ.t - onset < 20_000:
        integ.run_grid_step()
        if integ.moving() or ext(integ.t):
            still = 0
            continue
        still += 1
        if still < 3:
            continue
        if integ.th != 0 and abs(integ.th) < 0.9 * sup.stop_rad and still < 1500:
            continue  # balanced on the edge for a moment: keep integrating, it will go one way
        integ.still_for(114)
        if integ.th == 0:
            end_kind = "level"
            break
        # lying tipped and still: shake the outermost pawn loose while the rest would tip it again
        on = [b for b in integ.bodies if b.pid >= 0 and b.on]
        lvl_mu = sum(b.mass * b.s for b in on)
        lvl_mv = sum(b.mass * b.v for b in on)
        w = disc_mass_g + sum(b.mass for b in on)
        if on and math.hypot(lvl_mu, lvl_mv) > 0.97 * sup.hold(w) and shaken < 30:
            sg = 1.0 if integ.th > 0 else -1.0
            b = max(on, key=lambda b: sg * b.s)
            b.mu_s, b.mu_k = 0.0, rng.uniform(0.0, 0.05)
            b.sliding, b.speed = True, 0.0
            shaken += 1
            still = 0
            continue
        if not relevel:
            end_kind = "tipped"
            break
        # a player lifts the low rim and brings the disc level
        integ.still_for(rng.uniform(400, 1500))
        sg = 1.0 if integ.th > 0 else -1.0
        hand_s = sg * (DISC_RADIUS - rng.uniform(3, 12))
        dur = rng.uniform(350, 900)
        t_rel = integ.t
        integ.prescribed = min_jerk(integ.th, 0.0, integ.t, dur)
        integ.hand_s = hand_s
        for b in integ.bodies:
            b.sliding, b.speed = False, 0.0
        while integ.t < t_rel + dur:
            integ.run_grid_step()
        integ.prescribed = None
        integ.th, integ.om = 0.0, 0.0
        integ.run_grid_step()
        integ.still_for(rng.uniform(200, 700))
        end_kind = "relevel"
        break
    return end_kind, t_rel
