"""Player actions on the simulated table: placements, removals, hands, bumps, slide-offs, tips.

``Table`` keeps the script state (time cursor, pawns, truth) and writes every action's loads
into the ``LoadTimeline``. Actions run one after another (one pair of hands at a time);
bumps can happen at any moment.
"""

from __future__ import annotations

import math
import random

from companion.sensing.layout import DiscLayout
from hardware.sim_alt.loads import STEP_MS, LoadTimeline
from hardware.sim_alt.mechanics import (
    DISC_RADIUS,
    PAWN_RADIUS,
    Build,
    Landed,
    Pawn,
    capacity,
    moment,
    tip_episode,
    tips,
)
from hardware.sim_alt.transients import (
    bump_profile,
    hand_profile,
    press_profile,
    pulse_profile,
    ramp_profile,
)


def on_line(layout: DiscLayout, x: float, y: float, radius: float) -> bool:
    """Whether a pawn footprint of ``radius`` at (x, y) touches a line, the centre disc or the rim."""
    r = math.hypot(x, y)
    edges = layout.ring_edges_mm
    if r < edges[0] + radius or r > edges[-1] - radius:
        return True
    if any(abs(r - e) < radius for e in edges[1:-1]):
        return True
    angle = (math.degrees(math.atan2(y, x)) - layout.start_deg) % layout.sector_deg
    off = min(angle, layout.sector_deg - angle)
    return r * math.sin(math.radians(off)) < radius


