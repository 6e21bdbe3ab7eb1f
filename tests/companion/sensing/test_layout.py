"""Tests for the disc layout."""

from __future__ import annotations

import math

import pytest

from companion.sensing.layout import COLOURS, DiscLayout, LayoutError


def polar(r: float, deg: float) -> tuple[float, float]:
    return r * math.cos(math.radians(deg)), r * math.sin(math.radians(deg))


def test_default_zones_and_rings() -> None:
    lay = DiscLayout()
    assert lay.locate(*polar(30, 10)) == ("red", 2)
    assert lay.locate(*polar(60, 70)) == ("yellow", 3)
    assert lay.locate(*polar(130, 359)) == ("orange", 6)
    assert lay.locate(*polar(100, 200)) == ("blue", 5)
    assert lay.locate(*polar(100, 250)) == ("purple", 5)
    assert lay.locate(*polar(80, 150)) == ("green", 4)


def test_centre_and_rim_are_none() -> None:
    lay = DiscLayout()
    assert lay.locate(0, 0) == (None, None)
    assert lay.locate(*polar(24.9, 30)) == (None, None)
    assert lay.locate(*polar(146, 30)) == (None, None)


def test_margin_on_lines() -> None:
    lay = DiscLayout()
    assert lay.locate(*polar(50, 30), margin_mm=3) == (None, None)  # ring line at 49
    assert lay.locate(*polar(60, 60.5), margin_mm=3) == (None, None)  # sector line at 60 deg
    assert lay.locate(*polar(60, 59.5), margin_mm=3) == (None, None)
    assert lay.locate(*polar(60, 90), margin_mm=3) == ("yellow", 3)
    assert lay.locate(*polar(60, 60.5)) == ("yellow", 3)


@pytest.mark.parametrize("zone", COLOURS)
@pytest.mark.parametrize("number", [2, 3, 4, 5, 6])
def test_centre_of_round_trips(zone: str, number: int) -> None:
    lay = DiscLayout(start_deg=20)
    assert lay.locate(*lay.centre_of(zone, number), margin_mm=5) == (zone, number)


def test_json_round_trip_and_errors() -> None:
    lay = DiscLayout(radius_mm=160, start_deg=30)
    assert DiscLayout.from_json(lay.to_json()) == lay
    assert DiscLayout.from_json({}) == DiscLayout()
    with pytest.raises(LayoutError, match="numbers"):
        DiscLayout.from_json({"numbers": [1, 2]})
    with pytest.raises(LayoutError, match="ring_edges_mm"):
        DiscLayout.from_json({"ring_edges_mm": [10, 5]})
    with pytest.raises(LayoutError, match="zone"):
        DiscLayout().centre_of("black", 2)
