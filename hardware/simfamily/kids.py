"""The cells and the host of a cheap table on a laptop (family ``kids-club``).

Every other family's load cell is a perfect spring (its reading is the load now, times a constant)
and its host logs a row within a millisecond or two of the conversion. A kit of bar cells from a
hobby shop, read by a laptop over USB, does neither. Drawn per trace from a stream of its own:

* **Creep** (``CellMaterial``): under a constant load the output grows (or, in an over-compensated
  cell, falls) by 0.02-0.1 % of that load over minutes, and recovers the same way after unloading.
  Two first-order terms: 30-70 % of it with a time constant of 20-90 s, the rest with 3-15 min.
* **Hysteresis**: the output on unloading exceeds the output on loading; a large loop is
  0.01-0.03 % of the capacity wide either side (``H``). A Prandtl-Ishlinskii sum of eight
  elastic-plastic (stop) elements with yield widths halving from 10-30 % of the capacity, each
  weighted by its width, relaxed under the tare when the trace starts: a small excursion is elastic
  (its gain ``1 - 1.5 H / w_max``, 0.05-0.45 % low, and no loop), loops grow with the square of
  their excursion (Rayleigh's law): a 5 g pawn leaves a few millionths of a gram, a 500 g palm tenths.
* **Nonlinearity**: the output bows off the straight line through zero and capacity by 0.02-0.05 %
  of the capacity at half of it (either sign); the cells are 1, 2 or 5 kg ones (one kind per table)
  and carry their share of the tare (disc, base plate and support: hidden in the offset).
* **Warm-up**: 60 % of traces begin with the bridge and the HX711 cold: the span drifts by
  0.02-0.15 % (either sign) with a time constant of 3-10 min, on the tare as on the pawns, and the
  zero by 0.05-0.4 g with 1-5 min.
* **A USB host** (``UsbHost``): the laptop reads the serial port on a timer tick of 1, 4, 10 or 16 ms
  (each tick +-0.3 ms), so a row is stamped at the first tick after it arrived and rows come in
  bursts with equal timestamps; now and then (every 10-60 s on average) the process is descheduled
  for 20-150 ms (20 % of stalls: 150-500 ms) and every row of the stall is stamped at its end; the
  USB-serial bridge buffers 4-32 rows, and a stall longer than that loses the rows beyond it.

All terms act on each cell's load on the 2 ms grid before the HX711 averages it (``apply``), the
host's on the logged rows (``retime``). The header's calibration stays as the host measured it.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from companion.sensing.trace import Sample
from hardware.simfamily.disc import STEP_MS

CAPACITIES_G = (1000.0, 2000.0, 5000.0)
N_PLAY = 8


@dataclass(frozen=True)
class CellMaterial:
    """The non-ideal spring of one load cell (grams, ms)."""

    tare_g: float  # this cell's share of the tare (in the offset)
    capacity_g: float
    creep: tuple[tuple[float, float], ...]  # (fraction of the load, time constant ms) per term
    hysteresis_g: float  # half-width of a large loop (H)
    play_widths_g: tuple[float, ...]  # yield widths of the stop elements
    nonlin_g: float  # signed bow at half capacity
    span_warm: float  # signed relative span change at the end of the warm-up
    span_tau_ms: float
    zero_warm_g: float
    zero_tau_ms: float

    @property
    def small_signal_gain(self) -> float:
        """The gain of an excursion that yields no element (1 - sum c_k)."""
        ws = self.play_widths_g
        return 1 - self.hysteresis_g * sum(ws) / sum(w * w for w in ws) if ws else 1.0

    @property
    def creep_total(self) -> float:
        return sum(f for f, _ in self.creep)

    def bow(self, x: float) -> float:
        """The nonlinearity's deviation (g) at a total load of ``x`` grams."""
        u = x / self.capacity_g
        return 4 * self.nonlin_g * u * (1 - u)

    def apply(self, vals: list[float]) -> list[float]:
        """What the cell's output says (grams above its offset) for its load ``vals`` on the grid."""
        out = list(vals)
        # creep: each term relaxes towards its share of the load (and back when it goes)
        for frac, tau in self.creep:
            a = 1 - math.exp(-STEP_MS / tau)
            y = 0.0
            for i, v in enumerate(vals):
                y += (v - y) * a
                out[i] += frac * y
        # hysteresis: elastic-plastic (stop) elements, relaxed under the tare when the trace starts; each
        # gives up to -c_k w_k on loading and +c_k w_k on unloading, c_k = alpha w_k (sum c_k w_k = H)
        ws = self.play_widths_g
        alpha = self.hysteresis_g / sum(w * w for w in ws) if ws else 0.0
        if alpha:
            for w in ws:
                c = alpha * w
                e = 0.0
                prev = vals[0] if vals else 0.0
                for i, v in enumerate(vals):
                    e += v - prev
                    prev = v
                    if e > w:
                        e = w
                    elif e < -w:
                        e = -w
                    out[i] -= c * e
        # nonlinearity, and the warm-up of span and zero
        b0 = self.bow(self.tare_g)
        warm = self.span_warm != 0.0 or self.zero_warm_g != 0.0
        for i, v in enumerate(vals):
            extra = self.bow(self.tare_g + v) - b0
            if warm:
                t = i * STEP_MS
                extra += self.span_warm * (1 - math.exp(-t / self.span_tau_ms)) * (self.tare_g + v)
                extra += self.zero_warm_g * (1 - math.exp(-t / self.zero_tau_ms))
            out[i] += extra
        return out

    def meta(self) -> dict[str, Any]:
        return {
            "capacity_g": self.capacity_g,
            "tare_g": round(self.tare_g, 1),
            "creep_pct": round(100 * self.creep_total, 4),
            "creep_tau_s": [round(tau / 1000, 1) for _, tau in self.creep],
            "hysteresis_g": round(self.hysteresis_g, 3),
            "nonlin_g": round(self.nonlin_g, 3),
            "span_warm_pct": round(100 * self.span_warm, 4),
            "zero_warm_g": round(self.zero_warm_g, 3),
        }


