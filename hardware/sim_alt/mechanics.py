"""Disc mechanics: the balance limit and a tip episode integrated from the torques.

The disc rests on a central support whose flat top has radius ``r_s``; it stays level while
the horizontal centre of mass of disc + pawns is over the support (``|M| <= m_tot * r_s``).
Past that it rotates about the support's edge point ``P`` (an inverted pendulum integrated
from the gravity torque), lands with its rim on a felt pad on the base (a damped contact of
25-60 ms, also integrated), pawns whose friction cannot hold them on the slope slide down and leave over the
rim (some land on the base plate, where they are still weighed), and the disc rights itself
when the remaining torque allows it, otherwise a player's hand lifts it level. The load on
the base is computed with Newton-Euler from the motion of every mass:
``F = sum m (1 + z''/g)``, ``M_u = sum m (x (1 + z''/g) - z x''/g)`` (g, g*mm).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from hardware.sim_alt.loads import STEP_MS, LoadTimeline
from hardware.sim_alt.transients import bump_profile, pulse_profile

G_MM = 9810.0  # mm/s^2
DISC_RADIUS = 150.0
PAWN_RADIUS = {"small": 6.0, "medium": 8.0, "large": 10.0}
PAWN_HALF_HEIGHT = {"small": 5.0, "medium": 7.0, "large": 9.0}


@dataclass
class Pawn:
    """A pawn on the disc (level-disc position) with its own mass and friction."""

    pid: int
    size: str
    mass: float
    x: float
    y: float
    mu_s: float


@dataclass(frozen=True)
class Build:
    """Physical constants of one simulated table (drawn per trace)."""

    disc_mass: float          # g
    support_r: float          # mm: flat top radius of the central support
    pivot_h: float            # mm: support top above the base top (cell plane)
    disc_com_b: float         # mm: disc CoM above the support top
    disc_thick: float         # mm
    rim_gap: float            # mm: rim drop until it rests on the base pad
    pad_ms: tuple[float, float]   # rim pad (felt) contact half-period range
    ledge_r: float            # mm: outer radius of the base plate (150 = no ledge)
    drop_to_table: float      # mm: base top above the table


@dataclass
class Landed:
    """A fallen pawn lying on the base plate (still weighed)."""

    pawn: Pawn
    x: float
    y: float
    t_land: int
    t_off: int | None = None


@dataclass
class Episode:
    """What a tip did: truth records, survivors (new positions), pawns on the base, end time."""

    truth: list[dict] = field(default_factory=list)
    survivors: list[Pawn] = field(default_factory=list)
    landed: list[Landed] = field(default_factory=list)
    end_ms: int = 0


def moment(pawns: list[Pawn]) -> tuple[float, float, float]:
    """Mass and first moments (g, g*mm) of pawns on the level disc."""
    return (sum(p.mass for p in pawns), sum(p.mass * p.x for p in pawns), sum(p.mass * p.y for p in pawns))


def capacity(build: Build, pawns: list[Pawn]) -> float:
    """The largest pawn moment (g*mm) the level disc can carry."""
    return (build.disc_mass + sum(p.mass for p in pawns)) * build.support_r


def tips(build: Build, pawns: list[Pawn]) -> bool:
    """Whether these pawns overturn the level disc."""
    _, mx, my = moment(pawns)
    return math.hypot(mx, my) > capacity(build, pawns)


@dataclass
class _Body:
    """One point mass of the tipping system in the u-z plane."""

    m: float
    a: float      # along u from the pivot, on the disc (changes while sliding)
    b: float      # height above the pivot plane (disc frame)
    v: float      # along v (fixed)
    pawn: Pawn | None = None
    s_dot: float = 0.0
    slide_from: float | None = None  # ms; None = held by friction
    mu_k: float = 0.0
    gone: bool = False


def _positions(bodies: list[_Body], build: Build, theta: float) -> list[tuple[float, float] | None]:
    c, s = math.cos(theta), math.sin(theta)
    return [None if bd.gone else (build.support_r + bd.a * c + bd.b * s, build.pivot_h - bd.a * s + bd.b * c)
            for bd in bodies]


def tip_episode(rng: random.Random, build: Build, pawns: list[Pawn], t0: int,
                timeline: LoadTimeline) -> Episode:
    """Simulate a tip starting at ``t0`` (the onset): add its loads to ``timeline``, return the outcome."""
    _, mx, my = moment(pawns)
    mag = math.hypot(mx, my)
    ux, uy = (mx / mag, my / mag) if mag > 0 else (1.0, 0.0)
    vx, vy = -uy, ux
    r_s = build.support_r
    half = build.disc_mass / 2  # the disc as two halves: its inertia about a diameter is m R^2 / 4
    bodies = [_Body(half, -r_s + sgn * DISC_RADIUS / 2, build.disc_com_b, 0.0) for sgn in (-1, 1)]
    for p in pawns:
        bodies.append(_Body(p.mass, p.x * ux + p.y * uy - r_s, build.disc_thick + PAWN_HALF_HEIGHT[p.size],
                            -p.x * uy + p.y * ux, pawn=p, mu_k=p.mu_s * rng.uniform(0.65, 0.9)))
    inertia = sum(bd.m * (bd.a ** 2 + bd.b ** 2) for bd in bodies)
    theta_rim = math.asin(build.rim_gap / (DISC_RADIUS - r_s))
    kick = max(0.0, 60.0 - (mag - capacity(build, pawns))) * G_MM  # release flick: every tip gets going
    w_pad, zeta = math.pi / (rng.uniform(*build.pad_ms) / 1000), rng.uniform(0.6, 0.9)
    ep = Episode()
    ep.truth.append({"event": "tipped", "t_ms": t0})
    theta = omega = 0.0
    phase = "tilt"  # tilt -> tipped -> righting (self) | hand -> level
    path: dict | None = None
    quiet_since: float | None = None
    level_at: float | None = None
    hand_off: float | None = None
    track: list[tuple] = []
    sub = 4
    dt = STEP_MS / 1000 / sub
    t = float(t0)
    for _ in range(int(30000 / STEP_MS)):
        hand_f = 0.0
        for k in range(sub):
            ts = t + (k + 1) * STEP_MS / sub
            c, s = math.cos(theta), math.sin(theta)
            tau = G_MM * sum(bd.m * (bd.a * c + bd.b * s) for bd in bodies if not bd.gone)
            if phase == "tilt":
                tau += kick * max(0.0, 1 - 3 * theta / theta_rim)
                omega += tau / inertia * dt
                theta += omega * dt
                if theta >= theta_rim:
                    phase = "tipped"
                    ep.truth.append({"event": "rim_contact", "t_ms": int(ts)})
                    for bd in bodies:
                        if bd.pawn is not None and bd.pawn.mu_s < math.tan(theta_rim):
                            bd.slide_from = ts + rng.uniform(0, 80)
            elif phase == "tipped":
                if theta > theta_rim:
                    tau -= inertia * (w_pad ** 2 * (theta - theta_rim) + 2 * zeta * w_pad * omega)
                if theta <= theta_rim and tau < 0:
                    omega = 0.0  # the felt holds it until it is quiet
                else:
                    omega += tau / inertia * dt
                    theta += omega * dt
            elif path is not None:
                th, om, al = _path(path, ts)
                if path["hand"] and ts >= path["t0"]:
                    lever = (DISC_RADIUS - r_s - 5) * c
                    hand_f = (tau - inertia * al) / (G_MM * lever) if th > 1e-4 else 0.0
                theta, omega = th, om
            for bd in bodies:  # sliding pawns
                if bd.gone or bd.slide_from is None or ts < bd.slide_from:
                    continue
                acc = G_MM * (math.sin(theta) - bd.mu_k * math.cos(theta))
                if bd.s_dot <= 0 and acc <= 0:
                    bd.s_dot = 0.0
                    continue
                bd.s_dot = max(0.0, bd.s_dot + acc * dt)
                bd.a += bd.s_dot * dt
        t += STEP_MS
        for bd in bodies:
            if bd.pawn is None or bd.gone:
                continue
            along = bd.a + r_s
            if along * along + bd.v * bd.v >= DISC_RADIUS ** 2:
                bd.gone = True
                _fall(rng, build, bd, int(t), theta, (ux, uy), (vx, vy), timeline, ep)
        moving = any(not bd.gone and (bd.s_dot > 0 or (bd.slide_from is not None and t < bd.slide_from))
                     for bd in bodies)
        holding = path is not None and path["hand"] and t >= path["t0"] and hand_off is None
        track.append((_positions(bodies, build, theta), hand_f, theta, t, holding))
        if phase == "tipped":
            if moving:
                quiet_since = None
                continue
            quiet_since = quiet_since if quiet_since is not None else t
            if t - quiet_since < 250:
                continue
            level = [Pawn(bd.pawn.pid, bd.pawn.size, bd.pawn.mass, *_level_xy(bd, r_s, ux, uy, vx, vy), 0.0)
                     for bd in bodies if bd.pawn is not None and not bd.gone]
            c, s = math.cos(theta), math.sin(theta)
            torque = sum(bd.m * (bd.a * c + bd.b * s) for bd in bodies if not bd.gone)
            _, lmx, lmy = moment(level)
            if torque < 0:
                path = {"t0": t + rng.uniform(0, 100), "theta0": theta, "dur": rng.uniform(300, 800),
                        "hand": False}
            elif level and math.hypot(lmx, lmy) > 0.95 * capacity(build, level):
                out = max((bd for bd in bodies if bd.pawn is not None and not bd.gone), key=lambda b: b.a)
                out.slide_from = t + rng.uniform(100, 400)  # shaken loose: creeps off slowly
                out.mu_k = 0.8 * math.tan(theta_rim)
                quiet_since = None
                continue
            else:
                path = {"t0": t + rng.uniform(400, 1500), "theta0": theta, "dur": rng.uniform(350, 900),
                        "hand": True}
            phase = "hand" if path["hand"] else "righting"
            ep.truth.append({"event": "relevel", "t_ms": int(path["t0"]),
                             "by": "hand" if path["hand"] else "self"})
        elif path is not None and level_at is None and t >= path["t0"] + path["dur"]:
            level_at = t
            if path["hand"]:
                hand_off = t + rng.uniform(200, 700)
        if level_at is not None and not moving and t - max(level_at, hand_off or 0.0) >= 300:
            break
    end = int(t)
    ep.end_ms = end
    ep.truth.append({"event": "settled", "t_ms": end})
    _write_loads(build, bodies, track, (ux, uy), (vx, vy), t0, pawns, timeline, rng)
    for bd in bodies:
        if bd.pawn is not None and not bd.gone:
            x, y = _level_xy(bd, r_s, ux, uy, vx, vy)
            p = bd.pawn
            if math.hypot(x - p.x, y - p.y) > 0.5:
                ep.truth.append({"event": "moved", "t_ms": end, "pid": p.pid, "x_mm": round(x, 1),
                                 "y_mm": round(y, 1)})
            ep.survivors.append(Pawn(p.pid, p.size, p.mass, x, y, p.mu_s))
    ep.truth.sort(key=lambda e: e["t_ms"])
    return ep


def _path(path: dict, t: float) -> tuple[float, float, float]:
    """Minimum-jerk return from ``theta0`` to level: (theta, omega, alpha) at time ``t`` (ms)."""
    th0, dur = path["theta0"], path["dur"] / 1000
    if t < path["t0"]:
        return th0, 0.0, 0.0
    x = (t - path["t0"]) / 1000 / dur
    if x >= 1.0:
        return 0.0, 0.0, 0.0
    return (th0 * (1 - (10 * x ** 3 - 15 * x ** 4 + 6 * x ** 5)),
            -th0 * (30 * x ** 2 - 60 * x ** 3 + 30 * x ** 4) / dur,
            -th0 * (60 * x - 180 * x ** 2 + 120 * x ** 3) / dur ** 2)


def _level_xy(bd: _Body, r_s: float, ux: float, uy: float, vx: float, vy: float) -> tuple[float, float]:
    along = bd.a + r_s
    return along * ux + bd.v * vx, along * uy + bd.v * vy


def _fall(rng: random.Random, build: Build, bd: _Body, t: int, theta: float, u: tuple[float, float],
          v: tuple[float, float], timeline: LoadTimeline, ep: Episode) -> None:
    """A pawn leaves the rim: its weight leaves the base now; it lands on the base ledge or the table."""
    p = bd.pawn
    assert p is not None
    along = bd.a + build.support_r
    ex, ey = along * u[0] + bd.v * v[0], along * u[1] + bd.v * v[1]
    r_exit = math.hypot(ex, ey)
    h_rim = max(2.0, build.pivot_h - (DISC_RADIUS - build.support_r) * math.sin(theta) + build.disc_thick)
    speed = max(bd.s_dot, 20.0) * math.cos(theta)
    t_base = math.sqrt(2 * h_rim / G_MM)
    r_land = r_exit + speed * t_base + rng.uniform(-2, 6)
    record = {"event": "fell", "t_ms": t, "pawns": {p.size: 1}, "mass_g": round(p.mass, 3), "pid": p.pid,
              "from_mm": [round(ex, 1), round(ey, 1)]}
    if r_land < build.ledge_r - 2:
        t_land = t + int(1000 * t_base)
        lx, ly = ex * r_land / r_exit, ey * r_land / r_exit
        vz = G_MM * t_base
        pulse = pulse_profile(p.mass * vz / G_MM * 1000, rng.uniform(3, 10))
        timeline.add_point_force(t_land, pulse, lx, ly)
        timeline.step(t_land, p.mass, p.mass * lx, p.mass * ly)
        item = Landed(p, lx, ly, t_land)
        if rng.random() < 0.35:  # bounces on and rolls off the base
            item.t_off = t_land + int(rng.uniform(40, 400))
            timeline.step(item.t_off, -p.mass, -p.mass * lx, -p.mass * ly)
        ep.landed.append(item)
        record.update(lands_t_ms=t_land, lands_on="base")
    else:
        h = h_rim + build.drop_to_table
        t_land = t + int(1000 * math.sqrt(2 * h / G_MM))
        force, lx, ly, rock = bump_profile(rng, p.mass * rng.uniform(0.05, 0.3))
        timeline.add(t_land, force, [r * lx for r in rock], [r * ly for r in rock])
        record.update(lands_t_ms=t_land, lands_on="table")
    ep.truth.append(record)


def _write_loads(build: Build, bodies: list[_Body], track: list, u: tuple[float, float],
                 v: tuple[float, float], t0: int, pawns: list[Pawn], timeline: LoadTimeline,
                 rng: random.Random) -> None:
    """Newton-Euler loads of the episode minus the pre-tip static load, as a transient."""
    n = len(track)
    dt = STEP_MS / 1000
    m0, mx0, my0 = moment(pawns)
    fs, mxs, mys = [0.0] * n, [0.0] * n, [0.0] * n
    for k in range(n):
        f = mu = mv = 0.0
        for j, bd in enumerate(bodies):
            pos = track[k][0][j]
            if pos is None:
                continue
            if 0 < k < n - 1 and track[k - 1][0][j] is not None and track[k + 1][0][j] is not None:
                xm, zm = track[k - 1][0][j]
                xp, zp = track[k + 1][0][j]
                ax = (xp - 2 * pos[0] + xm) / dt / dt
                az = (zp - 2 * pos[1] + zm) / dt / dt
            else:
                ax = az = 0.0
            w = bd.m * (1 + az / G_MM)
            f += w
            mu += pos[0] * w - pos[1] * bd.m * ax / G_MM
            mv += bd.v * w
        hand_f, theta = track[k][1], track[k][2]
        if track[k][4]:  # a hand lifts (or steadies) the disc at its low rim
            grip = build.support_r + (DISC_RADIUS - build.support_r - 5) * math.cos(theta)
            hand_f += rng.gauss(0, 2.0)
            f -= hand_f
            mu -= hand_f * grip
        fs[k] = f - build.disc_mass - m0
        mxs[k] = mu * u[0] + mv * v[0] - mx0
        mys[k] = mu * u[1] + mv * v[1] - my0
    timeline.add(t0, fs, mxs, mys)
    # the new level state from the end of the episode on
    left = [bd for bd in bodies if bd.pawn is not None and not bd.gone]
    m1 = sum(bd.m for bd in left)
    mx1 = sum(bd.m * _level_xy(bd, build.support_r, u[0], u[1], v[0], v[1])[0] for bd in left)
    my1 = sum(bd.m * _level_xy(bd, build.support_r, u[0], u[1], v[0], v[1])[1] for bd in left)
    timeline.step(t0 + n * STEP_MS, m1 - m0, mx1 - mx0, my1 - my0)
