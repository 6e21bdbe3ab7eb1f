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
from collections.abc import Iterator
from dataclasses import dataclass

SIZES = ("small", "medium", "large")
MAX_COMBOS = 300  # pawn subsets tried exactly per count vector; beyond, the likeliest pick only
MAX_VECTORS = 40  # count vectors (best mass fits first) examined in detail
# picks scored exactly per decomposition, over all its count vectors: a bound on its cost (about
# 10 ms here); past it, the likeliest pick of each further count vector only. The largest
# decomposition of the tuned corpora's 80 Hz games scores 1,895; a loss that many count vectors fit
# on a crowded disc (loose mass tolerance) over 3,500.
MAX_PICKS = 2000
PER_PAWN = 0.3  # score cost per pawn: of equally good readings, fewer pawns falling is likelier
INWARD_COST = 0.6  # score cost of a pawn standing away from the rim the disc tipped towards
PAWN_MASS_ERR_G = 0.1  # how far a pawn's measured mass (from its ``placed`` level) may be off
STEP_PER_PAWN = 1.0  # one step of the staircase is one sharp drop: one pawn is far likelier than two
STEP_ERR_G = 0.1  # a plateau of a tipped disc is biased by pawns sliding on it, the pad settling
POS_ERR_MM = 15.0  # typical error of a placement's position (the scale of the moment likelihood)
MOMENT_LEVEL_GMM = 40.0  # noise of a moment lost between two still levels (the likelihood's floor)
MOMENT_T_DOF = 3.0  # degrees of freedom of the moment likelihood (heavy tails: misplaced pawns)
CONFIDENT_P = 0.97  # a reading is confident when its counts have at least this posterior probability


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
    posterior: float = 1.0  # probability of these counts among every reading that fits
    picks: int = 0  # pawn subsets scored to reach it (its cost)


def _mass_fits(lost_g: float, nominal: list[float], limits: list[int], sigma_g: float, spread_frac: float,
               tracked: list[list[float]] | None = None) -> list[tuple[float, tuple[int, ...]]]:
    """Count vectors whose mass fits the loss, best first: (z, counts). The mass of a vector is
    its nominal mass, or with ``tracked`` (the measured masses of the pawns on the disc, per size,
    sorted) anything from its lightest to its heaviest pick of those pawns: a pawn is what it
    weighed when placed, which may be far from its size's nominal mass (a chipped pawn)."""
    out = []
    slack = 0.2 * min(nominal)
    ms, mm, ml = nominal
    # the lightest and heaviest k tracked pawns of each size, summed once (as ``sum`` adds them)
    lows = [[sum(g[:k]) for k in range(len(g) + 1)] for g in tracked] if tracked is not None else None
    highs = ([[sum(g[len(g) - k:]) for k in range(len(g) + 1)] for g in tracked]
             if tracked is not None else None)
    for a in range(limits[0] + 1):
        if a * ms > lost_g * 1.3 + slack:
            break
        for b in range(limits[1] + 1):
            if a * ms + b * mm > lost_g * 1.3 + slack:
                break
            for c in range(limits[2] + 1):
                expect = a * ms + b * mm + c * ml
                if expect > lost_g * 1.3 + slack:
                    break
                if not (a or b or c):
                    continue
                var = sigma_g ** 2 + (spread_frac ** 2) * (a * ms * ms + b * mm * mm + c * ml * ml)
                dev = abs(lost_g - expect)
                if lows is not None and highs is not None:
                    lo = lows[0][a] + lows[1][b] + lows[2][c]
                    hi = highs[0][a] + highs[1][b] + highs[2][c]
                    dev = min(dev, max(0.0, lo - lost_g, lost_g - hi))
                if dev <= 4.0 * math.sqrt(var) + slack:
                    out.append((dev / math.sqrt(var), (a, b, c)))
    out.sort()
    return out


def _picks(pawns: list[Pawn], counts: tuple[int, ...],
           toward: tuple[float, float] | None, exact_max: int = MAX_COMBOS) -> Iterator[tuple[Pawn, ...]]:
    """Which pawns of each size: every combination when at most ``exact_max``, else the likeliest
    one (the pawns standing furthest out on the tipped side, or the most recently placed)."""
    groups = [[p for p in pawns if p.size == s] for s in SIZES]
    total = 1
    for g, c in zip(groups, counts, strict=True):
        total *= math.comb(len(g), c)
    if total <= exact_max:
        for pick in itertools.product(*(itertools.combinations(g, c)
                                        for g, c in zip(groups, counts, strict=True))):
            yield tuple(p for grp in pick for p in grp)
        return
    chosen: list[Pawn] = []
    for g, c in zip(groups, counts, strict=True):
        if toward is not None:
            g = sorted(g, key=lambda p: -((p.x_mm or 0.0) * toward[0] + (p.y_mm or 0.0) * toward[1]))
        else:
            g = g[::-1]
        chosen.extend(g[:c])
    yield tuple(chosen)


