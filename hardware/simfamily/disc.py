"""The disc on its support: geometry, the tilt integrated from the torques, base loads by Newton-Euler.

One model covers the three supports of docs/simulator-families.md:

* ``pedestal``: a flat top of radius ``flat_mm`` with a sharp (or slightly rounded) edge;
* ``pivot``: a point pivot (``flat_mm`` 0) with a preloaded return spring (``preload_gmm`` plus
  ``spring_gmm_per_rad`` per radian of tilt);
* ``rocker``: a short flat under the hub, then a curved bottom of radius ``curve_mm`` that rolls
  outwards as the disc tilts.

The disc tilts by ``theta`` (radians, positive: the +u rim goes down) in the vertical plane of a
unit direction ``u`` fixed for an episode. A body point at ``s`` along ``u`` and height ``z``
above the contact plane moves to the world position given by ``place()`` (rolling of an arc of
radius ``curve_mm`` that starts at ``flat_mm``; ``curve_mm = 0`` is a sharp edge). The disc is held
level while the moment about its centre stays within ``hold()``; past it the disc rotates about the
contact with ``I theta'' = g (sum m (x - x_c) + torques of fingers/hands) - spring - rim - damping``.
The rim lands on the base's stop (a damped contact: hard, felt, ringing or bouncing). Every mass
and the stop are on the base plate, so the cells see (Newton-Euler, grams-force and g*mm):
``F = sum m (1 + z''/g)``, ``M_u = sum m (x (1 + z''/g) - z x''/g)`` plus the fingers and hands.
Averages over each 2 ms grid step are computed exactly from the change of momentum
(``sum m z'``) and of ``sum m (x z' - z x')``, so impacts keep their impulse.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

G = 9810.0  # mm/s^2
DISC_RADIUS = 150.0  # mm
STEP_MS = 2  # grid of the load timeline
PAWN_FOOT_MM = {"small": 6.0, "medium": 7.5, "large": 9.0}
PAWN_HEIGHT_MM = {"small": 10.0, "medium": 13.0, "large": 16.0}

# (force_g, s_mm, v_mm) of every finger or hand touching the disc at a time (ms); down positive
ExternalForces = Callable[[float], list[tuple[float, float, float]]]


@dataclass(frozen=True)
class Support:
    """The support under the disc and the stop ring its rim lands on."""

    kind: str  # pedestal | pivot | rocker
    flat_mm: float  # half width of the flat top (pedestal edge / rocker flat)
    curve_mm: float  # radius of the rolling arc beyond the flat (0: sharp edge)
    preload_gmm: float  # return-spring preload (pivot): held level until exceeded
    spring_gmm_per_rad: float  # return-spring stiffness
    com_mm: float  # the disc's own centre of mass above the contact plane
    top_mm: float  # the disc's top surface (where pawns stand) above the contact plane
    height_mm: float  # contact plane above the cell plane (base top)
    stop_rad: float  # tilt at which the low rim meets the stop
    rim: str  # hard | felt | ringing | bounce
    rim_half_ms: float  # half period of the rim contact
    rim_zeta: float  # damping ratio of the rim contact
    damping: float  # viscous damping of the support, fraction of critical at the stop
    creep_ms: float = 0.0  # compliant top: viscoelastic time constant (0: rigid)
    creep_rad: float = 0.0  # compliant top: lean (rad) into it at the hold limit
    creep_frac: float = 0.0  # compliant top: share of the hold lost as it creeps under a load

    def hold(self, weight_g: float) -> float:
        """Largest moment (g*mm) the level disc carries: the flat top plus the spring preload."""
        return weight_g * self.flat_mm + self.preload_gmm

    def place(self, s: float, z: float, th: float) -> tuple[float, float, float, float]:
        """World (x, z) of body point (s, z) at tilt ``th`` and the derivatives dx/dth, dz/dth."""
        sg = 1.0 if th >= 0 else -1.0
        a = abs(th)
        ca, sa = math.cos(a), math.sin(a)
        rs, rho = self.flat_mm, self.curve_mm
        ds = s - sg * rs
        dz = z - rho
        x = sg * (rs + rho * a) + ds * ca + sg * dz * sa
        zw = rho - sg * ds * sa + dz * ca
        dxa = sg * rho - ds * sa + sg * dz * ca
        dza = -sg * ds * ca - dz * sa
        return x, zw, dxa * sg, dza * sg

    def contact(self, th: float) -> float:
        """x of the support contact at tilt ``th``."""
        if th == 0:
            return 0.0
        sg = 1.0 if th > 0 else -1.0
        return sg * (self.flat_mm + self.curve_mm * abs(th))

    def spring(self, th: float) -> float:
        """Return-spring torque (g*mm) at tilt ``th`` (opposes the tilt)."""
        if th == 0 or (self.preload_gmm == 0 and self.spring_gmm_per_rad == 0):
            return 0.0
        sg = 1.0 if th > 0 else -1.0
        return -sg * (self.preload_gmm + self.spring_gmm_per_rad * abs(th))


@dataclass
class Body:
    """A point mass on the disc: a pawn (``pid`` >= 0) or one half of the disc (``pid`` < 0)."""

    pid: int
    mass: float
    s: float  # along u, level-disc frame (mm)
    v: float  # across u (mm)
    z: float  # height of its centre of mass above the contact plane
    mu_s: float = 0.0
    mu_k: float = 0.0
    size: str = ""
    speed: float = 0.0  # sliding speed along +u (mm/s), body frame
    sliding: bool = False
    on: bool = True


@dataclass
class Fall:
    """A pawn leaving the disc over the rim."""

    pid: int
    t_ms: float
    s: float
    v: float
    speed_mm_s: float


@dataclass
class EpisodeResult:
    """The loads of an episode on the grid (relative to the empty level disc) and what happened."""

    t0_ms: float
    f: list[float] = field(default_factory=list)
    mu: list[float] = field(default_factory=list)
    mv: list[float] = field(default_factory=list)
    falls: list[Fall] = field(default_factory=list)
    theta: list[float] = field(default_factory=list)
    end: str = ""  # level | tipped | timeout
    end_ms: float = 0.0
    rim_ms: float | None = None
    rim_impulse: float = 0.0  # g*s delivered by the stop
    onset_ms: float | None = None


def disc_bodies(mass_g: float, com_mm: float) -> list[Body]:
    """The disc as two halves at +-R/2 (inertia about a diameter m R^2 / 4)."""
    return [
        Body(-1, mass_g / 2, DISC_RADIUS / 2, 0.0, com_mm),
        Body(-2, mass_g / 2, -DISC_RADIUS / 2, 0.0, com_mm),
    ]


def level_moment(bodies: list[Body], ext: list[tuple[float, float, float]]) -> tuple[float, float]:
    """(M_u, M_v) about the centre of the level disc, pawns and contacts (g*mm)."""
    mu = sum(b.mass * b.s for b in bodies if b.on) + sum(f * s for f, s, _ in ext)
    mv = sum(b.mass * b.v for b in bodies if b.on) + sum(f * v for f, _, v in ext)
    return mu, mv


class Integrator:
    """Integrates one tilt episode of the disc and records the base loads on the grid."""

    def __init__(
        self,
        sup: Support,
        bodies: list[Body],
        ext: ExternalForces,
        t0_ms: float,
        th0: float = 0.0,
        om0: float = 0.0,
        dt_ms: float = 0.5,
    ) -> None:
        self.sup = sup
        self.bodies = bodies
        self.ext = ext
        self.t = t0_ms
        self.th = th0
        self.om = om0
        self.dt = dt_ms
        self.res = EpisodeResult(t0_ms)
        self._contrib: dict[int, tuple[float, float, float]] = {}
        self._start = self._sums()
        self._m_disc = sum(b.mass for b in bodies if b.pid < 0)
        self.prescribed: Callable[[float], tuple[float, float, float]] | None = None
        self.hand_s: float = 0.0
        self.hand_force: list[float] = []
        self._agg: tuple[float, float, float, float, float] | None = None
        self._alpha = 0.0

    # -- kinematics ------------------------------------------------------------------------------
    def _state(self, b: Body) -> tuple[float, float, float, float]:
        x, zw, dxa, dza = self.sup.place(b.s, b.z, self.th)
        ca, sa = math.cos(abs(self.th)), math.sin(abs(self.th))
        sg = 1.0 if self.th >= 0 else -1.0
        vs = b.speed if b.sliding else 0.0
        xd = dxa * self.om + ca * vs
        zd = dza * self.om - sg * sa * vs
        return x, zw + self.sup.height_mm, xd, zd

    def _sums(self) -> tuple[float, float, float]:
        pz = pv = lm = 0.0
        self._contrib = {}
        for b in self.bodies:
            if not b.on:
                continue
            x, z, xd, zd = self._state(b)
            c = (b.mass * zd, b.mass * b.v * zd, b.mass * (x * zd - z * xd))
            self._contrib[id(b)] = c
            pz += c[0]
            pv += c[1]
            lm += c[2]
        return pz, pv, lm

    def _aggregates(self) -> tuple[float, float, float, float, float]:
        """(M, sum m s, sum m s^2, sum m (z - rho), sum m (z - rho)^2) of the masses on the disc."""
        if self._agg is None:
            rho = self.sup.curve_mm
            m = s1 = s2 = z1 = z2 = 0.0
            for b in self.bodies:
                if b.on:
                    dz = b.z - rho
                    m += b.mass
                    s1 += b.mass * b.s
                    s2 += b.mass * b.s * b.s
                    z1 += b.mass * dz
                    z2 += b.mass * dz * dz
            self._agg = (m, s1, s2, z1, z2)
        return self._agg

    def inertia(self) -> float:
        """Moment of inertia (g*mm^2) of every mass about the support contact."""
        m, s1, s2, z1, z2 = self._aggregates()
        sg = 1.0 if self.th >= 0 else -1.0
        a = abs(self.th)
        rs, rho = self.sup.flat_mm, self.sup.curve_mm
        ds1 = s1 - sg * rs * m
        ds2 = s2 - 2 * sg * rs * s1 + rs * rs * m
        return ds2 + z2 + rho * rho * m + 2 * rho * (-sg * math.sin(a) * ds1 + math.cos(a) * z1)

    def torque(self, t: float) -> float:
        """Driving torque (g*mm) about the contact: gravity, contacts, spring (no rim, no damping)."""
        m, s1, _, z1, _ = self._aggregates()
        sg = 1.0 if self.th >= 0 else -1.0
        a = abs(self.th)
        ca, sa = math.cos(a), math.sin(a)
        tau = ca * (s1 - sg * self.sup.flat_mm * m) + sg * sa * z1
        ext = self.ext(t)
        if ext:
            xc = self.sup.contact(self.th)
            for f, s, _ in ext:
                x, _, _, _ = self.sup.place(s, self.sup.top_mm, self.th)
                tau += f * (x - xc)
        return tau + self.sup.spring(self.th)

    # -- one step ----------------------------------------------------------------------------------
    def _rim(self, inertia: float) -> tuple[float, float]:
        """(torque, force on the rim) of the stop when the low rim is on it."""
        sup = self.sup
        a = abs(self.th)
        if a <= sup.stop_rad:
            return 0.0, 0.0
        sg = 1.0 if self.th > 0 else -1.0
        w0 = math.pi / (sup.rim_half_ms / 1000.0)
        k = inertia * w0 * w0 / G  # g*mm per rad (torque units of g*mm)
        c = 2 * sup.rim_zeta * math.sqrt(k * inertia / G)
        tau = k * (a - sup.stop_rad) + c * self.om * sg
        tau = max(0.0, tau)  # a contact pushes only
        return -sg * tau, tau / DISC_RADIUS

    def step(self) -> None:
        """Advance one substep (semi-implicit Euler), sliding pawns and falls included."""
        sup = self.sup
        dt = self.dt / 1000.0
        t = self.t
        if self.prescribed is not None:
            th, om, al = self.prescribed(t + self.dt)
            inertia = self.inertia()
            need = inertia * al / G - self.torque(t)
            xh, _, _, _ = sup.place(self.hand_s, sup.top_mm, self.th)
            lever = xh - sup.contact(self.th)
            self.hand_force.append(need / lever if abs(lever) > 1 else 0.0)
            self.th, self.om = th, om
        else:
            inertia = max(self.inertia(), 1.0)
            rim_tau, _ = self._rim(inertia)
            if self.th == 0:  # level on the flat top: held while the moment is within the hold
                mu, _ = level_moment(self.bodies, self.ext(t))
                weight = sum(b.mass for b in self.bodies if b.on) + sum(f for f, _, _ in self.ext(t))
                if abs(mu) <= sup.hold(weight):
                    self.om = 0.0
                    self._slide(t, dt)
                    self.t = t + self.dt
                    return
                self.th = math.copysign(1e-7, mu)
            tau = self.torque(t) + rim_tau - sup.damping * 20.0 * inertia / G * self.om
            al = tau * G / inertia
            self._alpha = al
            self.om += al * dt
            new = self.th + self.om * dt
            if new * self.th <= 0:  # back on the flat top: it lands level
                self.th, self.om = 0.0, 0.0
            else:
                self.th = new
            if abs(self.th) > sup.stop_rad and self.res.rim_ms is None:
                self.res.rim_ms = t
            if rim_tau:
                self.res.rim_impulse += abs(rim_tau) / DISC_RADIUS * dt
        self._slide(t, dt)
        self.t = t + self.dt

    def _slide(self, t: float, dt: float) -> None:
        a = abs(self.th)
        sg = 1.0 if self.th >= 0 else -1.0
        sa, ca = math.sin(a), math.cos(a)
        tan_a = sa / ca if ca else 1e9
        for b in self.bodies:
            if b.pid < 0 or not b.on:
                continue
            if not b.sliding:
                if a == 0 or tan_a <= b.mu_s:
                    continue
                b.sliding = True
                b.speed = 0.0
            acc = G * (sa - b.mu_k * ca) * sg if a > 0 else 0.0
            if a == 0 or (sg * b.speed <= 0 and sg * acc <= 0):
                # friction wins: the pawn stops (static again)
                if abs(b.speed) < 5 or a == 0:
                    b.sliding, b.speed = False, 0.0
                    continue
                acc = -math.copysign(G * b.mu_k * ca, b.speed)
            b.speed += acc * dt
            b.s += b.speed * dt
            self._agg = None
            rim = math.sqrt(max(0.0, DISC_RADIUS**2 - b.v * b.v))
            foot = PAWN_FOOT_MM.get(b.size, 7.5)
            over = sg * b.s > rim or (
                sg * b.s > rim - foot and a > 0 and tan_a > (rim - sg * b.s) / max(1.0, b.z - self.sup.top_mm)
            )
            if over:
                self._leave(b, t + self.dt)

        # the disc drops away faster than gravity under a pawn near the low rim: it is thrown off
        if self._alpha and a > 0 and self.prescribed is None:
            for b in self.bodies:
                if b.pid < 0 or not b.on or sg * b.s < DISC_RADIUS - 15:
                    continue
                _, _, _, dza = self.sup.place(b.s, b.z, self.th)
                if -dza * self._alpha > 0.95 * G * ca:
                    self._leave(b, t + self.dt)

    def _leave(self, b: Body, t: float) -> None:
        c = self._contrib.get(id(b))
        if c is not None:
            self._start = (self._start[0] - c[0], self._start[1] - c[1], self._start[2] - c[2])
        b.on = False
        b.sliding = False
        self._agg = None
        self.res.falls.append(Fall(b.pid, t, b.s, b.v, abs(b.speed)))

    # -- recording ---------------------------------------------------------------------------------
    def record(self) -> None:
        """Close the current grid step: its averaged loads (absolute, tare removed)."""
        end = self._sums()
        dt = STEP_MS / 1000.0
        mass = sum(b.mass for b in self.bodies if b.on)
        sx = sv = 0.0
        for b in self.bodies:
            if b.on:
                x, _, _, _ = self.sup.place(b.s, b.z, self.th)
                sx += b.mass * x
                sv += b.mass * b.v
        f = mass + (end[0] - self._start[0]) / (G * dt)
        mu = sx + (end[2] - self._start[2]) / (G * dt)
        mv = sv + (end[1] - self._start[1]) / (G * dt)
        for force, s, v in self.ext(self.t):
            x, _, _, _ = self.sup.place(s, self.sup.top_mm, self.th)
            f += force
            mu += force * x
            mv += force * v
        if self.hand_force:
            fh = sum(self.hand_force) / len(self.hand_force)
            xh, _, _, _ = self.sup.place(self.hand_s, self.sup.top_mm, self.th)
            f += fh
            mu += fh * xh
            self.hand_force = []
        self.res.f.append(f - self._m_disc)
        self.res.mu.append(mu)
        self.res.mv.append(mv)
        self.res.theta.append(self.th)
        self._start = end

    def run_grid_step(self) -> None:
        """Integrate one grid step (``STEP_MS``): 1 ms substeps, 0.25 ms while the rim is on the stop."""
        end = self.t + STEP_MS
        while self.t < end - 1e-9:
            near = abs(self.th) > self.sup.stop_rad * 0.97 or self.prescribed is not None
            self.dt = min(0.25 if near else 1.0, end - self.t)
            self.step()
        self.t = end
        self.record()

    def repeat_grid_step(self) -> None:
        """Nothing moves and nothing touches: the loads of the last grid step again (time passes)."""
        self.t += STEP_MS
        for arr in (self.res.f, self.res.mu, self.res.mv, self.res.theta):
            arr.append(arr[-1])

    def moving(self) -> bool:
        """True while the disc turns or a pawn slides."""
        return abs(self.om) > 1e-3 or any(b.sliding for b in self.bodies if b.on)

    def still_for(self, ms: float) -> None:
        """Let ``ms`` pass on a disc that lies still (loads repeated, no integration)."""
        for _ in range(int(ms / STEP_MS)):
            self.repeat_grid_step()


def level_hold_ok(sup: Support, bodies: list[Body], ext: list[tuple[float, float, float]]) -> bool:
    """Whether the level disc carries its pawns and the contacts (|M| within the hold)."""
    mu, mv = level_moment(bodies, ext)
    weight = sum(b.mass for b in bodies if b.on) + sum(f for f, _, _ in ext)
    return math.hypot(mu, mv) <= sup.hold(weight)


def tipped_torque(sup: Support, bodies: list[Body], th: float) -> float:
    """Gravity + spring torque at tilt ``th`` (>0 drives it further over, along the tilt sign)."""
    xc = sup.contact(th)
    tau = sum(b.mass * (sup.place(b.s, b.z, th)[0] - xc) for b in bodies if b.on) + sup.spring(th)
    return tau if th >= 0 else -tau


def min_jerk(a0: float, a1: float, t0: float, dur: float) -> Callable[[float], tuple[float, float, float]]:
    """A minimum-jerk path a0 -> a1 over ``dur`` ms from ``t0``: (angle, rate/s, accel/s^2)."""

    def path(t: float) -> tuple[float, float, float]:
        k = min(1.0, max(0.0, (t - t0) / dur))
        d = a1 - a0
        T = dur / 1000.0
        pos = a0 + d * (10 * k**3 - 15 * k**4 + 6 * k**5)
        vel = d * (30 * k**2 - 60 * k**3 + 30 * k**4) / T
        acc = d * (60 * k - 180 * k**2 + 120 * k**3) / (T * T)
        return pos, vel, acc

    return path
