"""The disc mechanics: when it tips, what the base feels while it tips, and righting."""

import math
import random

import pytest

from hardware.sim.disc import Disc, DiscParams


def make(pedestal: float = 2.0) -> tuple[Disc, list[dict], list]:
    events: list[dict] = []
    transients: list = []
    disc = Disc(DiscParams(mass_g=300.0, pedestal_mm=pedestal, fillet_mm=5.0), random.Random(1),
                events.append, transients.append)
    return disc, events, transients


def test_level_disc_weighs_its_pawns_at_their_spots() -> None:
    disc, _, _ = make()
    disc.add_pawn("small", 2.0, 30.0, -10.0)
    disc.add_pawn("medium", 4.0, -20.0, 5.0)
    assert disc.load(0.0) == pytest.approx((6.0, 60.0 - 80.0, -20.0 + 20.0))


def test_tips_only_past_the_limit_and_not_while_held() -> None:
    disc, events, _ = make(pedestal=4.0)  # limit (300 + 8) * 4 = 1232 g*mm
    disc.add_pawn("large", 8.0, 150.0, 0.0)  # 1200 g*mm: stays level
    disc.check_tip(0.0)
    disc.advance(1.0)
    assert disc.state == "level" and events == []
    disc.held = 1
    disc.add_pawn("large", 8.0, 0.0, 150.0)  # now |M| = 1697 > (316 * 4)
    disc.check_tip(1.0)
    disc.advance(2.0)
    assert disc.state == "level"
    disc.held = 0
    disc.check_tip(2.0)
    disc.advance(2.08)
    assert events[0]["event"] == "tipped" and 2000 <= events[0]["t_ms"] <= 2060


def test_while_tipping_the_weight_goes_through_the_rolling_contact() -> None:
    disc, events, transients = make()
    disc.add_pawn("large", 8.0, 140.0, 0.0)
    disc.check_tip(0.0)
    disc.advance(0.065)
    assert disc.state == "tipping"
    t = 0.065
    theta = disc.theta(t)
    assert 0 < theta < math.radians(disc.p.stop_deg)
    f, mx, my = disc.load(t)
    total = f + 300.0
    assert total == pytest.approx(308.0, abs=3.0)  # a little inertia, no more
    assert mx == pytest.approx(total * (2.0 + 5.0 * theta), rel=1e-6)  # at the contact point
    assert my == pytest.approx(0.0, abs=1e-6)
    disc.advance(0.3)  # the rim has struck its stop: one pulse at the rim
    assert disc.state == "tipped" and transients
    pulse = transients[0]
    assert pulse.x_mm == pytest.approx(150.0) and pulse.peak_g > 10
    f_stop, _, _ = disc.load(0.3)
    assert f_stop == pytest.approx(sum(p.mass_g for p in disc.on_disc()))


def test_falls_relieve_the_disc_and_it_rights_itself() -> None:
    disc, events, _ = make()
    disc.add_pawn("large", 8.0, 140.0, 0.0)
    disc.add_pawn("small", 2.0, -60.0, 10.0)
    disc.check_tip(0.0)
    disc.advance(6.0)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "tipped" and kinds[-1] == "settled" and "fell" in kinds
    fell = [e for e in events if e["event"] == "fell"]
    assert fell[0]["pawns"] == {"large": 1} and fell[0]["lands_t_ms"] > fell[0]["t_ms"]
    assert disc.state == "level"
    m, _, _ = disc.pawn_moment()
    assert disc.load(6.0)[0] == pytest.approx(m)
