"""Stand-in for a failed load cell, learned from the healthy ones (4 or more cells).

A rigid platform on N cells has 3 degrees of freedom for vertical loads (force and two
moments), so with 4 or more cells each cell's reading is a fixed linear function of the
others (whatever the platform's stiffness). ``CellModel`` learns that function by least
squares from samples with real excitation (presses, placements: load changes of tens of
grams), and when a cell fails it replaces it with its estimate from the others.

Until enough excitation has been seen (at 10 samples per second a press gives only three),
the fit leans on the prior of cells of equal stiffness: the platform then sinks as a plane,
so each cell's reading is the plane through the others' readings at its position. The
prior enters as twelve pseudo-samples of presses (``PRIOR_PRESS_G``) under equally stiff cells, so the
learned relation takes over as real presses are seen, in every direction they explore.
"""

from __future__ import annotations

from collections import deque

# pseudo-presses of the equal-stiffness prior, at 90 mm from the centre on four sides: twelve
# samples, about four real presses at 10 Hz
PRIOR_PRESS_G = (30.0, 90.0, 60.0)


class CellModel:
    """Running means and covariance of the per-cell grams, from excitation samples."""

    def __init__(self, positions: list[tuple[float, float]], hold_ms: float = 0.0) -> None:
        """``hold_ms``: samples are learned only once they are this old, so that a cell found
        faulty (a stuck or noisy cell takes seconds to be sure of) has not taught the model its
        bad readings; ``discard_recent`` drops them."""
        n = len(positions)
        self.n = n
        self._pos = positions
        self._hold = hold_ms
        self._held: deque[tuple[int, list[float]]] = deque()
        self.count = 0
        self._sum = [0.0] * n
        self._prod = [[0.0] * n for _ in range(n)]
        if n >= 4:
            for f in PRIOR_PRESS_G:
                for x, y in ((90.0, 0.0), (0.0, 90.0), (-90.0, 0.0), (0.0, -90.0)):
                    g = self._plane_shares(f, f * x, f * y)
                    if g is not None:
                        self._learn(g)

    def observe(self, grams: list[float], t_ms: int = 0) -> None:
        """Add one sample (grams per cell) taken at ``t_ms``."""
        if not self._hold:
            self._learn(grams)
            return
        held = self._held
        held.append((t_ms, grams))
        while held and held[0][0] <= t_ms - self._hold:
            self._learn(held.popleft()[1])

    def discard_recent(self, t_ms: int) -> None:
        """A cell was found faulty at ``t_ms``: learn the samples older than the hold, drop the rest."""
        held = self._held
        while held and held[0][0] <= t_ms - self._hold:
            self._learn(held.popleft()[1])
        held.clear()

    def _learn(self, grams: list[float]) -> None:
        """Add a sample to the sums (the upper triangle of the products)."""
        self.count += 1
        n = self.n
        s = self._sum
        p = self._prod
        if n == 4:  # written out (every press sample of a 4-cell table; the same sums, to the bit)
            g0, g1, g2, g3 = grams
            s[0] += g0
            s[1] += g1
            s[2] += g2
            s[3] += g3
            r0, r1, r2, r3 = p
            r0[0] += g0 * g0
            r0[1] += g0 * g1
            r0[2] += g0 * g2
            r0[3] += g0 * g3
            r1[1] += g1 * g1
            r1[2] += g1 * g2
            r1[3] += g1 * g3
            r2[2] += g2 * g2
            r2[3] += g2 * g3
            r3[3] += g3 * g3
            return
        for i in range(n):
            gi = grams[i]
            s[i] += gi
            row = p[i]
            for j in range(i, n):
                row[j] += gi * grams[j]

    def coefficients(self, j: int) -> tuple[float, list[float]] | None:
        """``(a0, a)`` with ``g_j ~ a0 + sum(a[i] * g_i)`` (``a[j] = 0``), or None if unknown."""
        n = self.n
        if n < 4:
            return None
        others = [i for i in range(n) if i != j]
        c = self.count
        if c < n:
            return None
        mean = [v / c for v in self._sum]

        def cov(a: int, b: int) -> float:
            lo, hi = min(a, b), max(a, b)
            return self._prod[lo][hi] / c - mean[a] * mean[b]

        m = [[cov(a, b) for b in others] + [cov(a, j)] for a in others]
        sol = solve_linear(m)
        if sol is None:
            return None
        a = [0.0] * n
        for k, i in enumerate(others):
            a[i] = sol[k]
        a0 = mean[j] - sum(a[i] * mean[i] for i in others)
        return a0, a

    def _plane_shares(self, f: float, mx: float, my: float) -> list[float] | None:
        """Cell loads carrying force ``f`` and moments ``mx``, ``my`` when the cells are equally
        stiff: readings on a plane ``z + p x + q y`` over the cell positions (None if the cells
        are collinear)."""
        pos = self._pos
        sx, sy = sum(x for x, _ in pos), sum(y for _, y in pos)
        sxx, syy = sum(x * x for x, _ in pos), sum(y * y for _, y in pos)
        sxy = sum(x * y for x, y in pos)
        sol = solve_linear([[float(self.n), sx, sy, f], [sx, sxx, sxy, mx], [sy, sxy, syy, my]])
        if sol is None:
            return None
        z, p, q = sol
        return [z + p * x + q * y for x, y in pos]

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
