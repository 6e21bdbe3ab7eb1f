"""Stand-in for a failed load cell, learned from the healthy ones (4 or more cells).

A rigid platform on N cells has 3 degrees of freedom for vertical loads (force and two
moments), so with 4 or more cells each cell's reading is a fixed linear function of the
others (whatever the platform's stiffness). ``CellModel`` learns that function by least
squares from samples with real excitation (presses, placements: load changes of tens of
grams), and when a cell fails it replaces it with its estimate from the others.
"""

from __future__ import annotations

MIN_SAMPLES = 40  # excitation samples needed before a substitution is trusted


class CellModel:
    """Running means and covariance of the per-cell grams, from excitation samples."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.count = 0
        self._sum = [0.0] * n
        self._prod = [[0.0] * n for _ in range(n)]

    def observe(self, grams: list[float]) -> None:
        """Add one sample (grams per cell)."""
        self.count += 1
        n = self.n
        s = self._sum
        p = self._prod
        for i in range(n):
            gi = grams[i]
            s[i] += gi
            row = p[i]
            for j in range(i, n):
                row[j] += gi * grams[j]

    def coefficients(self, j: int) -> tuple[float, list[float]] | None:
        """``(a0, a)`` with ``g_j ~ a0 + sum(a[i] * g_i)`` (``a[j] = 0``), or None if unknown."""
        n = self.n
        if n < 4 or self.count < MIN_SAMPLES:
            return None
        c = self.count
        mean = [v / c for v in self._sum]

        def cov(a: int, b: int) -> float:
            lo, hi = min(a, b), max(a, b)
            return self._prod[lo][hi] / c - mean[a] * mean[b]

        others = [i for i in range(n) if i != j]
        m = [[cov(a, b) for b in others] + [cov(a, j)] for a in others]
        sol = solve_linear(m)
        if sol is None:
            return None
        a = [0.0] * n
        for k, i in enumerate(others):
            a[i] = sol[k]
        a0 = mean[j] - sum(a[i] * mean[i] for i in others)
        return a0, a


def solve_linear(aug: list[list[float]], tol: float = 1e-9) -> list[float] | None:
    """Gaussian elimination with partial pivoting on an augmented matrix ``[A | b]``.

    Returns x with A x = b, or None when a pivot is smaller than ``tol`` (singular).
    """
    n = len(aug)
    m = [row[:] for row in aug]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[piv][col]) < tol:
            return None
        m[col], m[piv] = m[piv], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                for k in range(col, n + 1):
                    m[r][k] -= f * m[col][k]
    return [m[i][n] / m[i][i] for i in range(n)]