def _log_like(chosen: tuple[Pawn, ...], counts: tuple[int, ...], nominal: list[float], lost_g: float,
              var: float, lost_moment: tuple[float, float] | None, moment_sigma: float,
              toward: tuple[float, float] | None, radius_mm: float, per_pawn: float) -> float:
    """Log of likelihood times prior of one reading: the mass lost (Gaussian, ``var``), the moment
    lost (Student t, scale ``moment_sigma`` and the pawns' position errors), ``per_pawn`` per pawn
    (fewer pawns at once are likelier) and, after a tip, the order in which pawns reach the rim
    (outermost on the tipped side first)."""
    if chosen:
        mass = sum(p.mass_g for p in chosen)
    else:
        mass = sum(c * m for c, m in zip(counts, nominal, strict=True))
    ll = -0.5 * (lost_g - mass) ** 2 / var - per_pawn * sum(counts)
    if chosen and lost_moment is not None and all(p.x_mm is not None for p in chosen):
        mx = sum(p.mass_g * p.x_mm for p in chosen)  # type: ignore[operator]
        my = sum(p.mass_g * p.y_mm for p in chosen)  # type: ignore[operator]
        # where each pawn stands is known to a placement's error, so the moment the pawns
        # predict errs by their masses times that (plus the levels' own noise); placements are
        # sometimes far off (a rim pawn read near the centre), so the tails are Student's t
        scale2 = moment_sigma ** 2 + POS_ERR_MM ** 2 * sum(p.mass_g ** 2 for p in chosen)
        r2 = (lost_moment[0] - mx) ** 2 + (lost_moment[1] - my) ** 2
        ll -= 0.5 * (MOMENT_T_DOF + 2.0) * math.log1p(r2 / (MOMENT_T_DOF * scale2))
    if toward is not None:
        for p in chosen:
            if p.x_mm is not None and p.y_mm is not None:
                s_out = (p.x_mm * toward[0] + p.y_mm * toward[1]) / radius_mm
                ll -= INWARD_COST * (1.0 - max(-1.0, min(1.0, s_out)))
    return ll


# a pawn's mass, m*x, m*y, m^2 and inward cost (None: the pawn has no position)
_Facts = tuple[float, float, float, float, float | None]


def _pawn_facts(pawns: list[Pawn], toward: tuple[float, float] | None,
                radius_mm: float) -> dict[int, _Facts]:
    """What every pick of a decomposition needs of each pawn, computed once per decomposition
    (a loss over many pawns scores thousands of picks)."""
    out: dict[int, _Facts] = {}
    for p in pawns:
        if p.x_mm is None or p.y_mm is None:
            out[id(p)] = (p.mass_g, 0.0, 0.0, p.mass_g ** 2, None)
            continue
        cost = 0.0
        if toward is not None:
            s_out = (p.x_mm * toward[0] + p.y_mm * toward[1]) / radius_mm
            cost = INWARD_COST * (1.0 - max(-1.0, min(1.0, s_out)))
        out[id(p)] = (p.mass_g, p.mass_g * p.x_mm, p.mass_g * p.y_mm, p.mass_g ** 2, cost)
    return out


def _score_and_log_like(chosen: tuple[Pawn, ...], facts: dict[int, _Facts], lost_g: float, meas_var: float,
                        like_var: float, lost_moment: tuple[float, float] | None, moment_tol_gmm: float,
                        per_pawn: float) -> tuple[float, float | None, float]:
    """Score of one pick (lower is better: mass misfit, pawn count, the moment residual over
    ``moment_tol_gmm``, pawns standing inwards), its moment residual, and its log weight as
    ``_log_like`` gives it (with ``MOMENT_LEVEL_GMM``), in one pass over precomputed facts."""
    rows = [facts[id(p)] for p in chosen]
    mass = sum(r[0] for r in rows)
    n = len(chosen)
    score = abs(lost_g - mass) / math.sqrt(meas_var) + per_pawn * n
    ll = -0.5 * (lost_g - mass) ** 2 / like_var - per_pawn * n
    mres: float | None = None
    if lost_moment is not None and all(r[4] is not None for r in rows):
        mx = sum(r[1] for r in rows)
        my = sum(r[2] for r in rows)
        mres = math.hypot(lost_moment[0] - mx, lost_moment[1] - my)
        score += mres / moment_tol_gmm
        if rows:
            scale2 = MOMENT_LEVEL_GMM ** 2 + POS_ERR_MM ** 2 * sum(r[3] for r in rows)
            r2 = (lost_moment[0] - mx) ** 2 + (lost_moment[1] - my) ** 2
            ll -= 0.5 * (MOMENT_T_DOF + 2.0) * math.log1p(r2 / (MOMENT_T_DOF * scale2))
    for r in rows:
        if r[4] is not None:
            score += r[4]
            ll -= r[4]
    return score, mres, ll


