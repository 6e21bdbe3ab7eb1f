"""Decompose a loss of mass (a fall or a removal) into pawns, using mass, moment and tracking.

Pawn masses of real sets can be near multiples of each other (two mediums ~ one large), so the
mass lost alone may fit several count vectors. The pawns known to stand on the disc (from the
``placed`` events) bound the candidates, and the moment lost (when the disc is level again)
says where the lost mass stood. When more than one reading fits, the answer is marked not
confident instead of guessed silently.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

SIZES = ("small", "medium", "large")
MAX_COMBOS = 4000  # cap on the exact pawn subsets tried per count vector (moment evidence)
PER_PAWN = 0.3  # score cost per pawn: of equally good readings, fewer pawns falling is likelier
INWARD_COST = 0.6  # score cost of a pawn standing away from the rim the disc tipped towards


@dataclass(frozen=True)
class Pawn:
    """A pawn known to stand on the disc: size, measured mass and where it was placed."""

    size: str
    mass_g: float
    x_mm: float | None
    y_mm: float | None


@dataclass(frozen=True)
class Decomposition:
    """The chosen reading of a loss: counts by size, the pawns taken, and whether it is unique."""

    counts: dict[str, int]
    pawns: tuple[Pawn, ...]
    confident: bool
    mass_residual_g: float


def _subsets(pawns: list[Pawn], counts: tuple[int, ...]) -> itertools.product | list:
    """All ways to pick ``counts`` pawns of each size from ``pawns`` (a product of combinations)."""
    groups = [[p for p in pawns if p.size == s] for s in SIZES]
    return itertools.product(*(itertools.combinations(g, c) for g, c in zip(groups, counts, strict=True)))


def decompose(
    lost_g: float,
    lost_moment: tuple[float, float] | None,
    on_disc: list[Pawn],
    pawn_mass_g: dict[str, float],
    *,
    sigma_g: float,
    spread_frac: float = 0.03,
    moment_tol_gmm: float = 250.0,
    toward: tuple[float, float] | None = None,
    radius_mm: float = 150.0,
) -> Decomposition | None:
    """Best reading of a loss of ``lost_g`` grams (and moment ``lost_moment``), or None if none fits.

    ``on_disc`` bounds the counts when it is not empty (otherwise any counts up to the mass);
    ``sigma_g`` is the measurement noise of the mass difference; ``spread_frac`` the relative spread
    of pawn masses around the nominal means (used for pawns without a measured mass).
    ``toward`` (a unit vector) is the side the disc tipped to: pawns standing far out on that
    side slide off first, so among readings that fit equally well those are preferred.
    """
    if lost_g <= 0:
        return None
    nominal = [pawn_mass_g[s] for s in SIZES]
    tracked = bool(on_disc)
    if tracked:
        limits = [sum(1 for p in on_disc if p.size == s) for s in SIZES]
    else:
        limits = [int(lost_g / m + 1.5) for m in nominal]
    fits: list[tuple[float, tuple[int, ...], tuple[Pawn, ...], float | None]] = []
    for counts in itertools.product(*(range(n + 1) for n in limits)):
        if not any(counts):
            continue
        expect = sum(c * m for c, m in zip(counts, nominal, strict=True))
        var = sigma_g ** 2 + sum(c * (spread_frac * m) ** 2 for c, m in zip(counts, nominal, strict=True))
        if abs(lost_g - expect) > 4.0 * math.sqrt(var) + 0.2 * min(nominal):
            continue
        best_z = math.inf
        best: tuple[Pawn, ...] = ()
        best_m: float | None = None
        if tracked:
            meas_var = sigma_g ** 2 + sum(c * (0.01 * m) ** 2 for c, m in zip(counts, nominal, strict=True))
            for n_tried, pick in enumerate(_subsets(on_disc, counts)):
                if n_tried >= MAX_COMBOS:
                    break
                chosen = tuple(p for grp in pick for p in grp)
                mass = sum(p.mass_g for p in chosen)
                z = abs(lost_g - mass) / math.sqrt(meas_var)
                mres: float | None = None
                score = z + PER_PAWN * len(chosen)
                if lost_moment is not None and all(p.x_mm is not None for p in chosen):
                    mx = sum(p.mass_g * p.x_mm for p in chosen)  # type: ignore[operator]
                    my = sum(p.mass_g * p.y_mm for p in chosen)  # type: ignore[operator]
                    mres = math.hypot(lost_moment[0] - mx, lost_moment[1] - my)
                    score += mres / moment_tol_gmm
                if toward is not None:
                    for p in chosen:
                        if p.x_mm is not None and p.y_mm is not None:
                            s_out = (p.x_mm * toward[0] + p.y_mm * toward[1]) / radius_mm
                            score += INWARD_COST * (1.0 - max(-1.0, min(1.0, s_out)))
                if score < best_z:
                    best_z, best, best_m = score, chosen, mres
        else:
            best_z = abs(lost_g - expect) / math.sqrt(var)
        fits.append((best_z, counts, best, best_m))
    if not fits:
        return None
    fits.sort(key=lambda f: f[0])
    z0, counts0, pawns0, _ = fits[0]
    confident = True
    if len(fits) > 1:
        z1 = fits[1][0]
        # a second reading nearly as good: do not guess silently
        confident = z1 - z0 > 2.0 and z1 > 3.0
    if z0 > 3.0:
        confident = False
    residual = lost_g - sum(c * m for c, m in zip(counts0, nominal, strict=True))
    return Decomposition(dict(zip(SIZES, counts0, strict=True)), pawns0, confident, residual)
