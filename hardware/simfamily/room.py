"""The room a table stands in: floor vibration, a table leaned on, mains hum, 1/f noise, temperature.

None of the other families has a room: their table top is an inertial frame, their cells' noise is
white plus one relaxation. ``Room`` (family ``living-room``, docs/simulator-families.md) adds what a
lived-in room does to the readings, every number drawn per trace from its own random stream:

* **Floor vibration** (a washing machine or a fan: a narrow band of 8-25 Hz, 0.15-0.6 mg RMS for
  20-120 s; someone walking past: footfalls of 1.6-2.3 Hz, each ringing a floor mode of 6-14 Hz,
  0.5-2.5 mg peak, for 3-12 s). The table top accelerates by ``a_z`` (in g) upwards, so every mass
  above the cells weighs ``1 + a_z`` times as much: the tare (disc and base plate) too, which the
  offset hides when still. The horizontal part ``a_h`` adds ``-a_h sum m z`` to the moment.
* **A table leaned on** (forearms on its edge, a wobbly table rocked onto another leg): the top tilts
  by 0.02-0.15 deg for 2-20 s (30 %: 10-60 s), so gravity's component along the plate shifts the
  centre of pressure of everything above the cells by ``z beta``: a moment ``beta sum m z`` with no
  change of force (``cos beta``: a few thousandths of a gram).
* **Mains hum** (half the tables: an unscreened HX711 board near a lamp cord): 50 or 60 Hz on each
  cell's reading, its own phase, averaged over the conversion like the load (80 SPS passes some of
  it, aliased to about 15-40 Hz; 10 SPS rejects it only as well as its period is a whole number of cycles).
* **1/f noise**: two more relaxations per cell (0.2-1 s and 20-90 s) next to the 1-8 s one of every
  family; the white share falls to 35-65 % of the cell's variance. The total per-cell noise stays
  ``noise_g x 0.8-1.2`` (the budget the bench sets), hum included.
* **Temperature**: 60 % of traces start with the electronics warming up (each cell's zero creeps by
  0.1-0.6 g over a time constant of 2-7 min); a draught or the sun (one per 4 minutes on average)
  moves each zero by 0.1-0.5 g over 15-90 s. Cells share the sign of a step 70 % of the time.

Loads (vibration, lean) act on the load timeline before the cells average it (``apply``); the
per-read terms (hum, relaxations, temperature) come from ``reading(cell, t_end, width)``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from hardware.simfamily.disc import STEP_MS


@dataclass
class Vibration:
    """One episode of floor vibration: the table top's vertical acceleration (in g) on the grid."""

    kind: str  # machine | footsteps
    t0_ms: float
    accel: list[float]  # a_z / g per grid step from t0_ms
    horizontal: float  # a_h / a_z
    dir_rad: float  # direction of the horizontal part
    freq_hz: float
    peak_mg: float

    @property
    def end_ms(self) -> float:
        return self.t0_ms + len(self.accel) * STEP_MS


@dataclass
class Lean:
    """The table top tilted by ``tilt(t)`` (radians) towards ``dir_rad``."""

    t0_ms: float
    ramp_ms: float
    hold_ms: float
    back_ms: float
    tilt_rad: float
    dir_rad: float

    @property
    def end_ms(self) -> float:
        return self.t0_ms + self.ramp_ms + self.hold_ms + self.back_ms

    def tilt(self, t: float) -> float:
        u = t - self.t0_ms
        if u <= 0 or u >= self.ramp_ms + self.hold_ms + self.back_ms:
            return 0.0
        if u < self.ramp_ms:
            k = u / self.ramp_ms
        elif u < self.ramp_ms + self.hold_ms:
            k = 1.0
        else:
            k = 1.0 - (u - self.ramp_ms - self.hold_ms) / self.back_ms
        return self.tilt_rad * (10 * k**3 - 15 * k**4 + 6 * k**5)


