"""HX711 channels: conversion averaging, calibration, noise, temperature drift, glitches, faults.

Each reading is the load averaged over its whole conversion period (12.5 ms at 80 Hz,
100 ms at 10 Hz: the converter integrates continuously), split over the cells by the
platform statics, then converted to signed 24-bit counts with the cell's true calibration.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from itertools import accumulate

from companion.sensing.trace import RAW_MAX, RAW_MIN, Sample
from hardware.sim_alt.loads import STEP_MS, Platform

FAULT_KINDS = ("stuck", "saturated", "disconnected", "noisy")


@dataclass(frozen=True)
class Channel:
    """One load cell + HX711: true calibration, noise and drift parameters."""

    counts_per_gram: float   # true, signed
    zero: float              # raw counts with the empty disc (true tare)
    white_g: float           # white noise per reading, g RMS
    pink_g: float            # 1/f-like part (three relaxation processes), g RMS
    tempco_g: float          # zero drift, g per degree C


@dataclass(frozen=True)
class Fault:
    """A cell failing from ``t_ms`` on."""

    cell: int
    kind: str
    t_ms: int


@dataclass(frozen=True)
class Climate:
    """Room temperature: a warm-up towards a plateau plus an air-conditioning cycle."""

    warmup_c: float
    warmup_tau_s: float
    cycle_c: float
    cycle_period_s: float
    cycle_phase: float

    def temp(self, t_ms: float) -> float:
        """Temperature change (degrees C) since the tare."""
        t = t_ms / 1000
        return (self.warmup_c * (1 - math.exp(-t / self.warmup_tau_s))
                + self.cycle_c * (math.sin(2 * math.pi * t / self.cycle_period_s + self.cycle_phase)
                                  - math.sin(self.cycle_phase)))


@dataclass(frozen=True)
class Link:
    """Reading imperfections of the link between the HX711s and the host."""

    missed: float = 1 / 800        # per reading: empty field
    flipped: float = 1 / 1200      # per reading: one high bit (12..23) flipped
    rail: float = 1 / 2500         # per reading: 8388607, -8388608 or -1
    spike: float = 1 / 2500        # per reading: a lone electrical spike of 5-300 g
    dropped: float = 1 / 500       # per row: row lost
    late: float = 1 / 150          # per row: timestamp 4-15 ms late (host scheduling)
    jitter_ms: float = 1.0


def sample_trace(rng: random.Random, loads: tuple[list[float], list[float], list[float]],
                 platform: Platform, channels: list[Channel], rate_hz: float, duration_ms: int,
                 climate: Climate, link: Link, gaps: list[tuple[int, int]],
                 fault: Fault | None = None) -> list[Sample]:
    """Read the load timeline through the HX711 channels; the logged rows."""
    prefix = [list(accumulate(arr, initial=0.0)) for arr in loads]
    n_grid = len(loads[0])
    period = 1000.0 / rate_hz * (1 + rng.uniform(-0.015, 0.015))
    latency = rng.uniform(1, 5)
    t = rng.uniform(0, period) + period
    taus = (0.4, 4.0, 40.0)
    pink = [[0.0] * 3 for _ in channels]
    out: list[Sample] = []
    last_t = 0
    last_code: list[int | None] = [None] * len(channels)
    sat_sign = rng.choice((RAW_MAX, RAW_MIN))
    noisy_g = rng.uniform(20, 100)
    while t <= duration_ms:
        i1 = min(n_grid, int(t / STEP_MS) + 1)
        i0 = max(0, min(i1 - 1, int((t - period) / STEP_MS) + 1))
        width = i1 - i0
        f, mx, my = ((p[i1] - p[i0]) / width for p in prefix)
        forces = platform.cell_forces(f, mx, my)
        temp = climate.temp(t)
        raws: list[int | None] = []
        for c, (ch, load) in enumerate(zip(channels, forces, strict=True)):
            for j, tau in enumerate(taus):  # AR(1) relaxations: a 1/f-like spectrum
                a = math.exp(-period / 1000 / tau)
                pink[c][j] = a * pink[c][j] + math.sqrt(1 - a * a) * rng.gauss(0, ch.pink_g / math.sqrt(3))
            grams = load + ch.tempco_g * temp + rng.gauss(0, ch.white_g) + sum(pink[c])
            if rng.random() < link.spike:
                grams += rng.choice((-1, 1)) * rng.uniform(5, 300)
            raw: int | None = int(round(ch.zero + ch.counts_per_gram * grams))
            raw = max(RAW_MIN, min(RAW_MAX, raw))
            if fault is not None and fault.cell == c and t >= fault.t_ms:
                raw = _faulty(rng, fault.kind, raw, last_code[c], sat_sign, ch, noisy_g)
            else:
                r = rng.random()
                if r < link.missed:
                    raw = None
                elif r < link.missed + link.flipped:
                    raw = _flip(raw, rng.randint(12, 23))
                elif r < link.missed + link.flipped + link.rail:
                    raw = rng.choice((RAW_MAX, RAW_MIN, -1))
                if raw is not None:
                    last_code[c] = raw
            raws.append(raw)
        stamp = t + latency + rng.gauss(0, link.jitter_ms)
        if rng.random() < link.late:
            stamp += rng.uniform(4, 15)
        t_ms = max(last_t, int(round(stamp)))
        t += period
        if rng.random() < link.dropped or any(a <= t_ms < b for a, b in gaps):
            continue
        last_t = t_ms
        out.append(Sample(t_ms, tuple(raws)))
    return out


def _flip(raw: int, bit: int) -> int:
    """Flip one bit of a signed 24-bit code."""
    code = (raw & 0xFFFFFF) ^ (1 << bit)
    return code - (1 << 24) if code & 0x800000 else code


def _faulty(rng: random.Random, kind: str, raw: int, last: int | None, sat: int, ch: Channel,
            noisy_g: float) -> int | None:
    if kind == "stuck":
        return last if last is not None else raw
    if kind == "saturated":
        return sat
    if kind == "disconnected":
        return -1 if rng.random() < 0.85 else None
    if kind == "noisy":
        extra = rng.gauss(0, noisy_g)
        if rng.random() < 1 / 30:
            extra += rng.choice((-1, 1)) * rng.uniform(100, 400)
        return max(RAW_MIN, min(RAW_MAX, int(round(raw + ch.counts_per_gram * extra))))
    raise ValueError(f"unknown fault kind {kind!r} (expected one of {', '.join(FAULT_KINDS)})")
