"""Fall decomposition: mass, moment and tracked pawns; honest about ambiguity."""

from __future__ import annotations

from companion.sensing.falls import Pawn, decompose, pawn_moment, weighed_falls

MASSES = {"small": 2.0, "medium": 4.0, "large": 8.0}  # near multiples on purpose


def test_untracked_exact_multiple_is_not_confident() -> None:
    dec = decompose(8.0, None, [], MASSES, sigma_g=0.1)
    assert dec is not None
    assert dec.confident is False  # one large, two mediums, four smalls ... all fit


def test_tracking_bounds_the_candidates() -> None:
    on_disc = [Pawn("large", 8.05, 100.0, 0.0), Pawn("small", 2.0, -40.0, 10.0)]
    dec = decompose(8.05, None, on_disc, MASSES, sigma_g=0.1)
    assert dec is not None
    assert dec.counts == {"small": 0, "medium": 0, "large": 1}
    assert dec.confident is True


def test_moment_resolves_two_mediums_versus_one_large() -> None:
    on_disc = [Pawn("medium", 4.0, 130.0, 0.0), Pawn("medium", 4.0, 120.0, 20.0),
               Pawn("large", 8.0, -130.0, 0.0)]
    lost_moment = (4.0 * 130.0 + 4.0 * 120.0, 4.0 * 20.0)
    dec = decompose(8.0, lost_moment, on_disc, MASSES, sigma_g=0.1)
    assert dec is not None
    assert dec.counts == {"small": 0, "medium": 2, "large": 0}
    assert dec.confident is True
    # without the moment the two readings are equally good: not confident
    dec2 = decompose(8.0, None, on_disc, MASSES, sigma_g=0.1)
    assert dec2 is not None and dec2.confident is False


def test_nothing_fits() -> None:
    assert decompose(1.0, None, [Pawn("large", 8.0, 0.0, 0.0)], MASSES, sigma_g=0.1) is None
    assert decompose(-3.0, None, [], MASSES, sigma_g=0.1) is None


def test_weighed_falls_infers_pawns_left_on_the_base_plate() -> None:
    rim = Pawn("medium", 4.6, 140.0, 10.0)
    inner = Pawn("small", 2.1, 30.0, -20.0)
    other = Pawn("large", 7.9, -40.0, 5.0)
    pawns = [rim, inner, other]
    tipped_with = pawn_moment(pawns)
    # level again, no mass lost: the rim pawn on the tipped side must have gone (onto the base)
    assert weighed_falls(pawns, tipped_with, 150.0) == [rim]
    # the accounting is consistent once it is gone: nothing more to infer
    assert weighed_falls([inner, other], tipped_with, 150.0) == []
    # no pawn stands out on the low side: the accounting cannot say which, so nothing is guessed
    assert weighed_falls([inner], pawn_moment([inner]), 150.0) == []


def test_fast_pick_scoring_is_bit_identical_to_the_reference_formulas() -> None:
    """``_best_pick`` (the decomposition's inner loop) computes ``_score`` and ``_log_like`` for
    every pick from per-pick sums made once (``_pick_table``): the same best pick, score, moment
    residual and log weights, to the bit, with and without moment, tip side, unplaced pawns and the
    fallback pick (more combinations than ``MAX_COMBOS``); and so does ``_first_pick`` (no table)."""
    import math
    import random

    from companion.sensing import falls

    rng = random.Random(14)
    nominal = [MASSES[s] for s in falls.SIZES]
    for case in range(300):
        n = rng.randint(1, 14 if case % 3 else 30)
        pawns = []
        for _ in range(n):
            size = rng.choice(falls.SIZES)
            placed = rng.random() > 0.1
            x, y = (rng.uniform(-140, 140), rng.uniform(-140, 140)) if placed else (None, None)
            pawns.append(Pawn(size, MASSES[size] * rng.uniform(0.95, 1.05), x, y))
        counts = tuple(rng.randint(0, sum(1 for p in pawns if p.size == s)) for s in falls.SIZES)
        if not any(counts):
            continue
        lost = sum(c * m for c, m in zip(counts, nominal, strict=True)) + rng.gauss(0, 0.3)
        moment = (rng.uniform(-900, 900), rng.uniform(-900, 900)) if rng.random() < 0.6 else None
        toward = None
        if rng.random() < 0.6:
            a = rng.uniform(0, 2 * math.pi)
            toward = (math.cos(a), math.sin(a))
        meas_var, like_var, tol, per_pawn = rng.uniform(0.01, 0.2), rng.uniform(0.02, 0.3), 250.0, 0.3
        ref_ws: list[float] = []
        best = (math.inf, (), None)
        for chosen in falls._picks(falls._records(pawns, toward, 150.0), counts, toward):
            pick = tuple(r[0] for r in chosen)
            score, mres = falls._score(pick, lost, meas_var, moment, tol, toward, 150.0, per_pawn)
            ref_ws.append(falls._log_like(pick, counts, nominal, lost, like_var, moment, tol, toward, 150.0,
                                          per_pawn))
            if score < best[0]:
                best = (score, pick, mres)
        ws: list[float] = []
        table = falls._pick_table({}, falls._records(pawns, toward, 150.0), counts, toward)
        score, idx, mres = falls._best_pick(table, counts, lost, meas_var, like_var, moment, tol, per_pawn,
                                            ws)
        assert (score, tuple(pawns[i] for i in idx), mres) == best and ws == ref_ws
        first_ws: list[float] = []
        first = falls._first_pick(falls._records(pawns, toward, 150.0), counts, lost, meas_var, like_var,
                                  moment, tol, toward, per_pawn, first_ws)
        assert first == (score, idx, mres) and first_ws == ref_ws
