"""The disc and its pawns: statics when level, the tip, sliding pawns, falls and re-levelling.

Model (see docs/simulator.md): the disc (mass ``m_d``, CoM ``h_d`` above its underside) rests on
a flat-topped central pedestal of radius ``r_c`` whose edge is rounded (fillet radius ``rho``).
It stays level while the centre of mass of disc + pawns lies over the pedestal top, i.e. while
the pawns' moment ``|M| <= (m_d + m_pawns) * r_c``, and tips about the pedestal edge otherwise.
While tipping (angle 0 -> ``theta_stop`` in ``T``, ``theta = theta_stop (t/T)^2``) the whole weight
passes through the rolling contact point at ``r_c + rho*theta`` (so the measured centre of
pressure moves outwards) minus the vertical inertia of the falling mass; the rim then strikes
the stop ring of the base (a half-sine impulse from the angular momentum). At the stop the disc
is quasi-static: every mass acts at its tilted horizontal position. Pawns slide downhill when
``tan(theta) > mu_s`` (acceleration ``g (sin - mu_k cos)``), leave the disc past the rim and land
on the table off the platform (mass gone; a small landing knock), or, in a tip knocked over with
``onto_base``, on the base plate just outside the rim, where they stay weighed (:class:`BasePawn`).
The disc rights itself as soon as the centre of mass is back inboard of the pedestal edge.
Anything touching the disc (a finger setting a pawn down, a hand) holds it: tips are checked only
when nothing touches it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from hardware.sim.transients import Oscillation, Pulse, Transient

G_MM_S2 = 9810.0
FOOT_RADIUS_MM = {"small": 6.0, "medium": 7.5, "large": 9.0}
PAWN_HEIGHT_MM = {"small": 7.0, "medium": 9.0, "large": 11.0}


@dataclass
class DiscParams:
    """Mechanical parameters of the disc and its pedestal (randomised per trace)."""

    mass_g: float = 300.0
    radius_mm: float = 150.0
    pedestal_mm: float = 8.0  # r_c: tipping starts when the CoM leaves this radius
    fillet_mm: float = 12.0  # rho: the contact rolls outwards by rho * theta
    com_height_mm: float = 3.0
    stop_deg: float = 13.0
    edge_height_mm: float = 45.0  # fall height of a pawn from the rim to the table

    @classmethod
    def random(cls, rng: random.Random) -> DiscParams:
        """Plausible parameters for one disc."""
        return cls(mass_g=rng.uniform(250, 350), pedestal_mm=rng.uniform(1.5, 4.0),
                   fillet_mm=rng.uniform(3, 10), com_height_mm=rng.uniform(2, 4),
                   stop_deg=rng.uniform(10, 16), edge_height_mm=rng.uniform(35, 60))


@dataclass
class Pawn:
    """A pawn on (or fallen from) the disc; x/y are in the level disc frame."""

    pid: int
    size: str
    mass_g: float
    x_mm: float
    y_mm: float
    mu_s: float
    mu_k: float
    on_disc: bool = True
    slide: tuple[float, float] | None = None  # unit direction while sliding
    speed: float = 0.0
    slide_acc: float | None = None  # forced acceleration (a pawn creeping off without a tip)

    @property
    def z_mm(self) -> float:
        """Height of the pawn's centre of mass above the disc surface."""
        return PAWN_HEIGHT_MM.get(self.size, 9.0) / 2.0


@dataclass
class BasePawn:
    """A pawn that fell off the rim onto the base plate: weighed at (x, y) from ``lands_s`` on."""

    pawn: Pawn
    x_mm: float
    y_mm: float
    lands_s: float