class Table:
    """The script state of one simulated session."""

    def __init__(self, rng: random.Random, build: Build, layout: DiscLayout, timeline: LoadTimeline,
                 masses: dict[str, float]) -> None:
        self.rng = rng
        self.build = build
        self.layout = layout
        self.tl = timeline
        self.masses = masses
        self.t = 1500.0
        self.pawns: list[Pawn] = []
        self.landed: list[Landed] = []
        self.truth: list[dict] = []
        self.next_pid = 1
        self.last_placed: Pawn | None = None

    # -- helpers -----------------------------------------------------------------------------
    def new_pawn(self, size: str, x: float, y: float) -> Pawn:
        """A pawn of ``size`` with its own mass (mean +-3 %) and friction."""
        dev = max(-0.03, min(0.03, self.rng.gauss(0, 0.015)))
        pawn = Pawn(self.next_pid, size, self.masses[size] * (1 + dev), x, y, self.rng.uniform(0.06, 0.3))
        self.next_pid += 1
        return pawn

    def spot(self, zone: str, number: int) -> tuple[float, float]:
        """Where a player puts a pawn for (zone, number): near the centre, sometimes on a line."""
        rng, lay = self.rng, self.layout
        i = lay.numbers.index(number)
        r_lo, r_hi = lay.ring_edges_mm[i], lay.ring_edges_mm[i + 1]
        k = lay.zones.index(zone)
        a_lo = lay.start_deg + k * lay.sector_deg
        r = (r_lo + r_hi) / 2 + rng.gauss(0, 3.5)
        a = math.radians(a_lo + lay.sector_deg / 2)
        tang = rng.gauss(0, 4.0)
        u = rng.random()
        if u < 0.07:    # on a ring line
            r = rng.choice((r_lo, r_hi)) + rng.uniform(-2, 2)
        elif u < 0.14:  # on a zone line
            a = math.radians(rng.choice((a_lo, a_lo + lay.sector_deg)))
            tang = rng.uniform(-2, 2)
        r = min(r, DISC_RADIUS - 3)
        return r * math.cos(a) - tang * math.sin(a), r * math.sin(a) + tang * math.cos(a)

    def _press(self, t0: float, peak: float, dur: float, x: float, y: float) -> float:
        prof = press_profile(self.rng, peak, dur)
        self.tl.add_point_force(t0, prof, x + self.rng.gauss(0, 2), y + self.rng.gauss(0, 2))
        return t0 + (len(prof) - 1) * STEP_MS

    def bump(self, t_at: float, amplitude: float | None = None) -> None:
        """A table knock at ``t_at`` (any moment): no lasting change."""
        amp = amplitude if amplitude is not None else self.rng.uniform(5, 40)
        force, lx, ly, rock = bump_profile(self.rng, amp)
        self.tl.add(t_at, force, [r * lx for r in rock], [r * ly for r in rock])
        self.truth.append({"event": "bump", "t_ms": int(t_at), "amplitude_g": round(amp, 1)})

    # -- actions -------------------------------------------------------------------------------
    def place(self, size: str, x: float, y: float, creep_ok: bool = True) -> bool:
        """Approach, touch down, press, release; then a tip if the disc cannot carry it. True if it tipped."""
        rng = self.rng
        self.t += rng.uniform(300, 900)  # the hand approaching
        pawn = self.new_pawn(size, x, y)
        ramp = ramp_profile(rng, pawn.mass)
        self.tl.add_point_force(self.t, ramp[:-1], x, y)
        self.tl.step(self.t + (len(ramp) - 1) * STEP_MS, pawn.mass, pawn.mass * x, pawn.mass * y)
        release = self._press(self.t + rng.uniform(0, 30), rng.uniform(30, 250), rng.uniform(80, 600), x, y)
        zone, number = self.layout.locate(x, y)
        self.truth.append({"event": "placed", "t_ms": int(release), "size": size,
                           "mass_g": round(pawn.mass, 3), "x_mm": round(x, 1), "y_mm": round(y, 1),
                           "zone": zone, "number": number,
                           "on_line": on_line(self.layout, x, y, PAWN_RADIUS[size]), "pid": pawn.pid})
        self.pawns.append(pawn)
        self.last_placed = pawn
        self.t = release
        if tips(self.build, self.pawns):
            self.tip(release + rng.uniform(5, 60))
            return True
        if creep_ok and math.hypot(x, y) > 140 and rng.random() < 0.35:
            self.slide_off(pawn)
        self.t += rng.uniform(300, 800)
        return False

    def tip(self, onset: float) -> None:
        """The disc overturns at ``onset``; falls, landing, re-levelling (mechanics.tip_episode)."""
        ep = tip_episode(self.rng, self.build, self.pawns, int(onset), self.tl)
        self.truth.extend(ep.truth)
        self.pawns = ep.survivors
        self.t = ep.end_ms + self.rng.uniform(200, 600)
        for item in ep.landed:  # a player picks the pawns up from the base later
            if item.t_off is None:
                self.t += self.rng.uniform(500, 2500)
                self.pick_up(item)

    def pick_up(self, item: Landed) -> None:
        """Lift a fallen pawn off the base plate (not the disc: no ``removed``)."""
        end = self._press(self.t, self.rng.uniform(5, 30), self.rng.uniform(100, 300), item.x, item.y)
        m = item.pawn.mass
        self.tl.step(end, -m, -m * item.x, -m * item.y)
        self.truth.append({"event": "picked_up", "t_ms": int(end), "pid": item.pawn.pid})
        self.t = end + self.rng.uniform(300, 800)

    def slide_off(self, pawn: Pawn) -> None:
        """A pawn set down at the rim creeps outwards and falls alone (no tip), if the disc allows it."""
        rng, b = self.rng, self.build
        r0 = math.hypot(pawn.x, pawn.y)
        ux, uy = pawn.x / r0, pawn.y / r0
        rest = [p for p in self.pawns if p is not pawn]
        at_rim = rest + [Pawn(pawn.pid, pawn.size, pawn.mass, ux * DISC_RADIUS, uy * DISC_RADIUS, 0.0)]
        if tips(b, at_rim):
            return
        start = self.t + rng.uniform(300, 3000)
        speed = rng.uniform(15, 60)  # mm/s
        n = max(1, int((DISC_RADIUS - r0) / speed * 1000 / STEP_MS))
        dr = [(DISC_RADIUS - r0) * (k / n) ** 1.5 for k in range(n)]
        m = pawn.mass
        self.tl.add(start, [0.0] * n, [m * d * ux for d in dr], [m * d * uy for d in dr])
        t_fall = start + n * STEP_MS
        self.tl.step(t_fall, -m, -m * pawn.x, -m * pawn.y)
        self.pawns = rest
        record = {"event": "fell", "t_ms": int(t_fall), "pawns": {pawn.size: 1}, "mass_g": round(m, 3),
                  "pid": pawn.pid, "from_mm": [round(ux * DISC_RADIUS, 1), round(uy * DISC_RADIUS, 1)]}
        if b.ledge_r > DISC_RADIUS + 8:
            land = int(t_fall + 1000 * math.sqrt(2 * 8 / 9810))
            lx, ly = ux * (DISC_RADIUS + 4), uy * (DISC_RADIUS + 4)
            self.tl.add_point_force(land, pulse_profile(m * 400 / 9810 * 1000, rng.uniform(3, 10)), lx, ly)
            self.tl.step(land, m, m * lx, m * ly)
            record.update(lands_t_ms=land, lands_on="base")
            self.truth.append(record)
            self.t = land + rng.uniform(800, 2000)
            self.pick_up(Landed(pawn, lx, ly, land))
            return
        land = int(t_fall + 1000 * math.sqrt(2 * (b.pivot_h + b.drop_to_table) / 9810))
        force, lx, ly, rock = bump_profile(rng, m * rng.uniform(0.05, 0.3))
        self.tl.add(land, force, [r * lx for r in rock], [r * ly for r in rock])
        record.update(lands_t_ms=land, lands_on="table")
        self.truth.append(record)
        self.t = land + rng.uniform(800, 2000)

    def remove(self, pawn: Pawn) -> None:
        """Lift a pawn off the disc by hand: a light pinch, then its weight goes."""
        rng = self.rng
        self.t += rng.uniform(300, 900)
        end = self._press(self.t, rng.uniform(5, 40), rng.uniform(100, 300), pawn.x, pawn.y)
        lift = ramp_profile(rng, pawn.mass)
        m = pawn.mass
        self.tl.add_point_force(end, [m - v for v in lift[:-1]], pawn.x, pawn.y)
        gone = end + (len(lift) - 1) * STEP_MS
        self.tl.step(end, -m, -m * pawn.x, -m * pawn.y)
        self.pawns = [p for p in self.pawns if p is not pawn]
        self.truth.append({"event": "removed", "t_ms": int(gone), "size": pawn.size, "mass_g": round(m, 3),
                           "pid": pawn.pid})
        self.t = gone + rng.uniform(300, 800)

    def hand(self) -> None:
        """A hand presses on (or lifts) the disc for 0.3-6 s; the disc is held level meanwhile."""
        rng = self.rng
        self.t += rng.uniform(200, 800)
        a = rng.uniform(0, 2 * math.pi)
        if rng.random() < 0.8:
            force, r = rng.uniform(50, 1000), rng.uniform(40, 148)
        else:
            force, r = -rng.uniform(20, 150), rng.uniform(130, 148)
        dur = rng.uniform(300, 6000)
        prof = hand_profile(rng, force, dur)
        wf, wp = rng.uniform(0.1, 0.5), rng.uniform(0, 6.3)
        phases = [2 * math.pi * wf * k * STEP_MS / 1000 + wp for k in range(len(prof))]
        xs = [r * math.cos(a) + 8 * math.sin(ph) for ph in phases]  # the hand wanders a little
        ys = [r * math.sin(a) + 8 * math.cos(ph) for ph in phases]
        self.tl.add_point_force(self.t, prof, xs, ys)
        end = self.t + (len(prof) - 1) * STEP_MS
        self.truth.append({"event": "hand", "t_ms": int(self.t), "duration_ms": int(end - self.t),
                           "force_g": round(force, 1)})
        self.truth.append({"event": "settled", "t_ms": int(end + 300)})
        self.t = end + rng.uniform(400, 1000)

    def best_size(self, available: list[str], x: float, y: float) -> str:
        """The size a careful player picks: the one leaving the disc furthest from its limit."""
        def margin(size: str) -> float:
            trial = self.pawns + [Pawn(0, size, self.masses[size], x, y, 0.2)]
            _, mx, my = moment(trial)
            return math.hypot(mx, my) / capacity(self.build, trial)
        return min(available, key=margin)
