"""What stood on the disc just before a tip fired: the readings the tip test had not flagged yet.

``BeforeTip`` (a stage of ``FallWatch``) reads the last readings before the tip: where the load
above the base pressed (the pawn set down and its finger), whether a pawn's weight stood there
for a while, and how heavy a load that stood steady like a pawn was. Pure, with explicit inputs:
the pawn set and geometry at construction, the pipeline's windows, the base and the noise as
arguments.
"""

from __future__ import annotations

import math

from companion.sensing.decomposing import TILTED_ERR_G

TIP_PRESS_LOOKBACK_MS = 250.0  # how far back before a tip the load of a pawn set down is looked for
RISE_LOOKBACK_MS = 1000.0  # how far back before a tip a load set down (and maybe gone since) is looked for
RISE_MIN_MS = 60.0  # ... standing at least this long (a knock's swing is shorter)
TIP_TRANSIENT_MS = 40.0  # the last readings before the tip fired already show the disc moving
RIM_INSIDE_MM = 5.0  # a load point beyond this far inside the rim is pulled back onto the disc

Window = tuple[list[float], list[float], list[float], list[int]]  # force, moments, times (oldest first)


class BeforeTip:
    """The load before a tip, from the readings just before it fired."""

    def __init__(self, masses: dict[str, float], radius_mm: float, dt: float) -> None:
        self.masses = masses
        self.radius_mm = radius_mm
        self.dt = dt
        self.press_n = max(4, round(TIP_PRESS_LOOKBACK_MS / dt))  # readings of ``load_point``
        self.skip = max(1, round(TIP_TRANSIENT_MS / dt))  # the readings of the tip itself
        self.need = max(2, round(RISE_MIN_MS / dt))

    def rise_n(self, history_n: int) -> int:
        """Readings ``rose`` looks at (at most the ``history_n`` kept; fewer than 4: none)."""
        return min(round(RISE_LOOKBACK_MS / self.dt), history_n)

    def load_point(self, w: Window | None, base: tuple[float, float, float]) -> tuple[float, float]:
        """Where the load above ``base`` pressed in the last readings before the tip fired
        (``w``: the last ``press_n``), by the force-weighted mean of its moment; the readings of
        the tip itself (the disc's own weight moving out) are left out."""
        bf, bx, by = base
        sw = sx = sy = 0.0
        if w is not None:
            for f, x, y in list(zip(w[0], w[1], w[2], strict=True))[:-self.skip]:
                d = f - bf
                if d >= 0.6 * self.masses["small"]:
                    sw += d
                    sx += x - bx
                    sy += y - by
        if sw <= 0.0:
            return 0.0, 0.0
        x, y = sx / sw, sy / sw
        r = math.hypot(x, y)
        lim = self.radius_mm - RIM_INSIDE_MM
        return (x * lim / r, y * lim / r) if r > lim else (x, y)

    def rose(self, w: Window | None, base_f: float, since: int, sigma_f: float) -> tuple[bool, float | None]:
        """Did the load stand a pawn's weight above the base for a while in the last second before
        the tip fired (a pawn set down, or a finger pressing)? And how far above it did a load
        that weighs like a pawn and stood steady (no press, no pinch: a finger weighs more, and
        trembles) stand: the median of its longest such run, or None. ``w``: the last
        ``rise_n`` readings; those up to ``since`` stood on an older base, and the readings of
        the tip itself are left out."""
        if w is None:
            return False, None
        lo, hi = 0.6 * min(self.masses.values()), 1.3 * max(self.masses.values())
        run = longest = 0
        pawn: list[float] = []
        best: list[float] = []
        skip = self.skip
        steady = max(3.0 * TILTED_ERR_G, 5.0 * sigma_f)
        for f, ts in zip(w[0][:-skip], w[3][:-skip], strict=True):
            if ts <= since:
                continue
            d = f - base_f
            run = run + 1 if d >= lo else 0
            longest = max(longest, run)
            if not lo <= d <= hi:
                pawn = []
            elif pawn and max(max(pawn), d) - min(min(pawn), d) > 2.0 * steady:
                pawn = [d]  # a pawn at rest is steady; a finger pressing or pinching is not
            else:
                pawn = pawn + [d]
            if len(pawn) > len(best):
                best = pawn
        return longest >= self.need, (sorted(best)[len(best) // 2] if len(best) >= self.need else None)
