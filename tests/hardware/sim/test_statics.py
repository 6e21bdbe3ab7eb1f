"""Rigid-platform statics: cell forces reproduce the load's force and moments."""

import pytest

from hardware.sim.statics import PlatformStatics, default_cell_positions


@pytest.mark.parametrize("cells", [3, 4, 5])
def test_forces_reproduce_total_and_moments(cells: int) -> None:
    pos = default_cell_positions(cells)
    st = PlatformStatics(pos)
    f = st.cell_forces(10.0, 10.0 * 37.0, 10.0 * -52.0)
    assert sum(f) == pytest.approx(10.0)
    assert sum(fi * x for fi, (x, _) in zip(f, pos, strict=True)) == pytest.approx(370.0)
    assert sum(fi * y for fi, (_, y) in zip(f, pos, strict=True)) == pytest.approx(-520.0)


def test_centre_load_shares_equally_on_four_cells() -> None:
    st = PlatformStatics(default_cell_positions(4))
    assert st.cell_forces(8.0, 0.0, 0.0) == pytest.approx([2.0] * 4)


def test_load_over_a_cell_goes_mostly_to_that_cell() -> None:
    pos = default_cell_positions(3)
    st = PlatformStatics(pos)
    x, y = pos[0]
    f = st.cell_forces(5.0, 5.0 * x, 5.0 * y)
    assert f[0] == pytest.approx(5.0)
    assert f[1] == pytest.approx(0.0, abs=1e-9)


def test_one_cell_sees_only_mass() -> None:
    st = PlatformStatics(default_cell_positions(1))
    assert st.cell_forces(3.0, 400.0, -100.0) == [3.0]


def test_bad_layouts_are_rejected() -> None:
    with pytest.raises(ValueError, match="2 cells"):
        default_cell_positions(2)
    with pytest.raises(ValueError, match="positive integer"):
        default_cell_positions(0)
    with pytest.raises(ValueError, match="collinear"):
        PlatformStatics([(0, 0), (10, 0), (20, 0)])