def _posterior(weights: dict[tuple[int, ...], list[float]], best: tuple[int, ...]) -> float:
    """Probability of the counts ``best`` from the log weights of every reading, by counts."""
    top = max(w for ws in weights.values() for w in ws)
    total = sum(math.exp(w - top) for ws in weights.values() for w in ws)
    return sum(math.exp(w - top) for w in weights.get(best, [])) / total if total > 0 else 0.0


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
    per_pawn: float = PER_PAWN,
    max_picks: int | None = None,
) -> Decomposition | None:
    """Best reading of a loss of ``lost_g`` grams (and moment ``lost_moment``), or None if none fits.

    ``on_disc`` bounds the counts when it is not empty (otherwise any counts up to the mass);
    ``sigma_g`` is the measurement noise of the mass difference; ``spread_frac`` the relative spread
    of pawn masses around the nominal means (used for pawns without a measured mass).
    ``toward`` (a unit vector) is the side the disc tipped to: pawns standing far out on that
    side slide off first, so among readings that fit equally well those are preferred.
    ``max_picks``: pawn subsets scored exactly, over all count vectors (past it, the likeliest
    pick of each further vector only): the bound on its cost.
    """
    if lost_g <= 0:
        return None
    if max_picks is None:
        max_picks = MAX_PICKS
    nominal = [pawn_mass_g[s] for s in SIZES]
    tracked = bool(on_disc)
    if tracked:
        limits = [sum(1 for p in on_disc if p.size == s) for s in SIZES]
    else:
        limits = [int(lost_g / m + 1.5) for m in nominal]
    measured = [sorted(p.mass_g for p in on_disc if p.size == sz) for sz in SIZES] if tracked else None
    vectors = _mass_fits(lost_g, nominal, limits, sigma_g, spread_frac, measured)
    fits: list[tuple[float, tuple[int, ...], tuple[Pawn, ...], float | None]] = []
    weights: dict[tuple[int, ...], list[float]] = {}
    facts = _pawn_facts(on_disc, toward, radius_mm)
    scored = 0
    for z_mass, counts in vectors[:MAX_VECTORS]:
        if not tracked:
            fits.append((z_mass, counts, (), None))
            var = sigma_g ** 2 + spread_frac ** 2 * sum(
                c * m * m for c, m in zip(counts, nominal, strict=True))
            weights[counts] = [_log_like((), counts, nominal, lost_g, var, None, moment_tol_gmm, None,
                                         radius_mm, per_pawn)]
            continue
        meas_var = sigma_g ** 2 + sum(c * (0.01 * m) ** 2 for c, m in zip(counts, nominal, strict=True))
        like_var = meas_var + sum(counts) * PAWN_MASS_ERR_G ** 2
        best = (math.inf, (), None)
        ws = weights.setdefault(counts, [])
        for chosen in _picks(on_disc, counts, toward, min(MAX_COMBOS, max_picks - scored)):
            scored += 1
            score, mres, ll = _score_and_log_like(chosen, facts, lost_g, meas_var, like_var, lost_moment,
                                                  moment_tol_gmm, per_pawn)
            ws.append(ll)
            if score < best[0]:
                best = (score, chosen, mres)
        fits.append((best[0], counts, best[1], best[2]))
    if not fits:
        return None
    fits.sort(key=lambda f: f[0])
    z0, counts0, pawns0, _ = fits[0]
    # confident from the posterior: the chosen counts must hold at least CONFIDENT_P of the
    # probability of every reading that fits (mass, moment, pawn count, order), and fit at all
    posterior = _posterior(weights, counts0)
    confident = posterior >= CONFIDENT_P and z0 <= 3.0
    residual = lost_g - sum(c * m for c, m in zip(counts0, nominal, strict=True))
    return Decomposition(dict(zip(SIZES, counts0, strict=True)), pawns0, confident, residual, posterior,
                         scored)


def pawn_moment(pawns: list[Pawn]) -> tuple[float, float]:
    """Moment (g*mm) of the tracked pawns about the disc centre (pawns without a position skipped)."""
    mx = sum(p.mass_g * p.x_mm for p in pawns if p.x_mm is not None and p.y_mm is not None)
    my = sum(p.mass_g * p.y_mm for p in pawns if p.x_mm is not None and p.y_mm is not None)
    return mx, my


