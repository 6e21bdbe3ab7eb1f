"""The pawn whose release (or press) tipped the disc, weighed on the tilted disc.

``TippingPawn`` (the judge's ``tipping`` stage) owns the estimate of that pawn for one segment:
taken as ``tipped`` is reported (the level right after the finger let go, or the still level
taken for a pawn set down), then read once the tilted disc is quiet (``reading``). Its inputs
are explicit: the finger's press point and the readings after it, the segment's drifted base,
the trail of readings, the pipeline's learned sigmas. The judge emits the ``placed`` event.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.sensing.placing import Placements

ESTIMATE_MS = 60.0  # the pawn's mass: the median of the force this long after the press ended
QUIET_WAIT_MS = 1500  # the tilted disc is waited for this long to be quiet, then the estimate is used

Level = tuple[float, float, float]  # (F, Mx, My) of a still level
Trail = list[tuple[float, float, float]]  # (F, Mx, My) above the base of a segment's readings


class TippingPawn:
    """The estimate of the pawn that tipped the disc (``est``: its mass, ``at``: where it stands;
    ``placed``: estimated in this segment, whether or not its ``placed`` was emitted yet)."""

    def __init__(self, placing: Placements, dt: float) -> None:
        self.placing = placing
        self.k = max(1, round(ESTIMATE_MS / dt))
        self.reset()

    def reset(self) -> None:
        """A new segment: no pawn estimated."""
        self.placed = False
        self.est: float | None = None  # estimated mass of the pawn whose release tipped the disc
        self.at = (0.0, 0.0)  # ... and where it stands

    def at_tip(self, press: tuple[float, float] | None, post_press: list[float],
               cand_placed: Level | None, base: Level) -> None:
        """Called as ``tipped`` is reported: if a finger had just set a pawn down (its release
        tipped the disc), estimate that pawn from the level right after the finger let go
        (``press``: the press point, None without a firm press; ``post_press``: the force above
        the base after it). The ``placed`` event itself waits for the first quiet moment of the
        tilted disc, where the load is static and the mass is measured cleanly (``reading``).
        Without a firm press, a still level taken for a pawn set down (``cand_placed``) that was
        waiting for its finger to let go when the disc went over: that pawn tipped it. ``base``:
        the segment's base carried to now."""
        if self.placed:
            return
        if press is None or not post_press:
            if cand_placed is None:
                return
            d_f = cand_placed[0] - base[0]
            if d_f <= 0.0:
                return
            self.est = d_f
            self.at = ((cand_placed[1] - base[1]) / d_f, (cand_placed[2] - base[2]) / d_f)
            self.placed = True
            return
        self._estimate(post_press, press)

    def _estimate(self, post_press: list[float], press: tuple[float, float]) -> None:
        vals = sorted(post_press[:self.k])
        self.est = vals[len(vals) // 2]
        self.at = press
        self.placed = True

    def weigh_pressed(self, post_press: list[float], press: tuple[float, float]) -> bool:
        """The disc went over while a finger still pressed a pawn: once the finger has let go
        (``post_press`` holds enough readings), the pawn is estimated as a tipping pawn is.
        Returns whether it was."""
        if len(post_press) < self.k:
            return False
        self._estimate(post_press, press)
        return True

    @staticmethod
    def quiet(window: tuple[list[float], list[float], list[float], list[int]] | None, t: int,
              tip_t: int, tol_f: float) -> tuple[bool, Level | None]:
        """While the estimate is pending: is the tilted disc quiet (``window``: the last readings,
        all after the tip, their force within ``tol_f``)? Returns (read now, the quiet level or
        None): read without a level once waited for too long."""
        if t - tip_t > QUIET_WAIT_MS:
            return True, None
        if window is None:
            return False, None
        fs = window[0]
        if window[3][0] <= tip_t or max(fs) - min(fs) > tol_f:
            return False, None
        k = 1.0 / len(fs)
        return True, (sum(fs) * k, sum(window[1]) * k, sum(window[2]) * k)

    def reading(self, level: Level | None, base: Level, trail: Trail, sigma_f: float,
                sigma_m: float) -> tuple[str, float, float, float, bool] | None:
        """The pawn that tipped the disc: (size, mass, x, y, confident), or None when its mass is
        no pawn's. The mass from the quiet tilted level (``level``; ``base``: the segment's base
        carried to now) when it fits a pawn (nothing has fallen yet), else the estimate at the
        tip. The estimate is used up."""
        est = self.est
        self.est = None
        assert est is not None
        placing = self.placing
        masses = placing.masses
        f = est
        est_size = placing.match_size(est)
        # the quiet tilted level is the clean measurement; the estimate from right after the
        # release (the disc already moving) only backs it up. Without the level, or when the two
        # name different sizes (a pawn may have fallen before the disc was quiet), say so.
        confident = False
        if level is not None:
            d = level[0] - base[0]
            level_size = placing.match_size(d)
            if level_size is not None:
                f = d
                confident = est_size in (None, level_size)
        size = placing.match_size(f)
        if size is None:
            confident = False
            if not 0.6 * min(masses.values()) <= f <= 1.4 * max(masses.values()):
                return None
            size = min(masses, key=lambda k: abs(math.log(f / masses[k])))
        px, py = self._stands_at(f, level, base, trail, sigma_f, sigma_m)
        return size, f, px, py, confident

    def _stands_at(self, f: float, level: Level | None, base: Level, trail: Trail, sigma_f: float,
                   sigma_m: float) -> tuple[float, float]:
        """Where the pawn that tipped the disc stands: the finger's press (its readings until the
        tip), if on the disc; else the quiet level, if it puts the pawn on the disc (a disc lying
        tilted puts it far beyond); else the strongest press episode."""
        placing = self.placing
        if not placing.positional:
            return self.at
        radius = placing.layout.radius_mm
        # the readings up to the tip: the disc starting to go over scatters them about the press
        # (its own mass moves), so no test of one load at one point; it still moves the sum
        # less than the quiet tilted level or the strongest press episode misplace the pawn
        press = placing.press_fit(trail, 0, f, sigma_f, sigma_m)
        if press is not None and math.hypot(press[0], press[1]) <= radius:
            return press[0], press[1]
        if level is not None and f > 0.0:
            lx, ly = (level[1] - base[1]) / f, (level[2] - base[2]) / f
            if math.hypot(lx, ly) <= radius:
                return lx, ly
        return self.at
