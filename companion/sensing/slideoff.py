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
    from companion.sensing.readings import Readings
    from companion.sensing.trace import TraceHeader

RIM_FRACTION = 0.7  # the pawn stood at least this far out (of the disc radius)
MAX_ANGLE_RAD = 0.5  # the landing lies within this angle of where it stood
DIP_RANGE = (0.5, 2.0)  # the weight gone during the flight, in units of the pawn's mass
CALM_N = 6  # readings of calm on each side of a landing seen in a segment's force
FLIGHT_MAX_N = 4  # a flight from the rim to the base plate lasts at most this many readings (80 Hz)
LANDING_RIM_FRAC = 0.85  # a landing's impact is centred at least this far out (of the radius)


def landing_in_segment(rd: Readings, header: TraceHeader) -> tuple[int, float, float] | None:
    """A pawn's landing on the base plate among the readings of a segment that ended where it
    began (time, weight gone, direction), or None. The tip detector's rim-strike test sees a
    landing only when its impact is as big as a rim strike's; a small pawn landing brings back
    about its own weight again for a reading or two. The signature, in the force alone: calm at the
    level, then its flight (one to ``FLIGHT_MAX_N`` readings at least 0.6 x the lightest pawn and
    three noise sigmas below it), then within two readings its impact (three sigmas above), whose
    centre of pressure lies at the rim (a knock on the table rings about the centre, and rings
    on: both sides of the flight must be calm). ``header``: the pawns' masses, the disc's radius."""
    n = min(rd.history.n, 200)
    w = rd.history.window(n)
    if w is None or len(w[0]) < 2 * CALM_N + 4:
        return None
    fs, xs, ys, ts = w
    srt = sorted(fs)
    ref = srt[len(srt) // 2]
    ref_x = sorted(xs)[len(xs) // 2]
    ref_y = sorted(ys)[len(ys) // 2]
    sig = rd.sigma_f
    lightest = min(header.pawn_mass_g.values())
    radius_mm = header.layout.radius_mm
    low = max(0.6 * lightest, 3.0 * sig)
    high = 3.0 * sig
    calm = max(3.0 * sig, 0.3 * lightest)
    found = None
    i = CALM_N
    while i < len(fs) - CALM_N - 2:
        if ref - fs[i] < low:
            i += 1
            continue
        j = i
        while j < len(fs) and ref - fs[j] >= low and j - i < FLIGHT_MAX_N:
            j += 1
        k = max(range(j, min(j + 2, len(fs))), key=lambda q: fs[q], default=None)
        if k is None or fs[k] - ref < high or k + 1 + CALM_N > len(fs):
            i = j + 1
            continue
        before = fs[i - CALM_N:i]
        after = fs[k + 1 + 1:k + 2 + CALM_N]  # one reading for the impact's decay
        if any(abs(f - ref) > calm for f in before) or any(abs(f - ref) > calm for f in after):
            i = j + 1
            continue
        df = fs[k] - ref
        dx, dy = xs[k] - ref_x, ys[k] - ref_y
        if math.hypot(dx, dy) / df < LANDING_RIM_FRAC * radius_mm:
            i = j + 1
            continue
        if found is not None:
            return None  # more than one: not a lone pawn sliding off
        found = (ts[k], ref - min(fs[i:j]), math.atan2(dy, dx))
        i = k + 1
    return found


def slid_off(rd: Readings, t: int, landing: tuple[int, float, float] | None,
             header: TraceHeader) -> list[dict]:
    """The `fell` of a pawn seen landing on the base plate in this segment (``landing``: the one
    the tip tests' rim-strike test saw, if any), or nothing."""
    radius_mm = header.layout.radius_mm
    if landing is None and header.rate_hz >= 40.0:  # a reading must be shorter than the flight
        landing = landing_in_segment(rd, header)
    if landing is None:
        return []
    _, dip, angle = landing
    best: tuple[float, Pawn] | None = None
    for p in rd.pawns:
        if p.x_mm is None or p.y_mm is None or math.hypot(p.x_mm, p.y_mm) < RIM_FRACTION * radius_mm:
            continue
        off = abs((math.atan2(p.y_mm, p.x_mm) - angle + math.pi) % (2 * math.pi) - math.pi)
        if off <= MAX_ANGLE_RAD and DIP_RANGE[0] * p.mass_g <= dip <= DIP_RANGE[1] * p.mass_g and \
                (best is None or off < best[0]):
            best = (off, p)
    if best is None:
        return []
    pawn = best[1]
    rd.pawns.remove(pawn)
    rd.base_pawns.append(pawn)
    return [{"event": "fell", "t_ms": t, "pawns": {s: int(s == pawn.size) for s in SIZES},
             "mass_g": round(pawn.mass_g, 2), "confident": False}]
