"""Calibration math and its physical sanity checks (pure: numbers in, numbers and issues out).

Steps (see ``companion/commands/calibrate.py`` for the guided flow):

1. empty disc -> ``offsets`` (the reading of each cell with nothing on it) and the noise;
2. one known weight put over each cell in turn -> ``counts_per_gram``: with ``D[k][i]`` the
   change of cell ``i`` when the weight is over cell ``k``, the grams on all cells must add up
   to the weight in every placement: ``sum_i D[k][i] / cpg_i = W``. That is N equations for N
   unknowns, so the weight need not sit exactly on one cell;
3. one pawn of each size -> ``pawn_mass_g``;
4. the empty disc again after nudging it -> its rest position must repeat.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from companion.calibration.window import Window
from companion.sensing.substitute import solve_linear

SIZES = ("small", "medium", "large")


class CalibrationError(ValueError):
    """A step cannot give a usable result (the message says what to do)."""


@dataclass(frozen=True)
class Issue:
    """A finding of a sanity check: ``error`` stops the step, ``warning`` is shown, ``info`` is advice."""

    severity: str
    cell: int | None
    message: str

    def __str__(self) -> str:
        where = f"cell {self.cell}: " if self.cell is not None else ""
        return f"{self.severity}: {where}{self.message}"


def _levels(window: Window, what: str) -> list[float]:
    out = []
    for i, c in enumerate(window.cells):
        if c.median is None or c.valid < max(3, c.n // 2):
            raise CalibrationError(f"{what}: cell {i} gave almost no valid readings ({c.valid} of {c.n}); "
                                   "check its wires, then run `dingo-companion doctor`")
        out.append(c.level if c.level is not None else c.median)
    return out


def stillness_issues(window: Window, empty: Window | None, what: str) -> list[Issue]:
    """Errors when a window was noisier than the empty disc by far (something moved)."""
    issues = []
    for i, c in enumerate(window.cells):
        base = empty.cells[i].noise if empty is not None else 0.0
        if c.noise > max(6 * base, 200.0):
            issues.append(Issue("error", i, f"{what}: the reading moved a lot (spread {c.noise:.0f} counts, "
                                f"empty disc {base:.0f}); keep the table still and repeat this step"))
    return issues


def offsets_from(empty: Window) -> tuple[tuple[float, ...], list[Issue]]:
    """Offsets from the empty disc, plus issues (a saturated or silent cell is an error)."""
    issues: list[Issue] = []
    for i, c in enumerate(empty.cells):
        if c.saturated > c.n // 2:
            issues.append(Issue("error", i, "reads full scale with the disc empty: a loose or swapped wire "
                                "(E+/E-/A+/A-), or the mount presses on the cell"))
        elif c.n >= 10 and c.unique <= 2:
            issues.append(Issue("error", i, "gives the same value every time: the HX711 is not converting "
                                "(power, RATE pin) or its data line is stuck"))
    if any(i.severity == "error" for i in issues):
        return tuple(c.median or 0.0 for c in empty.cells), issues
    return tuple(_levels(empty, "empty disc")), issues


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Solve ``matrix`` x = ``rhs``; raises CalibrationError when the placements are degenerate."""
    scale = max((abs(x) for row in matrix for x in row), default=0.0) or 1.0
    solution = solve_linear([row[:] + [rhs[i]] for i, row in enumerate(matrix)], tol=1e-9 * scale)
    if solution is None:
        raise CalibrationError("the placements do not tell the cells apart: put the weight right "
                               "over each cell in turn")
    return solution


@dataclass(frozen=True)
class ScaleResult:
    """Counts per gram of each cell, the grams each cell saw per placement, and the issues found."""

    counts_per_gram: tuple[float, ...]
    shares_g: tuple[tuple[float, ...], ...]
    issues: tuple[Issue, ...]


