"""Rigid-platform statics: how a load on the platform shares out between its load cells.

A rigid base platform rests on N load cells at known positions. A set of vertical loads is
summarised by its total force ``F`` (grams-force) and its first moments ``Mx = sum f*x``,
``My = sum f*y`` (g*mm). Equilibrium gives three equations ``sum f_i = F``,
``sum f_i x_i = Mx``, ``sum f_i y_i = My``; with 3 non-collinear cells this is exact, with 4 or
more it is under-determined and we take the minimum-norm solution (the symmetric share a
uniformly stiff platform gives), with 1 cell only the total force is seen.
"""

from __future__ import annotations

import math


def default_cell_positions(cells: int, radius_mm: float = 120.0,
                           rotation_deg: float = 0.0) -> list[tuple[float, float]]:
    """Cell positions in the disc frame: 1 at the centre, else evenly spaced on a circle.

    4 cells sit at 45, 135, 225, 315 degrees; 3 cells at 90, 210, 330 degrees (plus
    ``rotation_deg``).
    """
    if not isinstance(cells, int) or isinstance(cells, bool) or cells < 1:
        raise ValueError(f"cells must be a positive integer, got {cells!r}")
    if cells == 1:
        return [(0.0, 0.0)]
    if cells == 2:
        raise ValueError("2 cells cannot carry a disc platform (it would rock); use 1, 3 or more")
    if not 0 < radius_mm <= 1000:
        raise ValueError(f"cell radius must be between 0 and 1000 mm, got {radius_mm!r}")
    start = (90.0 if cells == 3 else 180.0 / cells) + rotation_deg
    out = []
    for i in range(cells):
        a = math.radians(start + 360.0 * i / cells)
        out.append((round(radius_mm * math.cos(a), 3), round(radius_mm * math.sin(a), 3)))
    return out


def _solve3(m: list[list[float]], b: list[float]) -> list[float]:
    """Solve a 3x3 linear system by Cramer's rule (raises on a singular matrix)."""
    def det(a: list[list[float]]) -> float:
        return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
                - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    d = det(m)
    if abs(d) < 1e-9:
        raise ValueError("cell positions are collinear: the platform is not statically supported")
    out = []
    for col in range(3):
        mc = [row[:] for row in m]
        for r in range(3):
            mc[r][col] = b[r]
        out.append(det(mc) / d)
    return out


class PlatformStatics:
    """Precomputed share matrix: cell forces = W @ (F, Mx, My)."""

    def __init__(self, positions: list[tuple[float, float]]) -> None:
        if not positions:
            raise ValueError("at least one cell position is needed")
        self.positions = [(float(x), float(y)) for x, y in positions]
        n = len(self.positions)
        if n == 1:
            self._w = [(1.0, 0.0, 0.0)]
            return
        # A is 3xN with rows (1, x_i, y_i); min-norm solution f = A^T (A A^T)^-1 b.
        rows = [[1.0] * n, [p[0] for p in self.positions], [p[1] for p in self.positions]]
        gram = [[sum(rows[i][k] * rows[j][k] for k in range(n)) for j in range(3)] for i in range(3)]
        inv_cols = [_solve3(gram, [1.0 if r == c else 0.0 for r in range(3)]) for c in range(3)]
        inv = [[inv_cols[c][r] for c in range(3)] for r in range(3)]
        self._w = [
            tuple(sum(rows[i][k] * inv[i][j] for i in range(3)) for j in range(3))  # type: ignore[misc]
            for k in range(n)
        ]

    def cell_forces(self, force_g: float, mx: float, my: float) -> list[float]:
        """Grams on each cell for a load of total ``force_g`` with first moments ``mx``, ``my``."""
        return [a * force_g + b * mx + c * my for a, b, c in self._w]
