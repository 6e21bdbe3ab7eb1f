"""Reading a placement from the still level after a finger set a pawn down.

``Placements`` (the judge's ``placing`` stage): the pawn size a force step fits, where the pawn
stands (the level's moment combined with the finger's press, ``PawnLocator``), the ``placed``
event, and the check that the level shows a disc lying tilted (a tip the tip test missed) rather
than a pawn standing on it. The pawn whose release (or press) tipped the disc is ``tipping.py``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from companion.sensing.falls import Pawn

if TYPE_CHECKING:
    from companion.sensing.layout import DiscLayout
    from companion.sensing.settings import SensingSettings

PRESS_BIAS_MM = 3.0  # a finger presses within a few mm of the pawn's centre
PRESS_ALONE = 0.7  # a finger presses the pawn alone this often (else other fingers rest on the disc too)
PRESS_MIXED_FRAC = 0.5  # ... which pull the press's centre of pressure up to this share of the radius off
CELL_WANDER_G = 0.1  # an HX711 and its cell wander this much over seconds (1/f noise, temperature)
PAWN_SPREAD = 0.03  # pawns of one size differ by this share of their mass
TIMING_SHARE = 0.5  # cells converting apart: a reading errs by up to this share of the change over it
FINGER_ROLL_MM = 1.0  # a pressing fingertip rolls and trembles about its point by this much
PRESS_CHI2_MAX = 4.0  # readings of one load at one point scatter about it within their noise
TRAIL_MAX = 1200  # readings of a segment kept for the press estimate (15 s at 80 Hz)
RELEASE_DROP_G = 2.0  # a finger lets go of a pawn: the force comes down by at least this much ...
RELEASE_LOOK_MS = 150.0  # ... within this long of the first reading off the level (a quick release)
PAWN_FOOT_MM = 6.0  # the smallest pawn's foot radius: its centre stands this far inside the rim at least
NEAR_SIZE_RANGE = (0.6, 1.3)  # a step this share of the lightest .. heaviest pawn may be one


class Placements:
    """Size, position and the ``placed`` event of a pawn set down; a disc found lying tilted.

    A stage of ``SegmentJudge`` (``judge.placing``) with explicit inputs: the pawn set and the
    geometry are fixed at construction; the segment's readings (the finger's press, the trail of
    readings, the pipeline's learned sigmas) come in as arguments. It keeps no state of its own.
    """

    def __init__(self, settings: SensingSettings, masses: dict[str, float], layout: DiscLayout,
                 positional: bool, locator: PawnLocator) -> None:
        self.s = settings
        self.masses = masses
        self.layout = layout
        self.positional = positional
        self.locator = locator

    def lies_tilted(self, press: tuple[float, float] | None, d_f: float, d_x: float, d_y: float,
                    tip_threshold: float) -> bool:
        """Does the still level after a pawn was set down show a disc lying tilted? Its moment
        puts the new mass beyond the disc's edge, which no pawn can do, and it lies further from
        the pawn's moment where the finger set it down (``press``: the press point, None without
        a press) than a tip needs (``tip_threshold``). A tip that tilts the disc only slowly, or
        by little, can stay under the tip test while the finger's press hides it (at 10 Hz one
        reading spans the release and the tilt)."""
        if not self.positional or press is None or d_f <= 0.0:
            return False
        if math.hypot(d_x, d_y) <= d_f * self.layout.radius_mm:
            return False
        px, py = press
        return math.hypot(d_x - d_f * px, d_y - d_f * py) > tip_threshold

    def match_size(self, d_f: float) -> str | None:
        """The pawn size whose mass fits a force step, or None."""
        best = None
        for size, m in self.masses.items():
            tol = max(self.s.pawn_tol_min_g, self.s.pawn_tol_frac * m)
            if abs(d_f - m) <= tol and (best is None or abs(d_f - m) < abs(d_f - self.masses[best])):
                best = size
        return best

    def near_size(self, d_f: float) -> str | None:
        """The pawn size nearest a step that fits none (two noisy levels, the slow wander of the
        cells, can miss the tolerance): reported, but not confident, rather than lost. None for a
        step no pawn could make. (A light finger still resting on the pawn also fits none: such a
        level is only taken once it has lasted, see ``RELEASE_UNSEEN_MS``.)"""
        lo, hi = min(self.masses.values()), max(self.masses.values())
        if not NEAR_SIZE_RANGE[0] * lo <= d_f <= NEAR_SIZE_RANGE[1] * hi:
            return None
        return min(self.masses, key=lambda k: abs(d_f - self.masses[k]) / max(
            self.s.pawn_tol_min_g, self.s.pawn_tol_frac * self.masses[k]))

    @staticmethod
    def released_into(forces: list[float] | None, level_f: float, n_still: int, tol_f: float,
                      sigma_f: float, dt: float) -> bool:
        """Did the still level begin as a finger let go? ``forces``: the pipeline's history of
        the total force (oldest first), its last ``n_still`` the level. Back from the level, the
        first force reading off it (beyond the stillness tolerance; the disc may have moved a
        little longer) lies well above it: the force came down into the level. A level the force
        rose into instead may be a light finger still resting on the pawn: as steady as a pawn,
        a few grams heavier."""
        if forces is None:
            return False
        drop = max(RELEASE_DROP_G, 3.0 * sigma_f)
        left = None  # readings still searched once off the level (a reading spans the release's end)
        for f in reversed(forces[:len(forces) - n_still]):
            if f - level_f >= drop:
                return True
            if level_f - f > tol_f:
                return False  # the force rose into the level
            if left is None and f - level_f > tol_f:
                left = max(2, round(RELEASE_LOOK_MS / dt))
            if left is not None:
                left -= 1
                if left <= 0:
                    return False
        return False

    def position(self, trail: list[tuple[float, float, float]], d_f: float, d_x: float, d_y: float,
                 n: int, sigma_f: float, sigma_m: float) -> tuple[float, float]:
        """Where the pawn stands (``PawnLocator.locate``: the level and the finger's press).
        ``trail``: the segment's readings above its base, the last ``n`` those of the level."""
        if not self.positional:
            return d_x / d_f, d_y / d_f
        # a step that fits no size (two pawns, an odd pawn, a finger still resting) is weighed
        # with the nearest size's mass only as far as it missed it (see ``PawnLocator.level``)
        size = self.match_size(d_f)
        near = size is None
        if near:
            size = self.near_size(d_f)
        trail = trail[:max(0, len(trail) - n)]
        return self.locator.locate(trail, d_f, d_x, d_y, n, sigma_f, sigma_m,
                                   None if size is None else self.masses[size], near)

    def press_fit(self, trail: list[tuple[float, float, float]], n: int, d_f: float, sigma_f: float,
                  sigma_m: float) -> tuple[float, float, float, float] | None:
        """The finger's press of ``trail`` up to its last ``n`` readings (``PawnLocator.press_fit``)."""
        trail = trail[:max(0, len(trail) - n)]
        return self.locator.press_fit(trail, d_f, sigma_f, sigma_m)

    def placed_event(self, t: int, size: str, mass: float, x: float, y: float) -> tuple[dict, Pawn]:
        """The ``placed`` event and the pawn to track (an estimate beyond the disc's edge pulled
        back onto it)."""
        if not self.positional:
            return ({"event": "placed", "t_ms": t, "size": size, "mass_g": round(mass, 2),
                     "x_mm": None, "y_mm": None, "zone": None, "number": None}, Pawn(size, mass, None, None))
        r = math.hypot(x, y)
        r_max = self.layout.radius_mm - PAWN_FOOT_MM
        if r > r_max:  # a pawn stands on the disc: an estimate beyond its edge is pulled back onto it
            x, y = x * r_max / r, y * r_max / r
        zone, number = self.layout.locate(x, y, self.s.line_margin_mm)
        return ({"event": "placed", "t_ms": t, "size": size, "mass_g": round(mass, 2),
                 "x_mm": round(x, 1), "y_mm": round(y, 1), "zone": zone, "number": number},
                Pawn(size, mass, x, y))


class PawnLocator:
    """Where a pawn set down stands, from the still levels before and after it and from the
    finger's press (the readings between them). Pure, with explicit inputs: the geometry comes
    from the trace header, the noise from the caller (the pipeline's learned sigmas)."""

    def __init__(self, cells: tuple, radius_mm: float) -> None:
        self.n_cells = len(cells)
        self.radius_mm = radius_mm
        # slow wander (g*mm per axis) of the moment between two still levels a second or two
        # apart: each cell's reading drifts by about ``CELL_WANDER_G`` over seconds
        self.wander_gmm = CELL_WANDER_G * math.sqrt(sum(c.x_mm ** 2 + c.y_mm ** 2 for c in cells) / 2.0)
        self.lever_mm = sum(math.hypot(c.x_mm, c.y_mm) for c in cells) / len(cells)  # cells' mean radius

    def locate(self, trail: list[tuple[float, float, float]], d_f: float, d_x: float, d_y: float, n: int,
               sigma_f: float, sigma_m: float, nominal: float | None,
               near: bool = False) -> tuple[float, float]:
        """The level's estimate combined with the press's when the press is one load at one
        point, each weighed by its uncertainty, and by how likely the press was the pawn's alone.
        ``trail``: (F, Mx, My) above the base of the readings before the ``n`` of the new level;
        ``nominal``: the mass of the size the step fits (None: none near; ``near``: the nearest
        size, which the step does not fit)."""
        lx, ly, var_l = self.level(d_f, d_x, d_y, n, sigma_f, sigma_m, nominal, near)
        press = self.press(trail, d_f, sigma_f, sigma_m)
        if press is None:
            return lx, ly
        px, py, var_p = press
        wl, wp = 1.0 / var_l, 1.0 / var_p
        bx, by = (wl * lx + wp * px) / (wl + wp), (wl * ly + wp * py) / (wl + wp)
        # Is the press the pawn's alone? Other fingers resting on the disc as it was pressed move
        # its centre of pressure towards them for the whole press, steadily (no scatter to
        # see), anywhere within about half the radius of the pawn. Weigh the two explanations
        # of how far press and level lie apart: both of the pawn (their difference is their
        # noise) or a mixed press (the difference is the other fingers' pull)
        var = var_l + var_p
        d2 = (px - lx) ** 2 + (py - ly) ** 2
        alone = PRESS_ALONE * math.exp(-0.5 * d2 / var) / (2.0 * math.pi * var)
        mixed = (1.0 - PRESS_ALONE) / (math.pi * (PRESS_MIXED_FRAC * self.radius_mm) ** 2)
        w = alone / (alone + mixed)
        return w * bx + (1.0 - w) * lx, w * by + (1.0 - w) * ly

    def level(self, d_f: float, d_x: float, d_y: float, n: int, sigma_f: float, sigma_m: float,
              nominal: float | None, near: bool = False) -> tuple[float, float, float]:
        """The pawn's place from the still levels before and after: the moment gained over the
        pawn's mass, the mass being the step weighed with what a pawn of that size weighs (pawns
        of a set differ by a few per cent; two short noisy levels, and the cells' slow wander,
        by far more for a small pawn at 10 Hz: the noise of the step's force would scale the
        position with it). Returns (x, y, variance per axis)."""
        wander = self.wander_gmm
        var_m = sigma_m ** 2 * (1.0 / n + 1.0 / 40.0) + wander ** 2
        var_f = sigma_f ** 2 * (1.0 / n + 1.0 / 40.0) + CELL_WANDER_G ** 2 * self.n_cells
        mass = d_f
        if nominal is not None:
            var_n = (PAWN_SPREAD * nominal) ** 2
            if near:  # a step off every size: the nominal mass is only as good as the miss
                var_n += (d_f - nominal) ** 2
            mass = (d_f * var_n + nominal * var_f) / (var_n + var_f)
            var_f = var_f * var_n / (var_n + var_f)
        lx, ly = d_x / mass, d_y / mass
        return lx, ly, (var_m + var_f * (lx * lx + ly * ly) / 2.0) / mass ** 2

    def press_fit(self, trail: list[tuple[float, float, float]], d_f: float, sigma_f: float,
                  sigma_m: float) -> tuple[float, float, float, float] | None:
        """The finger's press as one load at one point: every reading of ``trail`` from the old
        level (from just before the load stands out of the noise) to the still level, the
        sum of the moments over the sum of the forces. A sum is blind to when each cell
        converts (a cell read late or averaging over its conversion shifts a reading, not the
        sum), so a fast press costs nothing. Returns (x, y, variance per axis, chi-square per
        degree of freedom of the readings about that point) or None.

        The chi-square tests the premise. Each reading's moment about the point is noise (the
        cells' white noise and slow wander, a fingertip rolling by a millimetre) plus, while
        the load changes fast, the cells' own timing (cells up to a period apart: up to the
        change over a reading at the cells' lever). Other fingers steadying the disc on its far
        side (they rest on it before the pawn touches down), or the disc rocking under the
        press, put readings far off the point."""
        # from the reading before the first that stands out of the noise (it may hold part of
        # the load on a cell converting early); readings of the old level add only their noise
        lo = 3.0 * sigma_f
        first = next((i for i, p in enumerate(trail) if abs(p[0]) > lo), None)
        if first is None:
            return None
        trail = trail[max(0, first - 1):]
        tot = sum(p[0] for p in trail)
        if tot <= 0.0:
            return None
        k = len(trail)
        loaded = sum(1 for p in trail if p[0] > 0.5 * d_f)
        if loaded == 0 or tot < 0.5 * d_f * loaded:
            return None  # the load came and went (a lift, a knock): no press of this pawn
        px = sum(p[1] for p in trail) / tot
        py = sum(p[2] for p in trail) / tot
        wander = self.wander_gmm
        lever = self.lever_mm
        base_var = sigma_m ** 2 + (px * px + py * py) * sigma_f ** 2 / 2.0 + wander ** 2
        chi = 0.0
        prev = 0.0
        for f, mx, my in trail:
            # a row's cells converted within the last period or two: the change since the last row
            var = base_var + (TIMING_SHARE * (f - prev) * lever) ** 2 + (FINGER_ROLL_MM * f) ** 2
            prev = f
            chi += ((mx - f * px) ** 2 + (my - f * py) ** 2) / (2.0 * var)
        dof = max(1, k - 1)
        noise = sigma_m * math.sqrt(k) + wander * k  # white per reading, wander shared
        # the pawn's own weight stays at the end: each cell's sum holds up to a reading of it
        # more or less than another's (their timing), at the cells' lever
        step = d_f * lever * TIMING_SHARE
        var = ((noise ** 2 + step ** 2) / tot ** 2) + PRESS_BIAS_MM ** 2
        return px, py, var, chi / dof

    def press(self, trail: list[tuple[float, float, float]], d_f: float, sigma_f: float,
              sigma_m: float) -> tuple[float, float, float] | None:
        """Where the finger pressed the pawn down (``press_fit``), when the readings are those of
        one load at one point. Returns (x, y, variance per axis) or None."""
        fit = self.press_fit(trail, d_f, sigma_f, sigma_m)
        if fit is None or fit[3] > PRESS_CHI2_MAX:
            return None
        return fit[0], fit[1], fit[2]
