"""Per-cell conditioning (``companion.sensing.cells``): bit-flip glitches are told from load steps."""

from __future__ import annotations

from companion.sensing.bitflips import one_bit_off
from companion.sensing.cells import CellFilter
from companion.sensing.settings import SensingSettings

from .test_fastpaths import header


def test_one_bit_off_finds_a_single_flipped_bit_of_a_signed_24_bit_code() -> None:
    last = 123_456
    assert one_bit_off(last ^ (1 << 14), last, tol=400)
    assert one_bit_off((last ^ (1 << 14)) + 150, last, tol=400)  # plus the noise of the reading
    neg = -50_000
    flipped = ((neg & 0xFFFFFF) ^ (1 << 18))
    flipped = flipped - (1 << 24) if flipped & 0x800000 else flipped
    assert one_bit_off(flipped, neg, tol=400)


def test_one_bit_off_rejects_steps_that_no_single_flip_explains() -> None:
    last = 123_456
    assert not one_bit_off(last + 3 * (1 << 14), last, tol=400)  # two bits
    assert not one_bit_off(last + 1500, last, tol=400)  # 1024 and 2048 both more than tol away
    assert not one_bit_off(last - 10_000, last, tol=400)


def _filter_after(rows: list[tuple[int, ...]]) -> CellFilter:
    cells = CellFilter(header(4), SensingSettings())
    for k, raw in enumerate(rows):
        cells.update(12 * k, raw)
    return cells


BASE = (10_000, 20_000, 30_000, 40_000)


def test_two_cells_flipping_a_bit_in_one_row_are_held_not_taken_as_load() -> None:
    glitch = (BASE[0] ^ (1 << 16), BASE[1] ^ (1 << 19), BASE[2], BASE[3])
    cells = _filter_after([BASE] * 50 + [glitch] + [BASE] * 3)
    assert list(cells.ok) == list(BASE)
    cells = _filter_after([BASE] * 50 + [glitch])
    assert list(cells.ok) == list(BASE) and cells.suspect


def test_a_real_step_of_a_power_of_two_counts_is_taken_after_one_reading() -> None:
    """A load step that happens to look like a flipped bit costs one reading of confirmation."""
    step = (BASE[0] + (1 << 14), BASE[1], BASE[2], BASE[3])  # 10_000 has bit 14 clear: a flip
    assert one_bit_off(step[0], BASE[0], tol=1.5 * 395)
    cells = _filter_after([BASE] * 50 + [step])
    assert list(cells.ok) == list(BASE)
    cells = _filter_after([BASE] * 50 + [step, step])
    assert list(cells.ok) == list(step)
    moved = (step[0] + 40, *step[1:])  # the second reading agrees within the glitch tolerance
    cells = _filter_after([BASE] * 50 + [step, moved, moved])
    assert list(cells.ok) == list(moved)