@dataclass
class CellRoom:
    """The per-read terms of one cell: hum, two more relaxations, temperature."""

    hum_share: float
    fast_share: float
    slow_share: float
    fast_tau_s: float
    slow_tau_s: float
    hum_phase: float
    warm_g: float  # warm-up amplitude (0: started warm)
    steps_g: list[float] = field(default_factory=list)  # one per temperature step
    sigma_g: float = 0.0
    state: list[float] = field(default_factory=lambda: [0.0, 0.0])
    last_t: float | None = None

    @property
    def white_share(self) -> float:
        """The share of the cell's noise variance left white (the 1-8 s relaxation keeps its 15 %)."""
        return 0.85 - self.hum_share - self.fast_share - self.slow_share


class Room:
    """Everything the room does to one trace, drawn from ``rng`` (see the module docstring)."""

    def __init__(
        self,
        rng: random.Random,
        duration_ms: float,
        cells: int,
        *,
        tare_g: float,
        tare_z_gmm: float,
        pawn_z_mm: float,
    ) -> None:
        self.rng = rng
        self.duration_ms = duration_ms
        self.tare_g = tare_g  # disc and base plate (in the offset)
        self.tare_z_gmm = tare_z_gmm  # sum m z of the tare above the cell plane
        self.pawn_z_mm = pawn_z_mm  # height of a pawn's centre of mass above the cell plane
        self.mains_hz = rng.choice((50.0, 60.0)) * (1 + rng.gauss(0, 0.0005))
        hum = rng.random() < 0.5
        self.hum = hum
        self.cells: list[CellRoom] = []
        warm = rng.random() < 0.6
        warm_amp, warm_sign = rng.uniform(0.1, 0.6), rng.choice((-1, 1))
        self.warm_tau_s = rng.uniform(120, 420)
        n_steps = _poisson(rng, duration_ms / 240_000)
        self.temp_steps: list[tuple[float, float, float, float]] = []  # (t0, tau_ms, amp, sign)
        for _ in range(n_steps):
            self.temp_steps.append(
                (rng.uniform(0, duration_ms), rng.uniform(15_000, 90_000), rng.uniform(0.1, 0.5),
                 rng.choice((-1, 1)))
            )
        for _ in range(cells):
            cr = CellRoom(
                hum_share=rng.uniform(0.05, 0.25) if hum else 0.0,
                fast_share=rng.uniform(0.1, 0.2),
                slow_share=rng.uniform(0.1, 0.2),
                fast_tau_s=rng.uniform(0.2, 1.0),
                slow_tau_s=rng.uniform(20, 90),
                hum_phase=rng.uniform(0, 2 * math.pi),
                warm_g=(
                    warm_amp * rng.uniform(0.5, 1.5) * (warm_sign if rng.random() < 0.7 else -warm_sign)
                    if warm
                    else 0.0
                ),
            )
            for _t0, _tau, amp, sign in self.temp_steps:
                cr.steps_g.append(amp * rng.uniform(0.5, 1.5) * (sign if rng.random() < 0.7 else -sign))
            self.cells.append(cr)
        self.vibrations: list[Vibration] = []
        for _ in range(_poisson(rng, duration_ms / 180_000)):
            self.vibrations.append(self._vibration(rng.uniform(0, duration_ms)))
        self.leans: list[Lean] = []
        for _ in range(_poisson(rng, duration_ms / 120_000)):
            hold = rng.uniform(10_000, 60_000) if rng.random() < 0.3 else rng.uniform(2000, 20_000)
            self.leans.append(
                Lean(
                    rng.uniform(0, duration_ms),
                    rng.uniform(200, 1000),
                    hold,
                    rng.uniform(200, 1000),
                    math.radians(rng.uniform(0.02, 0.15)),
                    rng.uniform(0, 2 * math.pi),
                )
            )

    # -- drawing ---------------------------------------------------------------------------------
    def _vibration(self, t0: float) -> Vibration:
        rng = self.rng
        horizontal, direction = rng.uniform(0.2, 1.0), rng.uniform(0, 2 * math.pi)
        dt = STEP_MS / 1000
        if rng.random() < 0.6:
            # a machine: a narrow band that runs up, holds with a slow wander of its speed, runs down
            dur = rng.uniform(20, 120)
            up, down = rng.uniform(3, 15), rng.uniform(2, 8)
            f0, rms = rng.uniform(8, 25), rng.uniform(0.15, 0.6) / 1000
            wander, w_per, beat = rng.uniform(0.005, 0.03), rng.uniform(5, 20), rng.uniform(0.1, 0.4)
            n = int(dur / dt)
            out, ph = [], rng.uniform(0, 2 * math.pi)
            for k in range(n):
                t = k * dt
                env = min(1.0, t / up, max(0.0, (dur - t) / down))
                f = f0 * (1 + wander * math.sin(2 * math.pi * t / w_per))
                ph += 2 * math.pi * f * dt
                am = 1 + beat * math.sin(2 * math.pi * 0.3 * t)  # a slow beat of the drum's imbalance
                out.append(rms * math.sqrt(2) * env * am * math.sin(ph))
            return Vibration("machine", t0, out, horizontal, direction, round(f0, 1), round(rms * 1414, 2))
        # footsteps: each footfall rings a floor mode; the walker comes and goes
        dur = rng.uniform(3, 12)
        rate, fn, tau = rng.uniform(1.6, 2.3), rng.uniform(6, 14), rng.uniform(0.04, 0.15)
        peak = rng.uniform(0.5, 2.5) / 1000
        n = int((dur + 5 * tau) / dt)
        out = [0.0] * n
        t_step = rng.uniform(0, 1 / rate)
        while t_step < dur:
            amp = peak * rng.uniform(0.6, 1.4) * math.sin(math.pi * t_step / dur)
            k0 = int(t_step / dt)
            for j in range(int(5 * tau / dt)):
                if k0 + j < n:
                    u = j * dt
                    # the floor's velocity rings as e^(-u/tau) sin(w u): its acceleration integrates
                    # to zero (the floor ends at rest), normalised to ``amp`` at the footfall
                    w = 2 * math.pi * fn
                    out[k0 + j] += amp * math.exp(-u / tau) * (math.cos(w * u) - math.sin(w * u) / (w * tau))
            t_step += (1 / rate) * rng.uniform(0.93, 1.07)
        return Vibration("footsteps", t0, out, horizontal, direction, round(fn, 1), round(peak * 1000, 2))

    def set_sigma(self, cell: int, sigma_g: float) -> None:
        """The cell's noise budget (``noise_g x 0.8-1.2``): the hum and relaxations take their shares."""
        self.cells[cell].sigma_g = sigma_g

    # -- loads -------------------------------------------------------------------------------------
    def apply(
        self, loads: tuple[list[float], list[float], list[float]]
    ) -> tuple[list[float], list[float], list[float]]:
        """The load timeline with the floor's vibration and the table's lean (new lists)."""
        fa, ma, ya = (list(a) for a in loads)
        n = len(fa)
        f0, m0, y0 = list(fa), list(ma), list(ya)
        for v in self.vibrations:
            i0 = int(round(v.t0_ms / STEP_MS))
            cx, cy = math.cos(v.dir_rad), math.sin(v.dir_rad)
            for k, a in enumerate(v.accel):
                i = i0 + k
                if i >= n:
                    break
                if i < 0:
                    continue
                zsum = self.tare_z_gmm + f0[i] * self.pawn_z_mm
                fa[i] += a * (self.tare_g + f0[i])
                ma[i] += a * m0[i] - v.horizontal * a * zsum * cx
                ya[i] += a * y0[i] - v.horizontal * a * zsum * cy
        for lean in self.leans:
            i0 = max(0, int(lean.t0_ms / STEP_MS))
            i1 = min(n, int(lean.end_ms / STEP_MS) + 1)
            cx, cy = math.cos(lean.dir_rad), math.sin(lean.dir_rad)
            for i in range(i0, i1):
                b = lean.tilt(i * STEP_MS)
                if not b:
                    continue
                zsum = self.tare_z_gmm + f0[i] * self.pawn_z_mm
                fa[i] -= (self.tare_g + f0[i]) * (1 - math.cos(b))
                ma[i] += math.sin(b) * zsum * cx
                ya[i] += math.sin(b) * zsum * cy
        return fa, ma, ya

    # -- per read ----------------------------------------------------------------------------------
    def reading(self, cell: int, t_end: float, width: float) -> float:
        """Grams added to ``cell``'s reading of the conversion ending at ``t_end`` (``width`` ms long)."""
        cr = self.cells[cell]
        rng = self.rng
        out = 0.0
        if cr.hum_share:
            w = 2 * math.pi * self.mains_hz / 1000
            amp = cr.sigma_g * math.sqrt(2 * cr.hum_share)
            ph = cr.hum_phase
            out += amp * (math.cos(w * (t_end - width) + ph) - math.cos(w * t_end + ph)) / (w * width)
        dt = 0.0 if cr.last_t is None else max(0.0, t_end - cr.last_t) / 1000
        cr.last_t = t_end
        for j, (share, tau) in enumerate(((cr.fast_share, cr.fast_tau_s), (cr.slow_share, cr.slow_tau_s))):
            sd = cr.sigma_g * math.sqrt(share)
            if dt == 0.0 and cr.state[j] == 0.0:
                cr.state[j] = rng.gauss(0, sd)  # stationary from the start
            else:
                a = math.exp(-dt / tau)
                cr.state[j] = a * cr.state[j] + math.sqrt(1 - a * a) * sd * rng.gauss(0, 1)
            out += cr.state[j]
        if cr.warm_g:
            out += cr.warm_g * (1 - math.exp(-t_end / 1000 / self.warm_tau_s))
        for (t0, tau, _amp, _sign), g in zip(self.temp_steps, cr.steps_g, strict=True):
            if t_end > t0:
                out += g * (1 - math.exp(-(t_end - t0) / tau))
        return out

    # -- truth -------------------------------------------------------------------------------------
    def truth(self) -> list[dict[str, Any]]:
        """Records for digging (not scored): vibration, lean and temperature steps."""
        out: list[dict[str, Any]] = []
        for v in self.vibrations:
            out.append(
                {
                    "event": "vibration",
                    "t_ms": int(v.t0_ms),
                    "kind": v.kind,
                    "until_ms": int(v.end_ms),
                    "freq_hz": v.freq_hz,
                    "peak_mg": v.peak_mg,
                }
            )
        for lean in self.leans:
            out.append(
                {
                    "event": "lean",
                    "t_ms": int(lean.t0_ms),
                    "until_ms": int(lean.end_ms),
                    "tilt_deg": round(math.degrees(lean.tilt_rad), 3),
                }
            )
        for j, (t0, tau, _amp, _sign) in enumerate(self.temp_steps):
            out.append(
                {
                    "event": "temperature",
                    "t_ms": int(t0),
                    "tau_ms": int(tau),
                    "zero_shift_g": [round(c.steps_g[j], 3) for c in self.cells],
                }
            )
        return out

    def meta(self) -> dict[str, Any]:
        """The room's summary for the scenario record."""
        return {
            "mains_hz": round(self.mains_hz, 2),
            "hum": self.hum,
            "warm_up_g": [round(c.warm_g, 3) for c in self.cells],
            "warm_up_tau_s": round(self.warm_tau_s),
            "white_share": [round(c.white_share, 3) for c in self.cells],
            "tare_g": round(self.tare_g, 1),
        }


def _poisson(rng: random.Random, mean: float) -> int:
    """A Poisson count of mean ``mean`` (inversion; small means)."""
    k, p, u = 0, math.exp(-mean), rng.random()
    s = p
    while u > s and k < 50:
        k += 1
        p *= mean / k
        s += p
    return k
