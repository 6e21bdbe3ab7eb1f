"""The doctor's per-cell verdicts: one plain word and the fix to try (table in hardware/README.md)."""

from __future__ import annotations

from dataclasses import dataclass

from companion.calibration.window import CellWindow

NOISY_G = 0.3          # above this the smallest pawn (about 2 g) is hard to tell from noise
SLOW_RATIO = 0.8       # measured rate below 80 % of the configured one
GLITCH_RATIO = 0.01    # more than 1 % wild single readings (and more than 2)


@dataclass(frozen=True)
class CellReport:
    """What the doctor prints for one cell."""

    cell: int
    rate_hz: float
    configured_hz: float
    noise_g: float | None
    glitches: int
    saturated: int
    missed: int
    unique: int
    verdict: str
    fix: str


def diagnose_cell(cell: int, stats: CellWindow, duration_s: float, configured_hz: float,
                  counts_per_gram: float) -> CellReport:
    """Verdict for one cell from its statistics over ``duration_s`` seconds of reading."""
    rate = stats.valid / duration_s if duration_s > 0 else 0.0
    noise_g = stats.noise / abs(counts_per_gram) if stats.median is not None and counts_per_gram else None
    present = stats.n - stats.missed
    if present == 0:
        verdict, fix = "no data", ("no readings at all: check the HX711's DOUT and SCK wires and its "
                                   "VCC/GND; on the bridge, that the pin is in DOUT_PINS")
    elif stats.saturated > present // 2:
        verdict, fix = "saturated", ("reads full scale: a load-cell wire is loose or swapped (E+/E-/A+/A-), "
                                     "or the mount pre-loads the cell; check the wiring against wiring.svg")
    elif present >= 10 and stats.unique <= 2:
        verdict, fix = "stuck", ("the same value every time: the HX711 is not converting (power, RATE pin) "
                                 "or its data line is stuck high/low")
    elif rate < SLOW_RATIO * configured_hz:
        if configured_hz >= 40 and 6 <= rate <= 13:
            verdict, fix = "slow", ("about 10 samples/s: the HX711's RATE pin is low; tie RATE to DVDD for "
                                    "80 Hz, or set table.rate_hz = 10")
        else:
            verdict, fix = "slow", (f"only {rate:.1f} of {configured_hz:g} samples/s arrive: reads are "
                                    "missed (with the GPIO source use the Pico bridge; check the USB cable)")
    elif stats.glitches > max(2, GLITCH_RATIO * present):
        verdict, fix = "glitchy", ("single wild readings: clock timing is disturbed; keep SCK/DOUT wires "
                                   "short, or use the Pico bridge instead of GPIO")
    elif noise_g is not None and noise_g > NOISY_G:
        verdict, fix = "noisy", (f"noise {noise_g:.2f} g: twist the cell's four wires, keep them away from "
                                 "power cables, feed the HX711 a clean 3.3-5 V, and keep the table still")
    else:
        verdict, fix = "ok", "nothing to do"
    return CellReport(cell, round(rate, 1), configured_hz, None if noise_g is None else round(noise_g, 3),
                      stats.glitches, stats.saturated, stats.missed, stats.unique, verdict, fix)
