"""Load timeline and platform statics for the independent simulator.

Loads are grams-force on the base platform, first moments in g*mm about the disc centre
(disc frame of ``table-trace.md``), sampled on a fine grid (``STEP_MS``). Persistent loads
(pawns standing on the level disc or lying on the base) go in as step changes; transients
(fingers, hands, bumps, the tip dynamics) are added point by point over their span.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import accumulate

STEP_MS = 2
"""Grid step of the load timeline (500 Hz, finer than any HX711 conversion)."""


class LoadTimeline:
    """Total load ``(F, Mx, My)`` on the base as a function of time, on a ``STEP_MS`` grid."""

    def __init__(self, duration_ms: int) -> None:
        if duration_ms <= 0:
            raise ValueError(f"duration_ms must be positive, got {duration_ms}")
        self.n = duration_ms // STEP_MS + 2
        self._d = [[0.0] * (self.n + 1) for _ in range(3)]  # step changes (difference arrays)
        self._t = [[0.0] * self.n for _ in range(3)]        # transients

    def index(self, t_ms: float) -> int:
        """Grid index of a time (clamped to the timeline)."""
        return min(self.n - 1, max(0, int(round(t_ms / STEP_MS))))

    def step(self, t_ms: float, f: float, mx: float, my: float) -> None:
        """A persistent load change from ``t_ms`` on (a pawn arriving: positive ``f``)."""
        i = self.index(t_ms)
        for arr, v in zip(self._d, (f, mx, my), strict=True):
            arr[i] += v

    def add(self, t0_ms: float, f: Sequence[float], mx: Sequence[float], my: Sequence[float]) -> None:
        """Add a transient given on the grid from ``t0_ms`` (values past the end are dropped)."""
        i0 = self.index(t0_ms)
        for arr, vals in zip(self._t, (f, mx, my), strict=True):
            for k, v in enumerate(vals):
                i = i0 + k
                if i >= self.n:
                    break
                arr[i] += v

    def add_point_force(self, t0_ms: float, force: Sequence[float], x_mm: float | Sequence[float],
                        y_mm: float | Sequence[float]) -> None:
        """A vertical force profile (down positive) at a fixed or moving point."""
        xs = x_mm if isinstance(x_mm, Sequence) else [x_mm] * len(force)
        ys = y_mm if isinstance(y_mm, Sequence) else [y_mm] * len(force)
        self.add(t0_ms, force, [f * x for f, x in zip(force, xs, strict=False)],
                 [f * y for f, y in zip(force, ys, strict=False)])

    def arrays(self) -> tuple[list[float], list[float], list[float]]:
        """The total ``F``, ``Mx``, ``My`` per grid point."""
        out = []
        for d, t in zip(self._d, self._t, strict=True):
            out.append([a + b for a, b in zip(accumulate(d[: self.n]), t, strict=True)])
        return out[0], out[1], out[2]


def _solve3(a: list[list[float]], b: list[float]) -> list[float]:
    """Solve a 3x3 linear system (Cramer's rule); raises on a singular matrix."""
    def det(m: list[list[float]]) -> float:
        return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
                - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))
    d = det(a)
    if abs(d) < 1e-9:
        raise ValueError("cell positions are collinear: the platform is not statically supported")
    out = []
    for j in range(3):
        m = [row[:] for row in a]
        for i in range(3):
            m[i][j] = b[i]
        out.append(det(m) / d)
    return out


class Platform:
    """A rigid base plate on elastic load cells of unequal stiffness.

    The plate stays flat, so cell ``i`` deflects ``w = a + b x_i + c y_i`` and carries
    ``k_i w``; the three unknowns follow from force and moment balance. With 3 cells this is
    the unique statics solution whatever the stiffnesses; with 4 or more it is the
    stiffness-weighted one (not the symmetric minimum-norm split). One cell carries ``F``.
    """

    def __init__(self, positions: Sequence[tuple[float, float]], stiffness: Sequence[float]) -> None:
        if not positions:
            raise ValueError("a platform needs at least one cell")
        if len(stiffness) != len(positions) or any(k <= 0 for k in stiffness):
            raise ValueError("one positive stiffness per cell is required")
        self.positions = [(float(x), float(y)) for x, y in positions]
        self.n = len(positions)
        self._w: list[tuple[float, float, float]] = []
        if self.n == 1:
            self._w = [(1.0, 0.0, 0.0)]
            return
        if self.n == 2:
            raise ValueError("2 cells cannot carry a moment about their own axis; use 1, 3 or more")
        k = list(stiffness)
        rows = [(1.0, x, y) for x, y in self.positions]
        a = [[sum(k[i] * rows[i][p] * rows[i][q] for i in range(self.n)) for q in range(3)] for p in range(3)]
        inv_cols = [_solve3(a, [1.0 if r == j else 0.0 for r in range(3)]) for j in range(3)]
        # f_i = k_i * rows_i . A^-1 . (F, Mx, My)
        for i in range(self.n):
            coeff = [k[i] * sum(rows[i][p] * inv_cols[j][p] for p in range(3)) for j in range(3)]
            self._w.append((coeff[0], coeff[1], coeff[2]))

    def cell_forces(self, f: float, mx: float, my: float) -> list[float]:
        """Force on each cell (grams) for a total load and its first moments."""
        return [wf * f + wx * mx + wy * my for wf, wx, wy in self._w]


def ring_positions(n: int, radius_mm: float, rotation_deg: float) -> list[tuple[float, float]]:
    """``n`` cells evenly on a circle (one cell: at the centre)."""
    if n == 1:
        return [(0.0, 0.0)]
    return [(radius_mm * math.cos(math.radians(rotation_deg + 360.0 * i / n)),
             radius_mm * math.sin(math.radians(rotation_deg + 360.0 * i / n))) for i in range(n)]
