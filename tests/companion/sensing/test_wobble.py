"""The wobble hold (``companion/sensing/wobble.py``): a placement's wobble read by the excess
test is held, refuted when the disc rocks back, and still a tip when the disc goes on over."""

from __future__ import annotations

import pytest

from companion.sensing.wobble import HOLD_MS, WobbleHold
from tests.companion.sensing.conftest import replay_family

THR = 140.0  # the tip threshold (g*mm)


def _held(excess: float = 350.0) -> WobbleHold:
    w = WobbleHold(loss_g=1.3, max_press_g=13.0, confirm_n=2)
    w.hold(1000, excess, -650.0, -370.0)
    return w


def test_only_a_light_press_on_pawns_that_cannot_tip_the_disc_is_held() -> None:
    w = WobbleHold(loss_g=1.3, max_press_g=13.0, confirm_n=2, min_press_g=1.6)
    assert not w.may_hold(f_max=0.5, level_f=0.0, pawns_gmm=300.0, hold_gmm=600.0)  # no press at all
    assert w.may_hold(f_max=8.0, level_f=0.0, pawns_gmm=300.0, hold_gmm=600.0)
    assert not w.may_hold(f_max=8.0, level_f=0.0, pawns_gmm=700.0, hold_gmm=600.0)  # pawns outweigh it
    assert not w.may_hold(f_max=180.0, level_f=0.0, pawns_gmm=300.0, hold_gmm=600.0)  # a push, a strike


def test_a_wobble_that_rocks_back_is_refuted() -> None:
    w = _held()
    for k, exc in enumerate((400.0, 410.0, 380.0, 150.0)):
        assert not w.step(1012 + 12 * k, 2.0, 0.0, exc, -800.0, -600.0, -360.0, True, THR)
        assert w.active
    assert not w.step(1060, 2.0, 0.0, -250.0, -450.0, -250.0, -150.0, True, THR)
    assert not w.active


def test_the_disc_snapping_back_onto_its_support_is_no_tip() -> None:
    """One reading swings the moment to the disc's other side (its excess far beyond a
    wobble's): not a tip; the moment back where the pawns put it refutes the hold."""
    w = _held()
    assert not w.step(1100, 2.6, 0.0, 609.0, 1879.0, 2496.0, 1450.0, True, THR)  # the other side
    assert not w.step(1112, 2.3, 0.0, 1500.0, 2009.0, -900.0, -500.0, True, THR)  # one reading
    assert not w.step(1125, 2.0, 0.0, -259.0, -462.0, -220.0, -139.0, True, THR)
    assert not w.active


def test_pawns_leaving_make_a_held_wobble_a_tip_at_once() -> None:
    w = _held()
    assert not w.step(1012, 2.0, 0.0, 420.0, 0.0, -650.0, -370.0, True, THR)
    assert not w.step(1024, -1.5, 0.0, 380.0, 0.0, -640.0, -360.0, False, THR)
    assert w.step(1036, -1.6, 0.0, 200.0, 0.0, -500.0, -300.0, False, THR)


def test_an_excess_growing_on_to_the_stop_is_a_tip() -> None:
    w = _held()
    assert not w.step(1012, 2.0, 0.0, 800.0, 0.0, -1200.0, -700.0, True, THR)
    assert w.step(1024, 2.0, 0.0, 1500.0, 0.0, -2000.0, -1100.0, True, THR)


@pytest.mark.parametrize(("excess", "tip"), [(330.0, True), (100.0, False)])
def test_an_excess_still_there_when_the_hold_ends_is_a_disc_lying_over(excess: float, tip: bool) -> None:
    w = _held(330.0)
    t = 1012
    while t < 1000 + HOLD_MS:
        assert not w.step(t, 2.0, 0.0, 330.0, 0.0, -650.0, -370.0, True, THR)
        t += 12
    assert w.step(t, 2.0, 0.0, excess, 0.0, -650.0, -370.0, True, THR) is tip
    assert not w.active


def _family_trace(seed: int, family: str, cells: int, noise_g: float, until_ms: int, rate_hz: float = 80):
    return replay_family(seed, family, cells=cells, rate_hz=rate_hz, noise_g=noise_g, kind="faults",
                         minutes=1.5, until_ms=until_ms)


def test_a_placements_wobble_read_as_a_tip_is_no_tip() -> None:
    """A tuned family's trace (pedestal-sync, 80 Hz, 4 cells, the bench's seed 100961): the first
    pawn, a small one, set down at 4.75 s with a 6 g finger that tilts the disc onto its
    pedestal's edge (truth: ``wobble``, 0.7 degrees). The disc's own mass moved sideways (the
    moment sat at its hold, three times the pawn's) and the excess test read it as a tip 40 ms
    after the release; the disc rocked back 150 ms later. Now it is a placement, not a tip."""
    truth, events = _family_trace(100961, "pedestal-sync", 4, 0.11666666666666667, 9_000)
    assert [e["t_ms"] for e in truth if e["event"] == "wobble" and e["t_ms"] < 9_000] == [4625]
    assert not any(e["event"] == "tipped" for e in truth if e["t_ms"] < 9_000)
    assert not any(e["event"] == "tipped" for e in events), events
    assert any(e["event"] == "placed" and 4751 - 250 <= e["t_ms"] <= 4751 + 2500 for e in events), events


def test_a_tip_pinned_at_its_pedestals_edge_before_it_rolls_over_is_still_a_tip() -> None:
    """The same family at 3 cells (seed 100886): a light press tips the disc (truth onset 13.04 s),
    which then lies pinned at its pedestal's edge for 400 ms, exactly like a wobble, before it
    rolls on to its stop (13.71 s) and two pawns fall. Its pawns' moment (about 540 g*mm) is
    above the least any disc holds, so it is no wobble to hold: reported as soon as before
    (279 ms after the onset; held, it would come at the hold's end, ``HOLD_MS``, 700 ms)."""
    truth, events = _family_trace(100886, "pedestal-sync", 3, 0.05, 16_000)
    onset = next(e["t_ms"] for e in truth if e["event"] == "tipped")
    assert onset == 13040
    tips = [e["t_ms"] for e in events if e["event"] == "tipped"]
    assert any(onset - 200 <= t <= onset + 400 for t in tips), events


def test_a_placements_wobble_read_as_a_tip_at_10_hz_is_no_tip() -> None:
    """The same at 10 Hz, 3 cells (pedestal-sync, seed 100326): the first pawn, a small one at
    the rim, set down at 6.88 s with a wobble of 0.8 degrees; the excess test read it as a tip a
    reading or two after the release. Now one placement and no tip."""
    truth, events = _family_trace(100326, "pedestal-sync", 3, 0.05, 10_000, rate_hz=10)
    assert [e["t_ms"] for e in truth if e["event"] == "wobble" and e["t_ms"] < 10_000] == [6773]
    assert not any(e["event"] == "tipped" for e in truth if e["t_ms"] < 10_000)
    assert [e["event"] for e in events] == ["placed"], events
