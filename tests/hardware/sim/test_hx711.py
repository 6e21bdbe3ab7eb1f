"""The HX711 channel model: calibration, glitches, faults."""

import random
import statistics

import pytest

from hardware.sim.hx711 import RAW_MAX, RAW_MIN, Hx711Cell, Hx711Params, glitch


def make(noise: float = 0.0, glitch_prob: float = 0.0, miss: float = 0.0, seed: int = 1) -> Hx711Cell:
    params = Hx711Params(offset=12345, counts_per_gram=-420.0, noise_g=noise, drift_g_per_min=0.0,
                         walk_g_per_sqrt_s=0.0, glitch_prob=glitch_prob, miss_prob=miss)
    return Hx711Cell(params, random.Random(seed))


def test_calibration_round_trip() -> None:
    cell = make()
    raw = cell.read(7.5, 1.0)
    assert raw is not None
    assert (raw - 12345) / -420.0 == pytest.approx(7.5, abs=0.01)


def test_noise_has_the_requested_spread() -> None:
    cell = make(noise=0.2)
    grams = [((cell.read(0.0, i / 80) or 0) - 12345) / -420.0 for i in range(4000)]
    assert statistics.pstdev(grams) == pytest.approx(0.2, rel=0.1)


def test_glitches_are_the_hx711_kinds() -> None:
    rng = random.Random(3)
    raw = 123456
    seen = {glitch(raw, rng) for _ in range(400)}
    assert {RAW_MAX, RAW_MIN, -1} <= seen
    flips = seen - {RAW_MAX, RAW_MIN, -1}
    assert flips
    for v in flips:
        diff = (v & 0xFFFFFF) ^ raw
        assert bin(diff).count("1") == 1 and diff >= 1 << 12


def test_missed_reads_and_glitches_happen_at_their_rates() -> None:
    cell = make(glitch_prob=0.01, miss=0.02)
    reads = [cell.read(1.0, i / 80) for i in range(20000)]
    assert 0.015 < sum(r is None for r in reads) / len(reads) < 0.025
    odd = sum(r is not None and abs((r - 12345) / -420.0 - 1.0) > 1.0 for r in reads) / len(reads)
    assert 0.006 < odd < 0.014


def test_faults() -> None:
    cell = make(noise=0.1)
    cell.read(2.0, 0.0)
    cell.set_fault("stuck")
    stuck = {cell.read(g, 0.1 * i) for i, g in enumerate((0.0, 5.0, 50.0))}
    assert len(stuck) == 1
    cell.set_fault("saturated")
    assert cell.read(1.0, 1.0) in (RAW_MAX, RAW_MIN)
    cell.set_fault("disconnected")
    assert cell.read(1.0, 1.0) in (-1, None)
    cell.set_fault("noisy")
    vals = [((cell.read(0.0, i) or 0) - 12345) / -420.0 for i in range(200)]
    assert statistics.pstdev(vals) > 5
    cell.set_fault(None)
    assert abs(((cell.read(3.0, 2.0) or 0) - 12345) / -420.0 - 3.0) < 1
    with pytest.raises(ValueError, match="unknown fault kind"):
        cell.set_fault("melted")
