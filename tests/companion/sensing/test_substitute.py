"""The stand-in for a failed cell: the equal-stiffness prior and the learned relation."""

from __future__ import annotations

import math
import random

from companion.sensing.substitute import CellModel

SQUARE = [(120 * math.cos(math.radians(45 + 90 * i)), 120 * math.sin(math.radians(45 + 90 * i)))
          for i in range(4)]


def det3(m: list[list[float]]) -> float:
    return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))


def shares(stiffness: list[float], f: float, mx: float, my: float) -> list[float]:
    """Cell loads of a rigid platform on springs: readings k_i (z + p x_i + q y_i) that carry
    the force and both moments (the 3x3 system solved by Cramer's rule)."""
    basis = ([1.0] * 4, [x for x, _ in SQUARE], [y for _, y in SQUARE])
    rows = [[sum(k * a * b for k, a, b in zip(stiffness, u, v, strict=True)) for v in basis] for u in basis]
    rhs = [f, mx, my]
    d = det3(rows)
    z, p, q = (det3([[rhs[r] if c == col else rows[r][c] for c in range(3)] for r in range(3)]) / d
               for col in range(3))
    return [k * (z + p * x + q * y) for k, (x, y) in zip(stiffness, SQUARE, strict=True)]


def predict(model: CellModel, j: int, g: list[float]) -> float:
    fit = model.coefficients(j)
    assert fit is not None
    a0, a = fit
    return a0 + sum(ai * gi for ai, gi in zip(a, g, strict=True))


def test_unseen_model_is_the_plane_of_equally_stiff_cells() -> None:
    model = CellModel(SQUARE)
    g = shares([1.0] * 4, 10.0, 10.0 * 40, -10.0 * 70)
    assert abs(predict(model, 2, g) - g[2]) < 1e-9


def test_learned_relation_takes_over_from_the_prior_for_unequal_cells() -> None:
    rng = random.Random(3)
    stiff = [1.0, 1.3, 0.8, 1.1]
    model = CellModel(SQUARE)
    probe = shares(stiff, 8.0, 8.0 * -90, 8.0 * 30)
    prior_err = abs(predict(model, 1, probe) - probe[1])
    for _ in range(400):  # presses all over the disc
        r, a, f = rng.uniform(0, 140), rng.uniform(0, 2 * math.pi), rng.uniform(20, 120)
        model.observe(shares(stiff, f, f * r * math.cos(a), f * r * math.sin(a)))
    learned_err = abs(predict(model, 1, probe) - probe[1])
    assert prior_err > 0.3
    assert learned_err < 0.05 * prior_err


def test_samples_younger_than_the_hold_are_dropped_when_a_cell_turns_out_faulty() -> None:
    model = CellModel(SQUARE, hold_ms=3000.0)
    good = shares([1.0] * 4, 60.0, 60.0 * 50, 60.0 * -20)
    for t in range(0, 2000, 100):
        model.observe(good, t)
    stuck = list(good)
    for t in range(6000, 7000, 100):  # cell 2 stuck at zero while presses go on
        load = shares([1.0] * 4, 80.0, 80.0 * -60, 80.0 * 40)
        model.observe([load[0], load[1], stuck[2] * 0.0, load[3]], t)
    model.discard_recent(7000)
    model.observe(good, 12_000)  # later learning commits nothing that was dropped
    probe = shares([1.0] * 4, 8.0, 8.0 * -90, 8.0 * 30)
    assert abs(predict(model, 2, probe) - probe[2]) < 1e-6