def draw_materials(rng: random.Random, tare_shares_g: list[float]) -> list[CellMaterial]:
    """One kind of cell for the whole table, each cell with its own spread of the kind's numbers."""
    capacity = rng.choice(CAPACITIES_G)
    warm = rng.random() < 0.6
    creep_sign = 1.0 if rng.random() < 0.7 else -1.0  # one batch: mostly the same compensation
    out = []
    for tare in tare_shares_g:
        total = creep_sign * rng.uniform(0.0002, 0.001)
        first = rng.uniform(0.3, 0.7)
        creep = (
            (total * first, rng.uniform(20_000, 90_000)),
            (total * (1 - first), rng.uniform(180_000, 900_000)),
        )
        w_max = capacity * rng.uniform(0.10, 0.30)
        out.append(
            CellMaterial(
                tare_g=max(0.0, tare),
                capacity_g=capacity,
                creep=creep,
                hysteresis_g=capacity * rng.uniform(0.0001, 0.0003),
                play_widths_g=tuple(w_max / 2**k for k in range(N_PLAY)),
                nonlin_g=rng.choice((-1, 1)) * capacity * rng.uniform(0.0002, 0.0005),
                span_warm=rng.choice((-1, 1)) * rng.uniform(0.0002, 0.0015) if warm else 0.0,
                span_tau_ms=rng.uniform(180_000, 600_000),
                zero_warm_g=rng.choice((-1, 1)) * rng.uniform(0.05, 0.4) if warm else 0.0,
                zero_tau_ms=rng.uniform(60_000, 300_000),
            )
        )
    return out


@dataclass(frozen=True)
class UsbHost:
    """A laptop reading the table's serial port over USB."""

    tick_ms: float
    tick_phase_ms: float
    stall_every_ms: float
    buffer_rows: int

    @staticmethod
    def draw(rng: random.Random) -> UsbHost:
        tick = rng.choice((1.0, 4.0, 10.0, 16.0))
        return UsbHost(tick, rng.uniform(0, tick), rng.uniform(10_000, 60_000), rng.randint(4, 32))

    def stalls(self, rng: random.Random, duration_ms: float) -> list[tuple[float, float]]:
        """(start, end) of the stalls of the host process."""
        out = []
        t = rng.expovariate(1 / self.stall_every_ms)
        while t < duration_ms:
            dur = rng.uniform(20, 150) if rng.random() < 0.8 else rng.uniform(150, 500)
            out.append((t, t + dur))
            t += dur + rng.expovariate(1 / self.stall_every_ms)
        return out

    def retime(
        self, rng: random.Random, rows: list[Sample], stalls: list[tuple[float, float]]
    ) -> tuple[list[Sample], list[dict[str, Any]]]:
        """The rows as the host logs them, and a truth record per stall (``host_stall``, not scored)."""
        out: list[Sample] = []
        truth: list[dict[str, Any]] = []
        last = 0
        j = 0
        lost = 0
        in_stall = 0
        for row in rows:
            t = float(row.t_ms)
            while j < len(stalls) and stalls[j][1] <= t:
                if in_stall or lost:
                    truth.append(_stall_record(stalls[j], in_stall, lost))
                in_stall = lost = 0
                j += 1
            if j < len(stalls) and stalls[j][0] <= t:
                # the row waits in the bridge until the process runs again (or is lost if it is full)
                in_stall += 1
                if in_stall > self.buffer_rows:
                    lost += 1
                    continue
                stamp = stalls[j][1] + 0.05 * in_stall
            else:
                k = math.ceil((t - self.tick_phase_ms) / self.tick_ms)
                stamp = self.tick_phase_ms + k * self.tick_ms + rng.uniform(-0.3, 0.3)
            t_ms = max(last, int(round(stamp)))
            last = t_ms
            out.append(Sample(t_ms, row.raw))
        for s in stalls[j : j + 1]:
            if in_stall or lost:
                truth.append(_stall_record(s, in_stall, lost))
        return out, truth

    def meta(self, stalls: list[tuple[float, float]]) -> dict[str, Any]:
        return {
            "tick_ms": self.tick_ms,
            "stall_every_s": round(self.stall_every_ms / 1000, 1),
            "buffer_rows": self.buffer_rows,
            "stalls": len(stalls),
        }


def _stall_record(stall: tuple[float, float], rows: int, lost: int) -> dict[str, Any]:
    return {
        "event": "host_stall",
        "t_ms": int(stall[0]),
        "until_ms": int(stall[1]),
        "rows": rows - lost,
        "lost": lost,
    }
