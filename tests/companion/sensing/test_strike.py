"""The rim-strike tip test (``companion.sensing.strike``), reading by reading."""

from __future__ import annotations

from companion.sensing.settings import SensingSettings
from companion.sensing.strike import RimStrike
from companion.sensing.tipviews import Signals

THR = 140.0
LOAD = (20.0, 1500.0, 0.0)  # the quiet level: 20 g of pawns, their moment along +x


def _strike() -> RimStrike:
    return RimStrike(SensingSettings(), radius_mm=150.0, lever_mm=160.0, lightest_g=2.1, short_n=3,
                     quiet_g=3.0)


def _feed(rim: RimStrike, rows: list[tuple[float, float, float]], lagged=LOAD) -> list[bool]:
    """Readings (F, Mx, My) one at a time, 12 ms apart, after four quiet ones at ``LOAD``."""
    sig = Signals()
    hist = [LOAD] * 4
    out = []
    for k, row in enumerate(rows):
        hist.append(row)
        sig.f = [r[0] for r in hist]
        sig.x = [r[1] for r in hist]
        sig.y = [r[2] for r in hist]
        sig.n = len(hist)
        sig.t = 1000 + 12 * k
        sig.sigma_f = 0.1
        out.append(rim.step(sig, lagged, THR))
    return out


def test_a_pulse_at_the_rim_on_the_loads_side_that_falls_back_is_a_strike() -> None:
    got = _feed(_strike(), [(80.0, 1500.0 + 60.0 * 145, 0.0), (20.5, 1600.0, 0.0)])
    assert got == [False, True]


def test_a_pulse_at_the_rim_on_the_far_side_is_a_knock() -> None:
    got = _feed(_strike(), [(80.0, 1500.0 - 60.0 * 145, 0.0), (20.5, 1500.0, 0.0)])
    assert got == [False, False]


def test_a_pulse_after_a_pawns_weight_was_gone_is_its_landing_on_the_base_plate() -> None:
    rim = _strike()
    got = _feed(rim, [(17.9, 1500.0 - 2.1 * 140, 0.0), (40.0, 1500.0 + 20.0 * 165, 0.0)])
    assert got == [False, False] and rim.landing is not None and rim.landing[0] == 1012


def test_without_a_lagged_reference_the_pulse_counts_only_if_it_leaves_the_disc_lying_over() -> None:
    """Measured from the readings just before it: a disc lying over after the pulse (its moment
    far beyond what its force explains) is a strike; a pawn tapped down at the rim is not."""
    over = _feed(_strike(), [(80.0, 1500.0 + 60.0 * 145, 0.0), (20.5, 1500.0 + 900.0, 0.0)], lagged=None)
    tap = _feed(_strike(), [(80.0, 1500.0 + 60.0 * 145, 0.0), (22.1, 1500.0 + 2.1 * 140, 0.0)], lagged=None)
    assert over == [False, True]
    assert tap == [False, False]
