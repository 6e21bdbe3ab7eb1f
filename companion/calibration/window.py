"""Robust statistics of a window of raw samples, per cell (used by calibrate and doctor)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from companion.sensing.trace import Sample

FULL_SCALE = (8388607, -8388608)
MAD_TO_STD = 1.4826
TRIM = 0.1  # the share of readings dropped at each end for the level


@dataclass(frozen=True)
class CellWindow:
    """One cell over a window: robust level and spread (raw counts) and what went wrong."""

    n: int              # samples in the window
    valid: int          # readings that were neither missed nor a glitch
    median: float | None
    noise: float        # robust standard deviation (MAD x 1.4826), counts
    missed: int
    saturated: int      # readings at full scale (+8388607 / -8388608)
    glitches: int       # single wild readings (full scale, -1, or far outside the spread)
    unique: int         # distinct values read (a stuck cell reads one or two)
    level: float | None = None  # the calibration's estimate of the reading: trimmed mean of the valid ones


@dataclass(frozen=True)
class Window:
    """Every cell over one window of samples."""

    cells: tuple[CellWindow, ...]
    duration_s: float
    mid_ms: float | None = None  # the sample time at the middle of the window


    @property
    def medians(self) -> tuple[float | None, ...]:
        """The median raw reading of each cell (None if it gave nothing valid)."""
        return tuple(c.median for c in self.cells)

    @property
    def levels(self) -> tuple[float | None, ...]:
        """The level of each cell (see :func:`level_of`), what calibration weighs with."""
        return tuple(c.level for c in self.cells)


def _mad(values: Sequence[float], centre: float) -> float:
    return statistics.median(abs(v - centre) for v in values) if values else 0.0


def level_of(values: Sequence[float], trim: float = TRIM) -> float:
    """The mean of ``values`` without the ``trim`` share at each end.

    Readings near the median (glitches are already gone) are spread by Gaussian noise: their
    mean is what the load is, and it is about 1.25 times less noisy than their median. The
    trimmed ends keep one stray reading from pulling it.
    """
    ordered = sorted(values)
    cut = int(len(ordered) * trim)
    kept = ordered[cut:len(ordered) - cut] or ordered
    return statistics.fmean(kept)


def cell_window(values: Sequence[int | None]) -> CellWindow:
    """Robust statistics of one cell's readings."""
    present = [v for v in values if v is not None]
    missed = len(values) - len(present)
    saturated = sum(1 for v in present if v in FULL_SCALE)
    candidates = [v for v in present if v not in FULL_SCALE and v != -1]
    unique = len(set(present))
    if not candidates:
        return CellWindow(len(values), 0, None, 0.0, missed, saturated, len(present) - saturated, unique)
    centre = statistics.median(candidates)
    spread = _mad(candidates, centre) * MAD_TO_STD
    # A glitch is a single reading far outside the spread (flipped high bits): 8 sigma and >= 2000 counts.
    limit = max(8 * spread, 2000.0)
    good = [v for v in candidates if abs(v - centre) <= limit]
    glitches = (len(present) - saturated - len(good)) + (saturated if saturated < len(present) / 2 else 0)
    median = statistics.median(good)
    noise = _mad(good, median) * MAD_TO_STD
    return CellWindow(len(values), len(good), float(median), noise, missed, saturated, glitches, unique,
                      level_of(good))


def summarise(samples: Sequence[Sample], n_cells: int) -> Window:
    """Statistics of every cell over ``samples`` (rows with the wrong width are an error)."""
    for s in samples:
        if len(s.raw) != n_cells:
            raise ValueError(f"sample at t_ms={s.t_ms} has {len(s.raw)} cells, expected {n_cells}")
    duration = (samples[-1].t_ms - samples[0].t_ms) / 1000 if len(samples) > 1 else 0.0
    cells = tuple(cell_window([s.raw[i] for s in samples]) for i in range(n_cells))
    mid = (samples[0].t_ms + samples[-1].t_ms) / 2 if samples else None
    return Window(cells, duration, mid)
