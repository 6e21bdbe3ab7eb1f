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



def test_a_loss_over_a_crowded_disc_has_a_bounded_cost(monkeypatch) -> None:
    """Eighteen pawns of exact-multiple masses and a loss of 16 g with a loose mass tolerance: many
    count vectors fit, and unbounded the decomposition scores over 3,000 picks; it scores at most
    MAX_PICKS (2,000) plus one likeliest pick per further count vector."""
    import math

    from companion.sensing import falls

    on_disc = [Pawn(size, MASSES[size], 100.0 * math.cos(i), 100.0 * math.sin(i))
               for i, size in enumerate(["small", "medium", "large"] * 6)]
    calls = []
    real = falls._score_and_log_like
    monkeypatch.setattr(falls, "_score_and_log_like", lambda *a, **k: calls.append(1) or real(*a, **k))
    dec = decompose(16.0, None, on_disc, MASSES, sigma_g=1.5)
    assert dec is not None and not dec.confident  # exact multiples: many readings fit
    bounded = len(calls)
    assert bounded <= 2000 + falls.MAX_VECTORS
    calls.clear()
    monkeypatch.setattr(falls, "MAX_PICKS", 10**9)
    decompose(16.0, None, on_disc, MASSES, sigma_g=1.5)
    assert len(calls) > 3000
