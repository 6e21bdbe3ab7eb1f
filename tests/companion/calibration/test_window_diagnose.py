"""Window statistics and the doctor's verdicts."""

from __future__ import annotations

import random
import statistics

import pytest

from companion.calibration import cell_window, diagnose_cell, summarise
from companion.sensing.trace import Sample


def noisy(n: int, level: int, sd: float, seed: int = 0) -> list[int | None]:
    rng = random.Random(seed)
    return [round(level + rng.gauss(0, sd)) for _ in range(n)]


def test_glitches_and_misses_are_counted_not_averaged() -> None:
    values: list[int | None] = noisy(400, 10_000, 20)
    values[10] = 8388607
    values[20] = -1
    values[30] = 10_000 ^ (1 << 22)  # a flipped high bit
    values[40] = None
    w = cell_window(values)
    assert w.glitches == 3 and w.missed == 1 and w.saturated == 1
    assert w.median == pytest.approx(10_000, abs=5)
    assert w.noise == pytest.approx(20, rel=0.2)


def test_summarise_checks_width() -> None:
    with pytest.raises(ValueError, match="has 2 cells, expected 3"):
        summarise([Sample(0, (1, 2))], 3)


@pytest.mark.parametrize(("values", "duration", "verdict"), [
    (noisy(400, 5000, 20), 5.0, "ok"),                     # 0.05 g noise at 400 counts/g
    (noisy(400, 5000, 400), 5.0, "noisy"),                 # 1 g
    ([5000, 5001] * 200, 5.0, "stuck"),
    ([8388607] * 400, 5.0, "saturated"),
    ([None] * 400, 5.0, "no data"),
    (noisy(50, 5000, 20), 5.0, "slow"),                    # 10 Hz while 80 is configured
    (noisy(390, 5000, 20) + [8388607] * 10, 5.0, "glitchy"),
])
def test_verdicts(values: list[int | None], duration: float, verdict: str) -> None:
    report = diagnose_cell(0, cell_window(values), duration, 80.0, 400.0)
    assert report.verdict == verdict
    assert report.fix
    if verdict == "slow":
        assert "RATE pin" in report.fix
    if verdict == "ok":
        assert report.noise_g == pytest.approx(0.05, rel=0.25) and report.rate_hz == 80.0


def test_the_level_is_a_trimmed_mean_and_less_noisy_than_the_median() -> None:
    values: list[int | None] = noisy(41, 10_000, 40, seed=3)
    values[5] = 10_000 + 1500  # a stray reading inside the glitch limit
    w = cell_window(values)
    ordered = sorted(v for v in values if v is not None)
    assert w.level == pytest.approx(sum(ordered[4:-4]) / len(ordered[4:-4]))
    # over many windows the level scatters about 1.25 times less than the median (Gaussian noise)
    medians, levels = [], []
    for seed in range(300):
        c = cell_window(noisy(40, 10_000, 40, seed=100 + seed))
        medians.append(c.median)
        levels.append(c.level)
    spread = statistics.pstdev
    assert spread(levels) < 0.9 * spread(medians)
    assert abs(statistics.fmean(levels) - 10_000) < 2
