"""The HX711s and the host: per-cell free-running clocks, conversion averaging, calibration, noise.

Each cell's HX711 converts continuously on its own oscillator: conversion ``k`` of cell ``i``
ends at ``phase_i + k * period_i`` and its reading is the cell's load *averaged over the whole
conversion* (12.5 ms at 80 SPS, 100 ms at 10 SPS), taken from prefix sums of the load timeline
with linear interpolation (so the timing is exact to well below the 2 ms grid). The host reads
the cells one after another: for each row it waits until every cell has a conversion newer than
the one it read last, so the row rate follows the slowest cell, a faster cell skips conversions,
and the cells of one row are up to a whole period apart (``clock="free"``). With
``clock="sync"`` all cells share one oscillator (the legacy simulators' assumption).
Raw code = true zero + true counts/g x (grams + noise + drift); the header carries the
calibration as the host measured it (off by a per-cent or two per cell in some families).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate

from companion.sensing.trace import RAW_MAX, RAW_MIN, Sample
from hardware.sim.hx711 import glitch
from hardware.sim_alt.loads import Platform

STEP_MS = 2
FAULT_KINDS = ("stuck", "saturated", "disconnected", "noisy")


@dataclass(frozen=True)
class Cell:
    """One load cell and its HX711: true calibration, clock, noise and drift."""

    counts_per_gram: float  # true, signed
    zero: float  # true raw code of the empty disc
    period_ms: float  # its own conversion period
    phase_ms: float  # end of its first conversion
    white_g: float
    pink_g: float
    drift_g_per_min: float


@dataclass(frozen=True)
class Link:
    """Imperfections of the serial/GPIO link."""

    missed: float = 1 / 900
    glitch: float = 1 / 1500
    dropped: float = 1 / 450
    jitter_ms: float = 0.8
    latency_ms: float = 2.0


@dataclass(frozen=True)
class CellFault:
    """A cell failing from ``t_ms`` on."""

    cell: int
    kind: str
    t_ms: int


def sample_rows(
    rng: random.Random,
    loads: tuple[list[float], list[float], list[float]],
    platform: Platform,
    cells: list[Cell],
    duration_ms: float,
    link: Link,
    gaps: list[tuple[int, int]],
    fault: CellFault | None = None,
    extra: Callable[[int, float, float], float] | None = None,
    cell_load: Callable[[int, list[float]], list[float]] | None = None,
) -> list[Sample]:
    """Read the load timeline through the cells; the rows the host logs.

    ``extra(cell, t_end, width)``: grams added to a reading (the room's hum, 1/f noise, temperature);
    ``cell_load(cell, loads)``: what the cell's output says for its load on the grid (kids-club's
    creep, hysteresis, nonlinearity, warm-up)."""
    n = len(cells)
    fa, ma, ya = loads
    n_grid = len(fa)
    pre: list[list[float]] = []
    last_val: list[float] = []
    for c in range(n):
        wf, wx, wy = (
            platform.cell_forces(1.0, 0.0, 0.0)[c],
            platform.cell_forces(0.0, 1.0, 0.0)[c],
            platform.cell_forces(0.0, 0.0, 1.0)[c],
        )
        vals = [wf * f + wx * x + wy * y for f, x, y in zip(fa, ma, ya, strict=True)]
        if cell_load is not None:
            vals = cell_load(c, vals)
        pre.append(list(accumulate(vals, initial=0.0)))
        last_val.append(vals[-1])

    def cell_mean(c: int, t_end: float, width: float) -> float:
        """Mean load on cell ``c`` over ``[t_end - width, t_end]`` (interpolated prefix sums)."""
        p = pre[c]
        t0 = max(0.0, t_end - width)
        out = 0.0
        for sign, t in ((1.0, t_end), (-1.0, t0)):
            u = t / STEP_MS
            i = int(u)
            if i >= n_grid:
                v = p[n_grid] + (u - n_grid) * last_val[c]
            else:
                v = p[i] + (u - i) * (p[i + 1] - p[i])
            out += sign * v
        span = (t_end - t0) / STEP_MS
        return out / span if span > 0 else 0.0

    last_read = [-1e9] * n
    pink = [0.0] * n
    tau_s = rng.uniform(1.0, 8.0)  # one slow relaxation: 1/f-like wander shared by no two cells
    ar = [
        (
            math.exp(-cl.period_ms / 1000 / tau_s),
            math.sqrt(1 - math.exp(-2 * cl.period_ms / 1000 / tau_s)) * cl.pink_g,
        )
        for cl in cells
    ]
    gauss = rng.gauss
    last_code: list[int | None] = [None] * n
    stuck_code: list[int | None] = [None] * n
    sat = rng.choice((RAW_MAX, RAW_MIN))
    noisy_g = rng.uniform(20, 90)
    out: list[Sample] = []
    last_t = 0
    host = 0.0
    while True:
        raws: list[int | None] = []
        for c, cell in enumerate(cells):
            # the newest finished conversion if not read yet (DOUT low), else wait for the next one
            k = math.floor((host - cell.phase_ms) / cell.period_ms)
            t_conv = cell.phase_ms + k * cell.period_ms
            if t_conv <= last_read[c] + 1e-9:
                t_conv += cell.period_ms
            last_read[c] = t_conv
            host = max(host, t_conv) + 0.3  # clocking 24 bits out takes a moment
            grams = cell_mean(c, t_conv, cell.period_ms)
            a, b = ar[c]
            pink[c] = a * pink[c] + b * gauss(0, 1)
            grams += gauss(0, cell.white_g) + pink[c] + cell.drift_g_per_min * t_conv / 60000
            if extra is not None:
                grams += extra(c, t_conv, cell.period_ms)
            raw: int | None = int(round(cell.zero + cell.counts_per_gram * grams))
            raw = max(RAW_MIN, min(RAW_MAX, raw))
            if fault is not None and fault.cell == c and t_conv >= fault.t_ms:
                raw = _faulty(rng, fault.kind, raw, stuck_code, c, last_code[c], sat, cell, noisy_g)
            else:
                u = rng.random()
                if u < link.missed:
                    raw = None
                elif u < link.missed + link.glitch:
                    raw = glitch(raw, rng)
                else:
                    last_code[c] = raw
            raws.append(raw)
        if host > duration_ms:
            break
        stamp = host + link.latency_ms + rng.gauss(0, link.jitter_ms)
        t_ms = max(last_t, int(round(stamp)))
        if rng.random() < link.dropped or any(a <= t_ms < b for a, b in gaps):
            continue
        last_t = t_ms
        out.append(Sample(t_ms, tuple(raws)))
    return out


def _faulty(
    rng: random.Random,
    kind: str,
    raw: int,
    stuck: list[int | None],
    c: int,
    last: int | None,
    sat: int,
    cell: Cell,
    noisy_g: float,
) -> int | None:
    if kind == "stuck":
        if stuck[c] is None:
            stuck[c] = last if last is not None else raw
        return stuck[c]
    if kind == "saturated":
        return sat
    if kind == "disconnected":
        return -1 if rng.random() < 0.8 else None
    if kind == "noisy":
        extra = rng.gauss(0, noisy_g)
        return max(RAW_MIN, min(RAW_MAX, int(round(raw + cell.counts_per_gram * extra))))
    raise ValueError(f"unknown fault kind {kind!r} (expected one of {', '.join(FAULT_KINDS)})")