def scales_from(offsets: Sequence[float], placements: Sequence[Window], weight_g: float,
                positions: Sequence[tuple[float, float]], empty: Window | None = None,
                far_ratio: float = 0.25) -> ScaleResult:
    """Counts per gram from one weight of ``weight_g`` put over cell 0, 1, ... in turn.

    Each placement gives three equations: the grams on the cells add up to the weight, and
    their moments about x and y put it where it was (over the cell, at ``positions[k]``).
    With four cells the force equations alone cannot tell a "twist" apart, the moments can.
    Solved by least squares.
    """
    n = len(offsets)
    if weight_g <= 0:
        raise CalibrationError(f"the known weight must be positive, got {weight_g} g")
    if len(placements) != n:
        raise CalibrationError(f"need one placement per cell ({n}), got {len(placements)}")
    if len(positions) != n:
        raise CalibrationError(f"need one position per cell ({n}), got {len(positions)}")
    deltas = [[lvl - off for lvl, off in zip(_levels(w, f"weight over cell {k}"), offsets, strict=True)]
              for k, w in enumerate(placements)]
    issues: list[Issue] = []
    for i in range(n):
        noise = empty.cells[i].noise if empty is not None else 0.0
        change = max(abs(deltas[k][i]) for k in range(n))
        if change < max(10 * noise, 50.0):
            issues.append(Issue("error", i, f"does not change when the weight is on it ({change:.0f} "
                                "counts): check its four wires and that it carries the disc "
                                "(nothing bypasses it)"))
    if issues:
        raise CalibrationError("; ".join(str(x) for x in issues))
    reach = max(max(abs(x), abs(y)) for x, y in positions) or 1.0
    rows: list[list[float]] = []
    rhs: list[float] = []
    for k in range(n):
        xk, yk = positions[k]
        rows.append(list(deltas[k]))
        rhs.append(float(weight_g))
        rows.append([deltas[k][i] * positions[i][0] / reach for i in range(n)])
        rhs.append(weight_g * xk / reach)
        rows.append([deltas[k][i] * positions[i][1] / reach for i in range(n)])
        rhs.append(weight_g * yk / reach)
    normal = [[sum(r[a] * r[b] for r in rows) for b in range(n)] for a in range(n)]
    target = [sum(r[a] * v for r, v in zip(rows, rhs, strict=True)) for a in range(n)]
    inverse = _solve(normal, target)
    cpg = []
    for i, u in enumerate(inverse):
        if u == 0:
            raise CalibrationError(f"cell {i}: no scale could be found")
        cpg.append(1.0 / u)
    misfit = max(abs(sum(r[i] * inverse[i] for i in range(n)) - v) for r, v in zip(rows, rhs, strict=True))
    if misfit > 0.05 * weight_g:
        issues.append(Issue("warning", None, f"the placements do not fit a rigid disc (off by up to "
                            f"{misfit:.0f} g): was the weight right over each cell, in the order asked, "
                            "and do the cell positions in [[table.cells]] match the mount?"))
    shares = tuple(tuple(deltas[k][i] / cpg[i] for i in range(n)) for k in range(n))
    for k in range(n):
        row = shares[k]
        top = max(range(n), key=lambda i: row[i])
        if top != k:
            issues.append(Issue("error", k, f"with the weight over cell {k}, cell {top} carried most of it "
                                f"({row[top]:.0f} g of {weight_g:g} g): the cells are wired in another order "
                                "than [[table.cells]] lists them, or the weight was put over the wrong cell"))
        elif row[k] < 0.4 * weight_g:
            issues.append(Issue("warning", k, f"carried only {row[k]:.0f} g of the {weight_g:g} g put over "
                                "it: is the weight right above the cell?"))
    signs = [1 if c > 0 else -1 for c in cpg]
    majority = 1 if signs.count(1) >= signs.count(-1) else -1
    for i, s in enumerate(signs):
        if s != majority:
            issues.append(Issue("warning", i, "reads the wrong way round (its reading falls under load while "
                                "the others rise): the calibration copes (negative counts per gram), or swap "
                                "its A+ and A- wires"))
    median = statistics.median(abs(c) for c in cpg)
    for i, c in enumerate(cpg):
        if abs(abs(c) - median) > far_ratio * median:
            issues.append(Issue("warning", i, f"its scale ({abs(c):.1f} counts/g) is far from the others "
                                f"(median {median:.1f}): a different or damaged cell, a rubbing mount, or "
                                "the weight was not over it"))
    return ScaleResult(tuple(cpg), shares, tuple(issues))


