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
RELEASE_DROP_G = 2.0  # a finger lets go of a pawn: the force comes down by at least this much
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
    pre_placed: bool
    pre_est: float | None
    pre_at: tuple[float, float]
    cand: tuple[tuple[float, float, float], int] | None
    cand_kind: str | None
    press_at_tip: bool
    unsure_falls: bool

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
        for f in reversed(w[:len(w) - n_still]):
            if abs(f - level_f) > tol_f:
                return f - level_f >= drop
        return False

    def _position(self, pipe: Pipeline, d_f: float, d_x: float, d_y: float, n: int) -> tuple[float, float]:
        """Placement position: level difference dM/dF, combined with the finger press if there was one."""
        lx, ly = d_x / d_f, d_y / d_f
        if self.press_w <= 0:
            return lx, ly
        sig_l = pipe.sigma_m() * math.sqrt(1.0 / n + 1.0 / 40.0) / d_f
        px, py = self._press_point()
        wl = 1.0 / max(sig_l, 0.1) ** 2
        wp = 1.0 / PRESS_BIAS_MM ** 2
        return (wl * lx + wp * px) / (wl + wp), (wl * ly + wp * py) / (wl + wp)

    def _placed_event(self, pipe: Pipeline, t: int, size: str, mass: float, x: float, y: float) -> dict:
        """The ``placed`` event, also recorded in the pipeline's pawn list."""
        self.placed_t = t
        if not self.positional:
            pipe.pawns.append(Pawn(size, mass, None, None))
            return {"event": "placed", "t_ms": t, "size": size, "mass_g": round(mass, 2),
                    "x_mm": None, "y_mm": None, "zone": None, "number": None}
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

    def _resolve_pre(self, pipe: Pipeline, t: int, level_f: float | None) -> list[dict]:
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
        if level_f is not None:
            d = level_f - self._drifted(t)[0]
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
        px, py = self.pre_at
        ev = self._placed_event(pipe, t, size, f, px, py)
        if not confident:
            ev["confident"] = False
        self.base = (self.base[0] + f, self.base[1] + f * px, self.base[2] + f * py)
        return [ev]

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
        return self._resolve_pre(pipe, t, sum(fs) / len(fs))