class Disc:
    """The disc with its pawns; ``load(t)`` is the change of (F, Mx, My) from the empty level disc."""

    def __init__(self, params: DiscParams, rng: random.Random, emit: Callable[[dict], None],
                 add_transient: Callable[[Transient], None]) -> None:
        self.p = params
        self._rng = rng
        self._emit = emit
        self._add = add_transient
        self.pawns: list[Pawn] = []
        self.base_pawns: list[BasePawn] = []  # fallen onto the base plate, still weighed
        self.onto_base = False  # the pawns falling in this tip land on the base plate
        self.state = "level"
        self.held = 0
        self._t_state = 0.0
        self._u = (1.0, 0.0)
        self._tip_s = 0.15
        self._right_s = 0.4
        self._theta_stop = math.radians(params.stop_deg)
        self._t_phys = 0.0
        self._pending_tip: float | None = None
        self._creep_at: float | None = None
        self._min_dwell_until = 0.0
        self._settle_at: float | None = None
        self._next_pid = 0
        self._version = 0  # bumped whenever a pawn appears, moves or goes
        self._moment_cache: tuple[int, tuple[float, float, float]] | None = None

    # ----- pawns -------------------------------------------------------------------------------
    def add_pawn(self, size: str, mass_g: float, x: float, y: float) -> Pawn:
        """Put a pawn on the disc (the caller holds the disc while the finger is on it)."""
        pawn = Pawn(self._next_pid, size, mass_g, x, y, mu_s=self._rng.uniform(0.15, 0.5),
                    mu_k=0.0)
        pawn.mu_k = pawn.mu_s * self._rng.uniform(0.6, 0.85)
        self._next_pid += 1
        self.pawns.append(pawn)
        self._version += 1
        return pawn

    def on_disc(self) -> list[Pawn]:
        """Pawns currently on the disc."""
        return [p for p in self.pawns if p.on_disc]

    def lift_pawn(self, pawn: Pawn) -> None:
        """A hand takes a pawn off."""
        pawn.on_disc = False
        pawn.slide = None
        self.pawns.remove(pawn)
        self._version += 1

    def creep_off(self, pawn: Pawn, t: float) -> None:
        """A pawn set too close to the rim slowly slides off by itself (no tip)."""
        r = math.hypot(pawn.x_mm, pawn.y_mm) or 1.0
        pawn.slide = (pawn.x_mm / r, pawn.y_mm / r)
        pawn.speed = 0.0
        pawn.slide_acc = self._rng.uniform(150, 600)

    # ----- state --------------------------------------------------------------------------------
    @property
    def quiet(self) -> bool:
        """Level, not about to tip and not settling after a tip."""
        return self.state == "level" and self._settle_at is None and self._pending_tip is None

    def theta(self, t: float) -> float:
        """Tilt angle (radians) at time ``t``."""
        if self.state == "tipping":
            k = min(1.0, max(0.0, (t - self._t_state) / self._tip_s))
            return self._theta_stop * k * k
        if self.state == "tipped":
            return self._theta_stop
        if self.state == "righting":
            k = min(1.0, max(0.0, (t - self._t_state) / self._right_s))
            return self._theta_stop * (0.5 + 0.5 * math.cos(math.pi * k))
        return 0.0

    def pawn_moment(self) -> tuple[float, float, float]:
        """(mass, Mx, My) of the pawns on the disc, level frame."""
        if self._moment_cache is not None and self._moment_cache[0] == self._version:
            return self._moment_cache[1]
        m = mx = my = 0.0
        for p in self.pawns:
            if p.on_disc:
                m += p.mass_g
                mx += p.mass_g * p.x_mm
                my += p.mass_g * p.y_mm
        self._moment_cache = (self._version, (m, mx, my))
        return m, mx, my

    def check_tip(self, t: float) -> None:
        """Called when something changed: tip soon if the centre of mass left the pedestal."""
        if self.state != "level" or self.held > 0 or self._pending_tip is not None:
            return
        m, mx, my = self.pawn_moment()
        if math.hypot(mx, my) > (self.p.mass_g + m) * self.p.pedestal_mm:
            self._pending_tip = t + self._rng.uniform(0.0, 0.06)

    def knock_over(self, t: float, onto_base: bool = False) -> None:
        """Force a tip now (towards the pawns' moment, or a random side on an empty disc);
        ``onto_base``: the pawns that fall in this tip land on the base plate and stay there."""
        if self.state != "level":
            return
        self.onto_base = onto_base
        self._start_tip(t, forced=True)

    def pick_up_base(self, item: BasePawn) -> None:
        """A hand takes a pawn lying on the base plate away."""
        self.base_pawns.remove(item)

    def _start_tip(self, t: float, forced: bool = False) -> None:
        m, mx, my = self.pawn_moment()
        norm = math.hypot(mx, my)
        if norm < 1e-6:
            a = self._rng.uniform(0, 2 * math.pi)
            self._u = (math.cos(a), math.sin(a))
        else:
            self._u = (mx / norm, my / norm)
        self.state = "tipping"
        self._t_state = t
        self._tip_s = self._rng.uniform(0.10, 0.25)
        self._pending_tip = None
        self._creep_at = None
        self._min_dwell_until = t + self._tip_s + (self._rng.uniform(0.3, 0.8) if forced else 0.0)
        self._emit({"event": "tipped", "t_ms": int(round(t * 1000))})

    def _arrive_stop(self, t: float) -> None:
        self.state = "tipped"
        self._t_state = t
        omega = 2 * self._theta_stop / self._tip_s
        rc, big_r = self.p.pedestal_mm, self.p.radius_mm
        inertia = self.p.mass_g * (big_r ** 2 / 4 + rc ** 2)
        for p in self.on_disc():
            s = p.x_mm * self._u[0] + p.y_mm * self._u[1]
            inertia += p.mass_g * ((s - rc) ** 2 + p.z_mm ** 2)
        lever = big_r - rc
        width = self._rng.uniform(0.008, 0.025)
        impulse = inertia * omega / lever  # g*mm/s
        peak = impulse * math.pi / (2 * width) / G_MM_S2  # grams-force
        self._add(Pulse(t, peak, width, big_r * self._u[0], big_r * self._u[1]))
        self._add(Oscillation(t + width, peak * 0.08, self._rng.uniform(15, 30), 0.04,
                              big_r * self._u[0] * 0.5, big_r * self._u[1] * 0.5))

    def _moment_tilted(self, theta: float) -> float:
        """Moment of the whole disc about the pedestal edge along u, tilted frame (>0: stays tipped)."""
        ux, uy = self._u
        rc = self.p.pedestal_mm
        c, s_ = math.cos(theta), math.sin(theta)
        total = self.p.mass_g * (-rc * c + self.p.com_height_mm * s_)
        for p in self.pawns:
            if p.on_disc:
                d = p.x_mm * ux + p.y_mm * uy - rc
                total += p.mass_g * (d * c + p.z_mm * s_)
        return total

    # ----- time --------------------------------------------------------------------------------
    def advance(self, t: float) -> None:
        """Integrate the mechanics up to time ``t`` (seconds)."""
        while self._t_phys < t:
            busy = self.state != "level" or any(p.slide for p in self.pawns if p.on_disc)
            if not busy and self._pending_tip is None and self._settle_at is None:
                self._t_phys = t
                return
            step = min(0.002, t - self._t_phys) if busy else t - self._t_phys
            if not busy:
                nxt = min(x for x in (self._pending_tip, self._settle_at) if x is not None)
                step = max(0.0, min(step, nxt - self._t_phys))
            self._t_phys += step
            self._tick(self._t_phys, step)

    def _tick(self, t: float, dt: float) -> None:
        if self._pending_tip is not None and t >= self._pending_tip and self.state == "level":
            if self.held > 0:
                self._pending_tip = None
            else:
                self._start_tip(self._pending_tip)
        if self._settle_at is not None and t >= self._settle_at:
            self._emit({"event": "settled", "t_ms": int(round(self._settle_at * 1000))})
            self._settle_at = None
        theta = self.theta(t)
        self._slide(t, dt, theta)
        if self.state == "tipping" and t - self._t_state >= self._tip_s:
            self._arrive_stop(self._t_state + self._tip_s)
        elif self.state == "tipped":
            if t >= self._min_dwell_until and self._moment_tilted(theta) < 0:
                self.state = "righting"
                self._t_state = t
                self._right_s = self._rng.uniform(0.25, 0.6)
                for p in self.pawns:
                    if p.slide_acc is None:
                        p.slide = None
                        p.speed = 0.0
            elif not any(p.slide for p in self.on_disc()):
                self._creep(t)
        elif self.state == "righting" and t - self._t_state >= self._right_s:
            self.state = "level"
            self.onto_base = False
            end = self._t_state + self._right_s
            self._add(Oscillation(end, self._rng.uniform(0.5, 3.0), self._rng.uniform(8, 20), 0.05))
            self._settle_at = end + 0.3
            self.check_tip(t)

    def _creep(self, t: float) -> None:
        """Stuck at the stop with nothing sliding: vibration breaks the outermost pawn loose."""
        if self._creep_at is None:
            self._creep_at = t + self._rng.uniform(0.15, 0.5)
            return
        if t < self._creep_at:
            return
        self._creep_at = None
        ux, uy = self._u
        candidates = self.on_disc()
        if not candidates:
            return
        pawn = max(candidates, key=lambda p: p.x_mm * ux + p.y_mm * uy)
        pawn.mu_k = min(pawn.mu_k, 0.7 * math.tan(self._theta_stop))
        pawn.slide = self._u
        pawn.speed = 0.0

    def _slide(self, t: float, dt: float, theta: float) -> None:
        tan_t = math.tan(theta)
        for p in self.pawns:
            if not p.on_disc:
                continue
            if p.slide_acc is not None:
                acc = p.slide_acc
            elif theta > 0 and self.state in ("tipping", "tipped"):
                if p.slide is None:
                    if tan_t <= p.mu_s:
                        continue
                    p.slide = self._u
                acc = G_MM_S2 * (math.sin(theta) - p.mu_k * math.cos(theta))
                if acc <= 0 and p.speed <= 0:
                    continue
            else:
                continue
            assert p.slide is not None
            self._version += 1
            p.speed = max(0.0, p.speed + acc * dt)
            p.x_mm += p.slide[0] * p.speed * dt
            p.y_mm += p.slide[1] * p.speed * dt
            if math.hypot(p.x_mm, p.y_mm) > self.p.radius_mm:
                self._fall(p, t)
        if any(not p.on_disc for p in self.pawns):
            self.pawns = [p for p in self.pawns if p.on_disc]  # long live sessions stay fast

    def _fall(self, pawn: Pawn, t: float) -> None:
        pawn.on_disc = False
        pawn.slide = None
        self._version += 1
        if self.onto_base and self.state != "level":
            self._land_on_base(pawn, t)
            return
        t_land = t + math.sqrt(2 * self.p.edge_height_mm / G_MM_S2)
        self._emit({"event": "fell", "t_ms": int(round(t * 1000)), "pawns": {pawn.size: 1},
                    "mass_g": round(pawn.mass_g, 3), "pid": pawn.pid,
                    "from_mm": [round(pawn.x_mm, 1), round(pawn.y_mm, 1)],
                    "lands_t_ms": int(round(t_land * 1000))})
        self._add(Oscillation(t_land, pawn.mass_g * self._rng.uniform(0.1, 0.5),
                              self._rng.uniform(20, 40), 0.02))
        if self.state == "level":
            self.check_tip(t)

    def _land_on_base(self, pawn: Pawn, t: float) -> None:
        """The pawn drops from the low rim (resting on the stop ring) onto the base plate, 5-15 mm
        below, lands 3-12 mm outside the rim with an impact (its momentum over 3-10 ms) and stays."""
        drop_mm = self._rng.uniform(5.0, 15.0)
        t_land = t + math.sqrt(2 * drop_mm / G_MM_S2)
        r = math.hypot(pawn.x_mm, pawn.y_mm) or 1.0
        out = self.p.radius_mm + self._rng.uniform(3.0, 12.0)
        x, y = pawn.x_mm / r * out, pawn.y_mm / r * out
        self.base_pawns.append(BasePawn(pawn, x, y, t_land))
        width = self._rng.uniform(0.003, 0.010)
        momentum = pawn.mass_g * math.sqrt(2 * G_MM_S2 * drop_mm)  # g*mm/s
        self._add(Pulse(t_land, momentum * math.pi / (2 * width) / G_MM_S2, width, x, y))
        self._emit({"event": "fell", "t_ms": int(round(t * 1000)), "pawns": {pawn.size: 1},
                    "mass_g": round(pawn.mass_g, 3), "pid": pawn.pid,
                    "from_mm": [round(pawn.x_mm, 1), round(pawn.y_mm, 1)],
                    "lands_t_ms": int(round(t_land * 1000)), "lands_on": "base"})

    def _base_load(self, t: float) -> tuple[float, float, float]:
        m = mx = my = 0.0
        for b in self.base_pawns:
            if t >= b.lands_s:
                m += b.pawn.mass_g
                mx += b.pawn.mass_g * b.x_mm
                my += b.pawn.mass_g * b.y_mm
        return m, mx, my

    # ----- measured load ------------------------------------------------------------------------
    def load(self, t: float) -> tuple[float, float, float]:
        """Change of (F, Mx, My) seen by the base, relative to the empty level disc (the tare)."""
        disc = self._disc_load(t)
        if not self.base_pawns:
            return disc
        base = self._base_load(t)
        return disc[0] + base[0], disc[1] + base[1], disc[2] + base[2]

    def _disc_load(self, t: float) -> tuple[float, float, float]:
        if self.state == "level":
            return self.pawn_moment()
        theta = self.theta(t)
        ux, uy = self._u
        vx, vy = -uy, ux
        rc, rho = self.p.pedestal_mm, self.p.fillet_mm
        c, s_ = math.cos(theta), math.sin(theta)
        edge = rc + rho * theta
        md, hd = self.p.mass_g, self.p.com_height_mm
        w_total = md
        along = md * (edge - rc * c + hd * s_)
        across = 0.0
        big_d = -md * rc
        big_z = md * hd
        for p in self.pawns:
            if not p.on_disc:
                continue
            s = p.x_mm * ux + p.y_mm * uy
            w = p.x_mm * vx + p.y_mm * vy
            w_total += p.mass_g
            along += p.mass_g * (edge + (s - rc) * c + p.z_mm * s_)
            across += p.mass_g * w
            big_d += p.mass_g * (s - rc)
            big_z += p.mass_g * p.z_mm
        if self.state == "tipping":
            # rotation about the pedestal edge: all weight through the contact point, minus inertia
            k = (t - self._t_state) / self._tip_s
            th2 = 2 * self._theta_stop / self._tip_s ** 2  # theta''
            th1 = th2 * (t - self._t_state)  # theta'
            acc_z = (-big_d * c - big_z * s_) * th2 + (big_d * s_ - big_z * c) * th1 * th1
            force = w_total - acc_z / G_MM_S2
            along = force * edge
            across = force * (across / w_total) if k < 1 else across
            return force - md, along * ux + across * vx, along * uy + across * vy
        return w_total - md, along * ux + across * vx, along * uy + across * vy
