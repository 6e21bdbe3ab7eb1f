"""Fall decomposition: mass, moment and tracked pawns; honest about ambiguity."""

from __future__ import annotations

from companion.sensing.falls import Pawn, decompose

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
