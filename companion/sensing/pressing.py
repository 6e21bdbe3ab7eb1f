"""The finger's presses of a segment: press episodes, the strongest one, and the readings kept.

``PressTracker`` (the judge's ``pressing`` stage) follows the force above the segment's base,
sample by sample: the press episodes (force above ``press_min_g``), the strongest finger-like one
(its summed force and moments: where it pressed), how many presses apart in time set pawns
down, the readings after the strongest press (the pawn's weight once the finger let go) and the
trail of readings above the base (for the press fit, ``PawnLocator``). Explicit inputs: the
reading and the base it is measured from.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from companion.sensing.placing import TRAIL_MAX

if TYPE_CHECKING:
    from companion.sensing.settings import SensingSettings

PRESS_APART_MS = 250.0  # presses this far apart set down different pawns
PRESS_MIN_MS = 60.0  # ... and a press lasts this long (a knocked table swings for less)
POST_PRESS_MAX = 64  # readings kept after the strongest press


class PressTracker:
    """Press episodes of one segment; the strongest finger-like one is kept."""

    def __init__(self, settings: SensingSettings, press_min_g: float, dt: float, radius_mm: float) -> None:
        self.s = settings
        self.press_min_g = press_min_g
        self.dt = dt
        self.strike_r = settings.strike_rim_frac * radius_mm  # a rim strike is centred this far out
        self.reset()

    def reset(self, trail: list[tuple[float, float, float]] | None = None) -> None:
        """A new segment (``trail``: the readings above its base just before its trigger)."""
        self.press_w = self.press_x = self.press_y = 0.0  # the strongest press: summed force, moments
        self.presses = 0  # finger-like press episodes in this segment (apart in time)
        self.press_end_n = 0  # samples since the segment began when the last one ended
        self.n_seen = 0
        self.post_press: list[float] = []  # the force above the base after the strongest press
        # (F, Mx, My) above the base of the readings so far (before a tip)
        self.trail: list[tuple[float, float, float]] = [] if trail is None else trail
        self.cur_ep: list | None = None  # the press episode going on (summed F, Mx, My; readings)

    def point(self) -> tuple[float, float] | None:
        """Where the strongest press pressed, or None when the segment had none."""
        return (self.press_x / self.press_w, self.press_y / self.press_w) if self.press_w > 0 else None

    def sample(self, f: float, x: float, y: float, base: tuple[float, float, float]) -> bool:
        """One reading (total force, moments) above ``base``. A rim-strike pulse (at most
        ``strike_ms`` long, centred at the rim) is not a finger press. Returns whether a reading
        after the strongest press was kept, no press going on (the pawn's weight may be read)."""
        self.n_seen += 1
        d = f - base[0]
        if len(self.trail) < TRAIL_MAX:
            self.trail.append((d, x - base[1], y - base[2]))
        ep = self.cur_ep
        if d >= self.press_min_g:
            if ep is None:
                ep = self.cur_ep = [0.0, 0.0, 0.0, 0]
            ep[0] += d
            ep[1] += x - base[1]
            ep[2] += y - base[2]
            ep[3] += 1
            return False
        if ep is not None:
            self.cur_ep = None
            w, ex, ey, n = ep
            strike = n * self.dt <= self.s.strike_ms and math.hypot(ex, ey) / w >= self.strike_r
            if not strike and n * self.dt >= PRESS_MIN_MS:
                # a finger's grip wavering dips for a moment; another pawn comes a while later
                if not self.presses or (self.n_seen - n - self.press_end_n) * self.dt >= PRESS_APART_MS:
                    self.presses += 1
                self.press_end_n = self.n_seen
            if not strike and w > self.press_w:
                self.press_w, self.press_x, self.press_y = w, ex, ey
                self.post_press = []
        if self.press_w > 0 and len(self.post_press) < POST_PRESS_MAX:
            self.post_press.append(d)
            return True
        return False
