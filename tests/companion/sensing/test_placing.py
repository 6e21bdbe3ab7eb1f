"""``PawnLocator``: where a pawn set down stands, from explicit inputs (no pipeline)."""

from __future__ import annotations

import math

from companion.sensing.placing import PawnLocator

from .conftest import Table, polar


def _locator(cells: int = 4) -> PawnLocator:
    header = Table(cells=cells).header
    return PawnLocator(header.cells, header.layout.radius_mm)


def _press(x: float, y: float, forces: list[float]) -> list[tuple[float, float, float]]:
    return [(f, f * x, f * y) for f in forces]


def test_a_press_summed_over_its_readings_is_the_pawns_place_whatever_the_timing() -> None:
    """A 2.1 g pawn pressed with 20 g: the readings of the arrival (cells converting apart shift
    each reading's moment, here by up to half the change at the cells' lever) cancel in the sum."""
    loc = _locator()
    x, y = polar(110, 30)
    trail = [(0.0, 0.0, 0.0)] + _press(x, y, [11.0, 22.1, 22.1, 22.1, 12.0, 2.1, 2.1])
    skew = [0.0, 1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0]  # the arrival and release misread by timing
    trail = [(f, mx + s * 0.5 * 11.0 * 120.0, my) for (f, mx, my), s in zip(trail, skew, strict=True)]
    fit = loc.press_fit(trail, 2.1, 0.05, 10.0)
    assert fit is not None
    px, py, var, chi = fit
    assert math.hypot(px - x, py - y) < 1.0
    assert chi < 2.0 and var < 25.0


def test_fingers_resting_on_the_far_side_before_the_pawn_fail_the_press_test() -> None:
    """Fingers resting on the far side (3 g at 110 mm) for a few readings before the pawn
    arrives and during the press: the readings scatter about any one point far beyond their
    noise, so the press is not used."""
    loc = _locator()
    x, y = polar(110, 30)
    sx, sy = polar(110, 210)
    steady = [(3.0, 3.0 * sx, 3.0 * sy)] * 8
    press = [(f + 3.0, f * x + 3.0 * sx, f * y + 3.0 * sy) for f in [22.1] * 16]
    trail = [(0.0, 0.0, 0.0)] + steady + press + _press(x, y, [2.1] * 4)
    fit = loc.press_fit(trail, 2.1, 0.05, 10.0)
    assert fit is not None and fit[3] > 4.0
    assert loc.press(trail, 2.1, 0.05, 10.0) is None


def test_a_small_pawns_step_weighed_light_is_placed_by_its_sizes_mass() -> None:
    """A small pawn's step reads 1.7 g (the cells' wander over two short levels; the pawn weighs
    2.1): over the step its moment puts it 25 % too far out, beyond its ring; over the mass of
    its size (the step weighed with it) it stands where it is."""
    loc = _locator()
    x, y = polar(100, 60)
    lx, ly, _ = loc.level(1.7, 2.1 * x, 2.1 * y, 6, 0.2, 30.0, 2.1)
    assert math.hypot(lx - x, ly - y) < 3.0
    rx, ry, _ = loc.level(1.7, 2.1 * x, 2.1 * y, 6, 0.2, 30.0, None)
    assert math.hypot(rx - x, ry - y) > 20.0


def test_a_steady_press_far_from_the_level_is_taken_for_a_mixed_press() -> None:
    """A consistent press 40 mm from a precise level: more likely a press mixed with other
    fingers than both estimates of the pawn, so the level stands; 2 mm apart, they are blended."""
    loc = _locator()
    x, y = polar(100, 60)
    far = _press(x - 40.0, y, [0.0, 20.0, 20.0, 20.0, 20.0]) + _press(x, y, [2.1] * 3)
    px, py = loc.locate(far, 2.1, 2.1 * x, 2.1 * y, 6, 0.05, 5.0, 2.1)
    assert math.hypot(px - x, py - y) < 2.0
    near = _press(x - 2.0, y, [0.0, 20.0, 20.0, 20.0, 20.0]) + _press(x, y, [2.1] * 3)
    bx, _ = loc.locate(near, 2.1, 2.1 * x, 2.1 * y, 6, 0.05, 5.0, 2.1)
    assert x - 2.0 < bx < x - 0.2
