"""One-reading impulses of the moment, and the outward excess of a moment change.

Used by ``TipTests`` (``tips.py``). A wobbling disc landing back on a flat support is an impact
that one conversion averages into one reading: the moment jumps far and is back at the next
reading, the force unchanged. The disc's load cannot go there and back within a reading by
tilting, so such a reading confirms no tip. Pure: readings in, yes/no out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def impulse_within(x: Sequence[float], y: Sequence[float], k_max: int, thr: float) -> bool:
    """Is one of the readings ``-2`` .. ``-k_max`` of the moments (``x``, ``y``) an impulse: more
    than ``thr`` from both its neighbours, which are within half that of each other? (Squared
    distances, no roots: asked of every excess.)"""
    thr2 = thr * thr
    xa, ya, xb, yb = x[-1], y[-1], x[-2], y[-2]
    after = (xa - xb) ** 2 + (ya - yb) ** 2  # reading -k+1 against reading -k
    for k in range(2, k_max + 1):
        xc, yc = x[-k - 1], y[-k - 1]
        before = (xb - xc) ** 2 + (yb - yc) ** 2
        if after > thr2 and before > thr2 and (xa - xc) ** 2 + (ya - yc) ** 2 < 0.25 * min(after, before):
            return True
        xa, ya, xb, yb, after = xb, yb, xc, yc, before
    return False


def outward_excess(dx: float, dy: float, lx: float, ly: float, explained: float) -> float:
    """The moment change (``dx``, ``dy``) beyond what a force change explains (``explained``),
    signed: at most 0 when it points inwards (against the load's moment ``lx``, ``ly``), which is
    no tip."""
    excess = math.hypot(dx, dy) - explained
    return excess if dx * lx + dy * ly >= 0 else min(excess, 0.0)
