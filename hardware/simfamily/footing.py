"""The unit on soft feet on a cloth-covered table (family ``cafe-tablecloth``).

Every other family's unit stands on a rigid table: the cells see the loads on the disc and the
base plate and nothing else. A unit on rubber or felt feet on a tablecloth (a felt underlay under
the cloth, a play mat) is a mass on springs. The cells sit between the *top* (disc, support and
base plate: the tare hidden in the offset) and the *bottom* (bottom plate, the cells' lower
blocks, the feet); the feet carry both. Every load change therefore rings two lightly damped
modes of the whole unit on its feet, and the cells carry the force that accelerates the top:

* **Bounce** (vertical): the feet compress by ``delta`` = 0.25-2.5 mm under the unit's weight
  (log-uniform; rubber feet on a thick cloth to felt pads on a felt underlay), so
  ``f_v = sqrt(g / delta) / 2 pi`` = 10-32 Hz, damping 0.05-0.25 of critical (rubber to felt).
  With ``y`` the feet's extra force (``y'' + 2 zeta w y' + w^2 y = w^2 (F + M a_T)``), the cells read
  ``F - r (F - y - 2 zeta y' / w)``, ``r = m_top / M`` the top's share of the unit's mass.
* **Sway** (rocking about each horizontal axis): the feet's rocking stiffness ``k_v a^2`` (4 feet on
  a rectangle of half-sides ``a``, ``b`` = 60-130 mm by 0.7-1.0 of that, any rotation) or ``k_v r^2/2``
  (3 feet on a ring of 80-150 mm), less gravity's ``sum m H`` (the unit's weight above the feet),
  against the unit's inertia ``J`` about the feet plane: 5-46 Hz, damping 0.8-1.25x the bounce's.
  The cells read ``M - r_r (M - Y - 2 zeta Y' / w) + S Y``: ``r_r = J_top / J`` (the top's inertial
  reaction about the cell plane: ``I_cm + m H z`` of the disc and the base plate), and ``S Y`` the
  unit's tilt ``Y / k`` times the top's ``sum m z`` (its weight shifts by ``z phi`` as the unit leans on
  its feet: an off-centre load reads up to 3 % further out, 0.2 % on the median table).
* **The table's own vibration** (people at the table, the floor under it): a flat vertical
  acceleration spectrum of 7-45 ug/sqrt(Hz) (0.05-0.3 mg RMS over 2-50 Hz) at the feet, which the
  feet isolate above their bounce and amplify near it (``Q = 1/(2 zeta)``).

The masses: bottom 60-1,200 g (bare feet under the cells to a plywood bottom plate), base plate and
support 300-900 g at 5-15 mm above the cell plane (as in every family with a tare), the disc at its
support's height, the cell plane 15-40 mm above the feet plane. All of it acts on the load timeline
(force and the two moments on the 2 ms grid) before the cells average it (``apply``); each mode is
integrated exactly for a load held over each grid step (the modes' frequencies are far below the
grid's 250 Hz Nyquist rate).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from hardware.simfamily.disc import DISC_RADIUS, STEP_MS, G


@dataclass(frozen=True)
class Mode:
    """One damped mode of the unit on its feet, as the cells see it (per load axis)."""

    freq_hz: float
    zeta: float
    share: float  # r: the top's share of the mode's inertia
    lean: float = 0.0  # S: the tilt's moment per unit of the mode's (rocking only)

    def respond(self, u: list[float], drive: list[float] | None = None) -> list[float]:
        """What the cells read of the load ``u`` on the grid (``drive``: the table's, mode units)."""
        w = 2 * math.pi * self.freq_hz
        z = self.zeta
        wd = w * math.sqrt(1 - z * z)
        dt = STEP_MS / 1000.0
        e, c, s = math.exp(-z * w * dt), math.cos(wd * dt), math.sin(wd * dt)
        a11 = e * (c + z * w / wd * s)
        a12 = e * s / wd
        a21 = -e * w * w / wd * s
        a22 = e * (c - z * w / wd * s)
        damp = 2 * z / w
        r, lean = self.share, self.lean
        out = [0.0] * len(u)
        y = (u[0] + (drive[0] if drive else 0.0)) if u else 0.0
        v = 0.0
        for k, uk in enumerate(u):
            wk = uk + drive[k] if drive else uk
            y0, v0 = y, v
            dy = y - wk
            y = wk + a11 * dy + a12 * v
            v = a21 * dy + a22 * v
            # the mean over the step (the timeline holds per-step means): no lag for a slow load
            ym, vm = 0.5 * (y0 + y), 0.5 * (v0 + v)
            out[k] = uk - r * (uk - ym - damp * vm) + lean * ym
        return out


@dataclass(frozen=True)
class Footing:
    """The unit on its feet: a bounce, a sway about two principal axes, the table's vibration."""

    delta_mm: float  # static compression of the feet under the unit
    feet: int  # 3 (ring) or 4 (rectangle)
    feet_mm: tuple[float, float]  # half-sides a, b (4 feet) or (ring radius, same)
    feet_rot_rad: float  # rotation of the rectangle's a axis
    bottom_g: float
    top_g: float  # disc, support and base plate
    cell_plane_mm: float  # above the feet plane
    bounce: Mode
    sway_a: Mode  # the moment along the a axis (stiffness k_v a^2)
    sway_b: Mode
    table_asd: float  # the table's vertical acceleration, g/sqrt(Hz)

    @staticmethod
    def draw(rng: random.Random, *, disc_g: float, disc_z_mm: float, ledge_mm: float) -> Footing:
        """One unit on its feet; ``disc_z_mm``: the disc's centre of mass above the cell plane."""
        delta = math.exp(rng.uniform(math.log(0.25), math.log(2.5)))
        zeta = rng.uniform(0.05, 0.25)
        bottom = rng.uniform(60, 1200)
        plate = rng.uniform(300, 900)
        plate_z = rng.uniform(5, 15)
        h_c = rng.uniform(15, 40)
        feet = rng.choice((3, 4))
        if feet == 3:
            ring = rng.uniform(80, 150)
            a = b = ring / math.sqrt(2)  # three even feet: k_v r^2 / 2 about any axis
            feet_mm = (ring, ring)
        else:
            a = rng.uniform(60, 130)
            b = a * rng.uniform(0.7, 1.0)
            feet_mm = (a, b)
        rot = rng.uniform(0, math.pi)
        r_bottom = max(feet_mm) + rng.uniform(10, 30)
        h_b = rng.uniform(3, 0.6 * h_c)
        top = disc_g + plate
        mass = top + bottom
        # (mass, I about its own horizontal diameter, height above the feet plane) of each part
        parts_top = [
            (disc_g, disc_g * DISC_RADIUS**2 / 4, h_c + disc_z_mm),
            (plate, plate * ledge_mm**2 / 4, h_c + plate_z),
        ]
        j_total = sum(i + m * h * h for m, i, h in parts_top) + bottom * (r_bottom**2 / 4 + h_b * h_b)
        j_top = sum(i + m * h * (h - h_c) for m, i, h in parts_top)
        mz_top = sum(m * (h - h_c) for m, _, h in parts_top)
        wh = sum(m * h for m, _, h in parts_top) + bottom * h_b
        k_v = mass / delta  # g-force per mm
        f_v = math.sqrt(G / delta) / (2 * math.pi)
        zeta_r = min(0.3, zeta * rng.uniform(0.8, 1.25))

        def sway(arm: float) -> Mode:
            k = k_v * arm * arm - wh  # rocking stiffness less gravity's (g*mm per rad)
            return Mode(math.sqrt(k * G / j_total) / (2 * math.pi), zeta_r, j_top / j_total, mz_top / k)

        asd_rms = rng.uniform(0.05, 0.3) / 1000  # over 2-50 Hz
        return Footing(
            delta_mm=delta,
            feet=feet,
            feet_mm=feet_mm,
            feet_rot_rad=rot,
            bottom_g=bottom,
            top_g=top,
            cell_plane_mm=h_c,
            bounce=Mode(f_v, zeta, top / mass),
            sway_a=sway(a),
            sway_b=sway(b),
            table_asd=asd_rms / math.sqrt(48.0),
        )

    def apply(
        self, loads: tuple[list[float], list[float], list[float]], rng: random.Random
    ) -> tuple[list[float], list[float], list[float]]:
        """The load timeline as the cells of the unit on its feet see it (new lists)."""
        fa, ma, ya = loads
        n = len(fa)
        # the table's vertical acceleration, white on the grid at the drawn density, drives the bounce
        sd = self.table_asd * math.sqrt(1000.0 / STEP_MS / 2)
        mass = self.top_g + self.bottom_g
        drive = [mass * rng.gauss(0.0, sd) for _ in range(n)] if n else []
        f = self.bounce.respond(list(fa), drive)
        # the sway about the feet's principal axes
        c, s = math.cos(self.feet_rot_rad), math.sin(self.feet_rot_rad)
        mu = [c * x + s * y for x, y in zip(ma, ya, strict=True)]
        mv = [-s * x + c * y for x, y in zip(ma, ya, strict=True)]
        mu = self.sway_a.respond(mu)
        mv = self.sway_b.respond(mv)
        mx = [c * a - s * b for a, b in zip(mu, mv, strict=True)]
        my = [s * a + c * b for a, b in zip(mu, mv, strict=True)]
        return f, mx, my

    def meta(self) -> dict[str, Any]:
        """The scenario record's summary."""
        return {
            "delta_mm": round(self.delta_mm, 3),
            "feet": self.feet,
            "feet_mm": [round(v, 1) for v in self.feet_mm],
            "bottom_g": round(self.bottom_g, 1),
            "top_g": round(self.top_g, 1),
            "bounce_hz": round(self.bounce.freq_hz, 2),
            "sway_hz": [round(self.sway_a.freq_hz, 2), round(self.sway_b.freq_hz, 2)],
            "zeta": [round(self.bounce.zeta, 3), round(self.sway_a.zeta, 3)],
            "top_share": [round(self.bounce.share, 3), round(self.sway_a.share, 3)],
            "lean_pct": [round(100 * self.sway_a.lean, 3), round(100 * self.sway_b.lean, 3)],
            "table_ug_rthz": round(self.table_asd * 1e6, 1),
        }