def weighed_falls(on_disc: list[Pawn], tip_moment: tuple[float, float], radius_mm: float,
                  *, frac: float = 0.97, max_pawns: int = 3) -> list[Pawn]:
    """Pawns that must have left a disc that tipped and came back level by itself, although
    their mass never left the platform (they lie on the base plate).

    The disc tipped with the tracked pawns' moment ``tip_moment`` (at least its limit); level and
    untouched again, the pawns still on it must hold less than that limit (which only shrinks as
    pawns leave). While the remaining tracked moment is above ``frac`` of the tipping moment,
    the outermost pawn on the tipped side is taken as gone (at most ``max_pawns``; only pawns in
    the outer half of the tipped side). Empty when the accounting is consistent.
    """
    norm = math.hypot(*tip_moment)
    if norm <= 0.0:
        return []
    ux, uy = tip_moment[0] / norm, tip_moment[1] / norm
    left = [p for p in on_disc if p.x_mm is not None and p.y_mm is not None]
    gone: list[Pawn] = []
    while len(gone) < max_pawns:
        mx, my = pawn_moment(left)
        if mx * ux + my * uy <= frac * norm or not left:
            break
        p = max(left, key=lambda q: q.x_mm * ux + q.y_mm * uy)  # type: ignore[operator]
        if p.x_mm * ux + p.y_mm * uy < 0.5 * radius_mm:  # type: ignore[operator]
            break  # nothing stands out on the low side: the accounting cannot say which
        left.remove(p)
        gone.append(p)
    return gone


def decompose_steps(steps: list[float], on_disc: list[Pawn], pawn_mass_g: dict[str, float], *,
                    sigma_g: float, toward: tuple[float, float] | None = None,
                    radius_mm: float = 150.0, max_picks: int | None = None) -> Decomposition | None:
    """Read a loss seen as several steps (pawns leaving a tipped disc one after another): each step
    is decomposed on its own, the pawns one step took are not available to the next, and the
    readings are added up. Not confident when any step is not; None when a step fits nothing.
    ``max_picks`` bounds the pawn subsets scored over all the steps together."""
    left = list(on_disc)
    sigma_g = math.hypot(sigma_g, STEP_ERR_G)
    counts = dict.fromkeys(SIZES, 0)
    taken: list[Pawn] = []
    confident = True
    residual = 0.0
    posterior = 1.0
    picks = 0
    if max_picks is None:
        max_picks = MAX_PICKS
    for step in steps:
        dec = decompose(step, None, left, pawn_mass_g, sigma_g=sigma_g, toward=toward, radius_mm=radius_mm,
                        per_pawn=STEP_PER_PAWN, max_picks=max_picks - picks)
        if dec is None:
            return None
        picks += dec.picks
        for p in dec.pawns:
            left.remove(p)
        taken.extend(dec.pawns)
        for k, v in dec.counts.items():
            counts[k] += v
        posterior *= dec.posterior  # the steps are read one after another: all must be right
        confident = confident and dec.confident and posterior >= CONFIDENT_P
        residual += dec.mass_residual_g
    return Decomposition(counts, tuple(taken), confident, residual, posterior, picks)


def _mass_misfit(lost_g: float, dec: Decomposition) -> float:
    """How far the pawns of a reading weigh from the loss (nominal masses when none are tracked)."""
    if dec.pawns:
        return abs(lost_g - sum(p.mass_g for p in dec.pawns))
    return abs(dec.mass_residual_g)


def prefer_steps(lost_g: float, whole: Decomposition | None, stepwise: Decomposition | None,
                 sigma_g: float) -> Decomposition | None:
    """Choose between the reading of a loss as a whole and the reading of its steps.

    The steps carry more information (each is one or two pawns), but each is measured on short
    plateaus: their reading is kept unless its pawns weigh clearly worse against the precisely
    measured total than the whole reading's. When the two disagree on the counts, the loss
    had more than one reading: not confident."""
    if stepwise is None or whole is None:
        return whole if stepwise is None else stepwise
    # each pawn's measured mass is off by up to ~0.1 g: the more pawns a reading takes, the
    # closer some subset of many tracked pawns comes to any total, so that closeness says less
    n = max(len(stepwise.pawns), len(whole.pawns))
    if _mass_misfit(lost_g, stepwise) > _mass_misfit(lost_g, whole) + 2.0 * math.sqrt(
            sigma_g ** 2 + n * PAWN_MASS_ERR_G ** 2):
        return whole
    if stepwise.counts != whole.counts and stepwise.confident:
        return Decomposition(stepwise.counts, stepwise.pawns, False, stepwise.mass_residual_g,
                             stepwise.posterior)
    return stepwise
