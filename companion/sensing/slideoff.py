"""A pawn that slid off alone onto the base plate (no tip), seen at 80 Hz by its landing.

The pawn's weight leaves the disc (its flight: a dip of the total force), comes back as a short
pulse at the rim (its landing on the base plate just outside the disc) and stays weighed there:
no mass is lost and no tip happened. ``slid_off`` names the pawn from the landing's direction
and the weight that was gone, among the pawns standing near the rim, and reports it as a `fell`
(not confident: the dip is a rough weighing). The pawn is then kept with the pawns on the base
plate, so its pick-up later is no second event.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from companion.sensing.falls import SIZES, Pawn

if TYPE_CHECKING:
    from companion.sensing.pipeline import Pipeline

RIM_FRACTION = 0.7  # the pawn stood at least this far out (of the disc radius)
MAX_ANGLE_RAD = 0.5  # the landing lies within this angle of where it stood
DIP_RANGE = (0.5, 2.0)  # the weight gone during the flight, in units of the pawn's mass


def slid_off(pipe: Pipeline, t: int, radius_mm: float) -> list[dict]:
    """The `fell` of a pawn seen landing on the base plate in this segment, or nothing."""
    landing = pipe.landing
    if landing is None:
        return []
    _, dip, angle = landing
    best: tuple[float, Pawn] | None = None
    for p in pipe.pawns:
        if p.x_mm is None or p.y_mm is None or math.hypot(p.x_mm, p.y_mm) < RIM_FRACTION * radius_mm:
            continue
        off = abs((math.atan2(p.y_mm, p.x_mm) - angle + math.pi) % (2 * math.pi) - math.pi)
        if off <= MAX_ANGLE_RAD and DIP_RANGE[0] * p.mass_g <= dip <= DIP_RANGE[1] * p.mass_g and \
                (best is None or off < best[0]):
            best = (off, p)
    if best is None:
        return []
    pawn = best[1]
    pipe.pawns.remove(pawn)
    pipe.base_pawns.append(pawn)
    return [{"event": "fell", "t_ms": t, "pawns": {s: int(s == pawn.size) for s in SIZES},
             "mass_g": round(pawn.mass_g, 2), "confident": False}]