def grams(window: Window, offsets: Sequence[float], cpg: Sequence[float], what: str) -> float:
    """Total grams on the cells in ``window``."""
    levels = _levels(window, what)
    return sum((lvl - off) / c for lvl, off, c in zip(levels, offsets, cpg, strict=True))


def _share(before: Window | None, during: Window, after: Window) -> float:
    """Where ``during`` lies between ``before`` and ``after`` in sample time (0..1; 0.5 if unknown)."""
    if before is None or None in (before.mid_ms, during.mid_ms, after.mid_ms):
        return 0.5
    span = after.mid_ms - before.mid_ms
    return min(1.0, max(0.0, (during.mid_ms - before.mid_ms) / span)) if span > 0 else 0.5


def pawn_masses_from(offsets: Sequence[float], cpg: Sequence[float], windows: dict[str, Window],
                     tares: dict[str, Window] | None = None,
                     after: dict[str, Window] | None = None) -> tuple[dict[str, float], list[Issue]]:
    """Pawn masses from one pawn of each size on the disc (taken off again between sizes).

    ``tares[size]``, the empty disc read just before that pawn went on, replaces the offsets
    for that pawn, so slow drift since step 1 does not count as pawn mass. With ``after[size]``,
    the empty disc read once the pawn is off again, the zero is taken between the two, in
    proportion to when the pawn was read (weighing between two tares): a steady drift cancels
    instead of being weighed, and a wandering one counts far less.
    """
    masses: dict[str, float] = {}
    issues: list[Issue] = []
    for size in SIZES:
        if size not in windows:
            raise CalibrationError(f"no reading for the {size} pawn")
        zero = _levels(tares[size], f"empty disc before the {size} pawn") if tares else offsets
        if after and size in after:
            later = _levels(after[size], f"empty disc after the {size} pawn")
            share = _share(tares[size] if tares else None, windows[size], after[size])
            zero = [a + (b - a) * share for a, b in zip(zero, later, strict=True)]
        masses[size] = round(grams(windows[size], zero, cpg, f"{size} pawn"), 3)
        if masses[size] < 0.3:
            raise CalibrationError(f"the {size} pawn weighs {masses[size]:.2f} g: nothing was detected; "
                                   "was it on the disc, and were the offsets taken with the disc empty?")
    if not masses["small"] < masses["medium"] < masses["large"]:
        raise CalibrationError(f"pawn masses are not small < medium < large: {masses}; "
                               "were the pawns placed in the order asked?")
    if abs(masses["large"] - 2 * masses["medium"]) < 0.03 * masses["large"]:
        issues.append(Issue("info", None, "a large pawn weighs about two medium ones: falls will sometimes "
                            "be confirmed on the page instead of guessed"))
    return masses, issues


def rest_check(offsets: Sequence[float], cpg: Sequence[float], rest: Window,
               small_pawn_g: float) -> tuple[tuple[float, ...], float, list[Issue]]:
    """The empty disc after a nudge: new offsets, the drift in grams, and an issue if it is large."""
    drift = grams(rest, offsets, cpg, "disc at rest")
    new = tuple(_levels(rest, "disc at rest"))
    issues = []
    limit = max(0.3, 0.25 * small_pawn_g)
    if abs(drift) > limit:
        issues.append(Issue("warning", None, f"the empty disc does not come back to the same reading after a "
                            f"nudge ({drift:+.2f} g, limit {limit:.2f} g): check that nothing rubs or binds "
                            "and that the cells are screwed tight; the new rest reading is used"))
    return new, drift, issues
