"""Reading a placement from the still level after a finger set a pawn down.

The ``placing`` half of ``SegmentJudge``: the pawn size a force step fits, where the pawn stands
(the level's moment combined with the finger's press), the ``placed`` event, and the check that
the level shows a disc lying tilted (a tip the tip test missed) rather than a pawn standing on it;
and the pawn whose release (or press) tipped the disc, weighed on the tilted disc.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from companion.sensing.falls import Pawn

if TYPE_CHECKING:
    from companion.sensing.layout import DiscLayout
    from companion.sensing.pipeline import Pipeline
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


class PlacementReader:
    """Size, position and the ``placed`` event of a pawn set down; a disc found lying tilted."""

    s: SensingSettings
    masses: dict[str, float]
    layout: DiscLayout
    positional: bool
    presses: int
    press_w: float
    press_x: float
    press_y: float
    placed_t: int
    dt: float
    base: tuple[float, float, float]
    tip_t: int | None
    pre_n: int
    post_press: list[float]
    trail: list[tuple[float, float, float]]
    pre_placed: bool
    pre_est: float | None
    pre_at: tuple[float, float]
    cand: tuple[tuple[float, float, float], int] | None
    cand_kind: str | None
    press_at_tip: bool
    unsure_falls: bool
    locator: PawnLocator

    def _drifted(self, t: int) -> tuple[float, float, float]:
        raise NotImplementedError

    def _press_point(self) -> tuple[float, float]:
        """Where the finger pressed (the strongest press of the segment; ``press_w`` > 0)."""
        return self.press_x / self.press_w, self.press_y / self.press_w

    def _lies_tilted(self, pipe: Pipeline, d_f: float, d_x: float, d_y: float) -> bool:
        """Does the still level after a pawn was set down show a disc lying tilted? Its moment
        puts the new mass beyond the disc's edge, which no pawn can do, and it lies further from
        the pawn's moment where the finger set it down than a tip needs. A tip that tilts the disc
        only slowly, or by little, can stay under the tip test while the finger's press hides it
        (at 10 Hz one reading spans the release and the tilt)."""
        if not self.positional or self.press_w <= 0 or d_f <= 0.0:
            return False
        if math.hypot(d_x, d_y) <= d_f * self.layout.radius_mm:
            return False
        px, py = self._press_point()
        return math.hypot(d_x - d_f * px, d_y - d_f * py) > pipe.tip_threshold()

    def _match_size(self, d_f: float) -> str | None:
        """The pawn size whose mass fits a force step, or None."""
        best = None
        for size, m in self.masses.items():
            tol = max(self.s.pawn_tol_min_g, self.s.pawn_tol_frac * m)
            if abs(d_f - m) <= tol and (best is None or abs(d_f - m) < abs(d_f - self.masses[best])):
                best = size
        return best

    def _near_size(self, d_f: float) -> str | None:
        """The pawn size nearest a step that fits none (two noisy levels, the slow wander of the
        cells, can miss the tolerance): reported, but not confident, rather than lost. None for a
        step no pawn could make. (A light finger still resting on the pawn also fits none: such a
        level is only taken once it has lasted, see ``RELEASE_UNSEEN_MS``.)"""
        lo, hi = min(self.masses.values()), max(self.masses.values())
        if not NEAR_SIZE_RANGE[0] * lo <= d_f <= NEAR_SIZE_RANGE[1] * hi:
            return None
        return min(self.masses, key=lambda k: abs(d_f - self.masses[k]) / max(
            self.s.pawn_tol_min_g, self.s.pawn_tol_frac * self.masses[k]))

    def _released_into(self, pipe: Pipeline, level_f: float, n_still: int, tol_f: float) -> bool:
        """Did the still level begin as a finger let go? Back from the level, the first force
        reading off it (beyond the stillness tolerance; the disc may have moved a little longer)
        lies well above it: the force came down into the level. A level the force rose into
        instead may be a light finger still resting on the pawn: as steady as a pawn, a few
        grams heavier."""
        w = pipe.window_f(pipe.history_n)
        if w is None:
            return False
        drop = max(RELEASE_DROP_G, 3.0 * pipe.sigma_f())
        left = None  # readings still searched once off the level (a reading spans the release's end)
        for f in reversed(w[:len(w) - n_still]):
            if f - level_f >= drop:
                return True
            if level_f - f > tol_f:
                return False  # the force rose into the level
            if left is None and f - level_f > tol_f:
                left = max(2, round(RELEASE_LOOK_MS / self.dt))
            if left is not None:
                left -= 1
                if left <= 0:
                    return False
        return False

    def _position(self, pipe: Pipeline, d_f: float, d_x: float, d_y: float, n: int) -> tuple[float, float]:
        """Where the pawn stands (``PawnLocator.locate``: the level and the finger's press)."""
        if not self.positional:
            return d_x / d_f, d_y / d_f
        # a step that fits no size (two pawns, an odd pawn, a finger still resting) is weighed
        # with the nearest size's mass only as far as it missed it (see ``PawnLocator.level``)
        size = self._match_size(d_f)
        near = size is None
        if near:
            size = self._near_size(d_f)
        trail = self.trail[:max(0, len(self.trail) - n)]
        return self.locator.locate(trail, d_f, d_x, d_y, n, pipe.sigma_f(), pipe.sigma_m(),
                                   None if size is None else self.masses[size], near)

    def press_fit(self, pipe: Pipeline, n: int, d_f: float) -> tuple[float, float, float, float] | None:
        """The finger's press of this segment up to its last ``n`` readings (``PawnLocator.press_fit``)."""
        trail = self.trail[:max(0, len(self.trail) - n)]
        return self.locator.press_fit(trail, d_f, pipe.sigma_f(), pipe.sigma_m())

    def _placed_event(self, pipe: Pipeline, t: int, size: str, mass: float, x: float, y: float) -> dict:
        """The ``placed`` event, also recorded in the pipeline's pawn list."""
        self.placed_t = t
        if not self.positional:
            pipe.pawns.append(Pawn(size, mass, None, None))
            return {"event": "placed", "t_ms": t, "size": size, "mass_g": round(mass, 2),
                    "x_mm": None, "y_mm": None, "zone": None, "number": None}
        r = math.hypot(x, y)
        r_max = self.layout.radius_mm - PAWN_FOOT_MM
        if r > r_max:  # a pawn stands on the disc: an estimate beyond its edge is pulled back onto it
            x, y = x * r_max / r, y * r_max / r
        zone, number = self.layout.locate(x, y, self.s.line_margin_mm)
        pipe.pawns.append(Pawn(size, mass, x, y))
        return {"event": "placed", "t_ms": t, "size": size, "mass_g": round(mass, 2),
                "x_mm": round(x, 1), "y_mm": round(y, 1), "zone": zone, "number": number}

    # ---------------------------------------------------------------- the pawn that tipped the disc
    def before_tip(self, pipe: Pipeline, t: int) -> list[dict]:
        """Called as ``tipped`` is reported: if a finger had just set a pawn down (its release tipped
        the disc), estimate that pawn from the level right after the finger let go. The ``placed``
        event itself waits for the first quiet moment of the tilted disc, where the load is
        static and the mass is measured cleanly (see ``_resolve_pre``)."""
        if self.pre_placed:
            return []
        if self.press_w <= 0 or not self.post_press:
            # no firm press; a still level taken for a pawn set down was waiting for its finger
            # to let go (``RELEASE_UNSEEN_MS``) when the disc went over: that pawn tipped it
            cand = self.cand
            if cand is None or self.cand_kind != "placed":
                return []
            base = self._drifted(t)
            d_f = cand[0][0] - base[0]
            if d_f <= 0.0:
                return []
            self.pre_est = d_f
            self.pre_at = ((cand[0][1] - base[1]) / d_f, (cand[0][2] - base[2]) / d_f)
            self.pre_placed = True
            return []
        k = max(1, round(60.0 / self.dt))
        vals = sorted(self.post_press[:k])
        self.pre_est = vals[len(vals) // 2]
        self.pre_at = self._press_point()
        self.pre_placed = True
        return []

    def _resolve_pre(self, pipe: Pipeline, t: int, level: tuple[float, float, float] | None) -> list[dict]:
        """Emit the ``placed`` of the pawn that tipped the disc: mass from the quiet tilted level
        when it fits a pawn (nothing has fallen yet), else from the estimate at the tip."""
        est = self.pre_est
        self.pre_est = None
        assert est is not None
        f = est
        est_size = self._match_size(est)
        # the quiet tilted level is the clean measurement; the estimate from right after the
        # release (the disc already moving) only backs it up. Without the level, or when the two
        # name different sizes (a pawn may have fallen before the disc was quiet), say so.
        confident = False
        if level is not None:
            d = level[0] - self._drifted(t)[0]
            level_size = self._match_size(d)
            if level_size is not None:
                f = d
                confident = est_size in (None, level_size)
        size = self._match_size(f)
        if size is None:
            confident = False
            if not 0.6 * min(self.masses.values()) <= f <= 1.4 * max(self.masses.values()):
                return []
            size = min(self.masses, key=lambda k: abs(math.log(f / self.masses[k])))
        px, py = self._tipping_pawn_at(pipe, t, f, level)
        ev = self._placed_event(pipe, t, size, f, px, py)
        if not confident:
            ev["confident"] = False
        self.base = (self.base[0] + f, self.base[1] + f * px, self.base[2] + f * py)
        return [ev]

    def _tipping_pawn_at(self, pipe: Pipeline, t: int, f: float,
                         level: tuple[float, float, float] | None) -> tuple[float, float]:
        """Where the pawn that tipped the disc stands: the finger's press (its readings until the
        tip), if on the disc; else the quiet level, if it puts the pawn on the disc (a disc lying
        tilted puts it far beyond); else the strongest press episode."""
        if not self.positional:
            return self.pre_at
        # the readings up to the tip: the disc starting to go over scatters them about the press
        # (its own mass moves), so no test of one load at one point; it still moves the sum
        # less than the quiet tilted level or the strongest press episode misplace the pawn
        press = self.press_fit(pipe, 0, f)
        if press is not None and math.hypot(press[0], press[1]) <= self.layout.radius_mm:
            return press[0], press[1]
        if level is not None and f > 0.0:
            b = self._drifted(t)
            lx, ly = (level[1] - b[1]) / f, (level[2] - b[2]) / f
            if math.hypot(lx, ly) <= self.layout.radius_mm:
                return lx, ly
        return self.pre_at

    def _weigh_pressed_at_tip(self) -> None:
        """The disc went over while a finger still pressed a pawn (a finger adds tipping moment, it
        does not hold the disc): once the finger has let go, the pawn is weighed as a tipping
        pawn is (``pre_est``; its ``placed`` follows at the first quiet moment), and the falls of
        this tip are not confident (it may have gone with them before it was weighed)."""
        k = max(1, round(60.0 / self.dt))
        if len(self.post_press) < k:
            return
        vals = sorted(self.post_press[:k])
        self.pre_est = vals[len(vals) // 2]
        self.pre_at = self._press_point()
        self.pre_placed = True
        self.press_at_tip = False
        self.unsure_falls = True

    def _check_pre(self, pipe: Pipeline, t: int) -> list[dict] | None:
        """While the tipping pawn is pending: wait for a short quiet stretch of the total force."""
        w = pipe.window(self.pre_n)
        tip_t = self.tip_t if self.tip_t is not None else t
        if t - tip_t > 1500 or w is None:
            return self._resolve_pre(pipe, t, None) if t - tip_t > 1500 else None
        fs = w[0]
        if w[3][0] <= tip_t or max(fs) - min(fs) > max(self.s.still_tol_min_g, 5.0 * pipe.sigma_f()):
            return None
        k = 1.0 / len(fs)
        return self._resolve_pre(pipe, t, (sum(fs) * k, sum(w[1]) * k, sum(w[2]) * k))


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
