"""Player actions on a family table, written into a load timeline, with the ground truth.

``Table`` keeps the script state (time cursor ``t`` in ms, pawns on the disc and on the base plate,
truth) and writes every action's loads into a ``hardware.sim_alt.loads.LoadTimeline``: pawns on
the level disc and on the base as persistent steps, fingers, pinches, hands and bumps as point
forces, and a tip episode (``hardware.simfamily.disc``) as its integrated base loads. One pair of
hands acts at a time; bumps can come at any moment.

Fingers do not hold the disc: a finger pressing a pawn adds its force at the pawn to the moment,
so a tip can start during the press; a steadying touch of the placing hand on the far side lets
it start at the release; a compliant support top lets it start after a slow creep.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

from companion.sensing.layout import DiscLayout
from hardware.sim_alt.loads import LoadTimeline
from hardware.sim_alt.transients import bump_profile
from hardware.simfamily.contacts import (
    Force,
    Pawn,
    drop_profile,
    edge,
    on_line,
    press_profile,
    release_now,
)
from hardware.simfamily.disc import (
    DISC_RADIUS,
    PAWN_FOOT_MM,
    PAWN_HEIGHT_MM,
    STEP_MS,
    Body,
    G,
    Integrator,
    disc_bodies,
)
from hardware.simfamily.episode import run_episode
from hardware.simfamily.families import Build

SIZES = ("small", "medium", "large")


class Table:
    """The script state of one simulated session on a family table."""

    def __init__(
        self,
        rng: random.Random,
        build: Build,
        layout: DiscLayout,
        timeline: LoadTimeline,
        masses: dict[str, float],
    ) -> None:
        self.rng = rng
        self.b = build
        self.sup = build.support
        self.layout = layout
        self.tl = timeline
        self.masses = masses
        self.t = 1500.0
        self.pawns: list[Pawn] = []
        self.base: list[tuple[Pawn, float, float]] = []  # pawns lying on the base plate (x, y)
        self.truth: list[dict] = []
        self.next_pid = 1
        self.last_placed: Pawn | None = None
        self.episodes: list[dict] = []

    # -- helpers ---------------------------------------------------------------------------------
    def new_pawn(self, size: str, x: float, y: float) -> Pawn:
        """A pawn of ``size``: mass within +-3 % (``pawn_spread``) of the set's mean, its own friction."""
        spread = self.b.pawn_spread
        dev = max(-spread, min(spread, self.rng.gauss(0, spread / 2)))
        mu = self.rng.uniform(*self.b.mu_range)
        pawn = Pawn(
            self.next_pid, size, self.masses[size] * (1 + dev), x, y, mu, mu * self.rng.uniform(0.6, 0.9)
        )
        self.next_pid += 1
        return pawn

    def weight(self, pawns: list[Pawn] | None = None) -> float:
        return self.b.disc_mass_g + sum(p.mass for p in (self.pawns if pawns is None else pawns))

    def moment(self, pawns: list[Pawn] | None = None) -> tuple[float, float]:
        ps = self.pawns if pawns is None else pawns
        return sum(p.mass * p.x for p in ps), sum(p.mass * p.y for p in ps)

    def balanced(
        self, pawns: list[Pawn], margin: float = 1.0, extra: tuple[float, float, float] = (0, 0, 0)
    ) -> bool:
        """Whether the level disc carries ``pawns`` (and a force ``extra`` = (f, x, y)) with ``margin``."""
        mx, my = self.moment(pawns)
        f, x, y = extra
        return math.hypot(mx + f * x, my + f * y) <= margin * self.sup.hold(self.weight(pawns) + f)

    def spot(self, zone: str, number: int) -> tuple[float, float]:
        """Where a player puts a pawn for (zone, number): near the middle, sometimes on a line or the rim."""
        rng, lay = self.rng, self.layout
        i = lay.numbers.index(number)
        r_lo, r_hi = lay.ring_edges_mm[i], lay.ring_edges_mm[i + 1]
        k = lay.zones.index(zone)
        a_lo = lay.start_deg + k * lay.sector_deg
        r = (r_lo + r_hi) / 2 + rng.gauss(0, 3.5)
        a = math.radians(a_lo + lay.sector_deg / 2)
        tang = rng.gauss(0, 4.0)
        u = rng.random()
        if u < 0.06:
            r = rng.choice((r_lo, r_hi)) + rng.uniform(-2, 2)
        elif u < 0.12:
            a = math.radians(rng.choice((a_lo, a_lo + lay.sector_deg)))
            tang = rng.uniform(-2, 2)
        elif u < 0.16 and number == lay.numbers[-1]:
            r = rng.uniform(138, 147)
        r = max(5.0, min(r, DISC_RADIUS - 2))
        return r * math.cos(a) - tang * math.sin(a), r * math.sin(a) + tang * math.cos(a)

    def _add_force(self, fc: Force, until: float | None = None) -> None:
        vals = fc.values if until is None else fc.values[: max(0, int(round((until - fc.t0) / STEP_MS)))]
        if vals:
            self.tl.add_point_force(fc.t0, vals, fc.x, fc.y)

    def _step_pawns(self, t: float, pawns: list[Pawn], sign: float) -> None:
        m = sum(p.mass for p in pawns)
        self.tl.step(
            t, sign * m, sign * sum(p.mass * p.x for p in pawns), sign * sum(p.mass * p.y for p in pawns)
        )

    def bump(self, t_at: float, amplitude: float | None = None) -> None:
        """A table knock at ``t_at``: a damped two-mode shake, no lasting change."""
        amp = amplitude if amplitude is not None else self.rng.uniform(5, 40)
        force, lx, ly, rock = bump_profile(self.rng, amp)
        self.tl.add(t_at, force, [r * lx for r in rock], [r * ly for r in rock])
        self.truth.append({"event": "bump", "t_ms": int(t_at), "amplitude_g": round(amp, 1)})

    # -- placing ---------------------------------------------------------------------------------
    def place(
        self,
        size: str,
        x: float,
        y: float,
        *,
        press_g: float | None = None,
        press_ms: float | None = None,
        steady: bool | None = None,
        slide_ok: bool = True,
    ) -> bool:
        """Approach, lower the pawn, press, release; a tip when the disc cannot carry it (True: it tipped)."""
        rng, sup = self.rng, self.sup
        self.t += rng.uniform(300, 900)
        pawn = self.new_pawn(size, x, y)
        n_low = max(1, int(rng.uniform(*self.b.lower_ms) / STEP_MS))
        drop = None
        if self.b.drop_place and rng.random() < self.b.drop_place:
            drop = drop_profile(rng, pawn.mass)  # let go a few mm up: it lands at once and bounces
            n_low = 1
        lower = Force(self.t, [pawn.mass * edge(k, n_low) for k in range(n_low)], x, y)
        t_on = self.t + n_low * STEP_MS
        if press_g is not None:
            peak = press_g
        else:
            # a player presses as hard as the disc seems to bear there (and sometimes too hard)
            mx0, my0 = self.moment(self.pawns)
            r_p = max(math.hypot(x, y), 20.0)
            spare = sup.hold(self.weight() + pawn.mass) - math.hypot(mx0 + pawn.mass * x, my0 + pawn.mass * y)
            peak = min(
                rng.uniform(20, 250), max(3.0, spare / r_p * rng.uniform(0.1, 0.85)) + rng.uniform(0, 3)
            )
            if rng.random() < 0.03:  # a heavy-handed player presses as hard as ever, wherever
                peak = rng.uniform(20, 250)
        dur = press_ms if press_ms is not None else rng.uniform(*self.b.press_ms)
        # after a drop the finger comes down on the pawn once it has stopped bouncing
        late = 0.0 if drop is None else drop.settle_ms + rng.uniform(40, 250)
        press = Force(
            t_on - rng.uniform(0, 20) + late,
            press_profile(rng, peak, dur),
            x + rng.gauss(0, 2),
            y + rng.gauss(0, 2),
        )
        touches = [press]
        if steady if steady is not None else rng.random() < self.b.steady_place:
            # the placing hand's other fingers rest on the disc, on the side away from where it would go,
            # pressing about as much as it takes to keep it level (15-60 g at most)
            mx1, my1 = self.moment(self.pawns)
            mx1 += pawn.mass * x + peak * x
            my1 += pawn.mass * y + peak * y
            m1 = math.hypot(mx1, my1) or 1.0
            far = rng.uniform(90, 140)
            need = (m1 - 0.5 * sup.hold(self.weight() + pawn.mass + peak)) / far
            level = min(rng.uniform(15, 60), max(0.0, need) + rng.uniform(0, 4))
            pre = int(rng.uniform(120, 250) / STEP_MS)  # on the disc before the pawn touches down
            top = press.values.index(max(press.values))
            prof = [level * edge(k, 12) for k in range(pre)]
            prof += [level if j <= top else level * v / max(press.values) for j, v in enumerate(press.values)]
            touches.append(
                Force(
                    press.t0 - pre * STEP_MS,
                    prof,
                    -mx1 / m1 * far + rng.gauss(0, 10),
                    -my1 / m1 * far + rng.gauss(0, 10),
                )
            )
        slide = None
        if self.b.finger_slide and rng.random() < self.b.finger_slide:
            slide = self._finger_slide(pawn, press, t_on)
        # when does the disc lose its balance? scan the press on the grid
        before = list(self.pawns)
        after = before + [pawn]
        t_end = max(fc.end for fc in touches) + 40

        def scan(slide: tuple[float, float, float, float] | None) -> float | None:
            t = min(press.t0, t_on)  # (a dropped pawn lands before the finger comes)
            while t <= t_end:
                fs = [(fc.at(t), fc.x, fc.y) for fc in touches]
                ps = after if t >= t_on else before
                mx, my = self.moment(ps)
                fsum = sum(f for f, _, _ in fs)
                mx += sum(f * fx for f, fx, _ in fs) + (0 if t >= t_on else lower.at(t) * x)
                my += sum(f * fy for f, _, fy in fs) + (0 if t >= t_on else lower.at(t) * y)
                if slide is not None:
                    k = _slide_left(slide, t) * ((pawn.mass if t >= t_on else lower.at(t)) + press.at(t))
                    mx += k * slide[2]
                    my += k * slide[3]
                if math.hypot(mx, my) > sup.hold(self.weight(ps) + fsum):
                    return t
                t += STEP_MS
            return None

        onset = scan(slide)
        if slide is not None and onset is not None and onset < slide[0] + slide[1]:
            slide = None  # the disc goes while the finger drags: no slide in this placement
            onset = scan(None)
        creep_from = None
        if onset is None and sup.creep_ms > 0:
            onset, creep_from = self._creep_onset(after, t_end)
        if onset is not None and onset < t_end and creep_from is None:
            # the player feels the disc go and lets go 60-200 ms later
            react = onset + rng.uniform(60, 200)
            for i, fc in enumerate(touches):
                if fc.end > react:
                    touches[i] = Force(
                        fc.t0, release_now(fc.values, int((react - fc.t0) / STEP_MS), rng), fc.x, fc.y
                    )
        release = touches[0].end
        for fc in touches:
            self._add_force(fc, until=onset)
        if slide is not None:
            # the pawn (and the finger on it) stood off by (dx, dy) until the finger dragged it home
            t_s, d_s, dx, dy = slide
            n = int(round((t_s + d_s - lower.t0) / STEP_MS)) + 1
            ks = []
            for k in range(n):
                t = lower.t0 + k * STEP_MS
                ks.append(_slide_left(slide, t) * ((pawn.mass if t >= t_on else lower.at(t)) + press.at(t)))
            self.tl.add(lower.t0, [0.0] * n, [k * dx for k in ks], [k * dy for k in ks])
        if onset is None or onset >= t_on:
            self._add_force(lower)
            self.tl.step(t_on, pawn.mass, pawn.mass * x, pawn.mass * y)
            self.pawns.append(pawn)
            if drop is not None:
                self._add_force(Force(t_on, drop.values, x, y))
        zone, number = self.layout.locate(x, y)
        self.truth.append(
            {
                "event": "placed",
                "t_ms": int(release),
                "size": size,
                "mass_g": round(pawn.mass, 3),
                "x_mm": round(x, 1),
                "y_mm": round(y, 1),
                "zone": zone,
                "number": number,
                "on_line": on_line(self.layout, x, y, PAWN_FOOT_MM[size]),
                "pid": pawn.pid,
                **({"slid_mm": round(math.hypot(slide[2], slide[3]), 1)} if slide is not None else {}),
                **(
                    {"dropped_mm": round(drop.height_mm, 1), "bounce_ms": round(drop.flight_ms)}
                    if drop is not None
                    else {}
                ),
            }
        )
        self.last_placed = pawn
        if onset is not None:
            if pawn not in self.pawns:  # the tip began before the weight was all down (rare)
                self._add_force(lower)
                self.tl.step(t_on, pawn.mass, pawn.mass * x, pawn.mass * y)
                self.pawns.append(pawn)
                if drop is not None:
                    self._add_force(Force(t_on, drop.values, x, y))
            peak_t = touches[0].t0 + touches[0].values.index(max(touches[0].values)) * STEP_MS
            steadied = len(touches) > 1 and onset >= peak_t
            when = "creep" if creep_from is not None else ("release" if steadied else "press")
            ext = [fc for fc in touches if fc.end > onset]
            self.tip(onset, ext, cause=when, creep_from=creep_from)
            return True
        self.t = release
        if slide_ok and math.hypot(x, y) > 138 and rng.random() < 0.3:
            self.slide_off(pawn, rng.uniform(300, 3000))
        return False

    def _finger_slide(
        self, pawn: Pawn, press: Force, t_on: float
    ) -> tuple[float, float, float, float] | None:
        """A finger that drags the pawn 2-8 mm before it lets go: (start ms, duration ms, dx, dy), where
        (dx, dy) is where the pawn touched down relative to where it ends (its truth position).
        The drag starts 20-150 ms after touch-down and takes 40-250 ms, ending before the release."""
        rng = self.rng
        dist, ang = rng.uniform(2, 8), rng.uniform(0, 2 * math.pi)
        t_s = t_on + rng.uniform(20, 150)
        dur = min(rng.uniform(40, 250), press.end - 60 - t_s)
        dx, dy = dist * math.cos(ang), dist * math.sin(ang)
        if math.hypot(pawn.x + dx, pawn.y + dy) > DISC_RADIUS - 4:
            dx, dy = -dx, -dy
        if dur < 30:
            return None
        return t_s, dur, dx, dy

    def _creep_onset(self, pawns: list[Pawn], t_from: float) -> tuple[float | None, float | None]:
        """A compliant top creeps under the load: its holding edge retreats by up to ``creep_frac`` of the
        hold (time constant ``creep_ms``); a disc loaded within that margin tips once the edge has gone."""
        sup = self.sup
        mx, my = self.moment(pawns)
        hold = sup.hold(self.weight(pawns))
        ratio = math.hypot(mx, my) / hold if hold else 0.0
        if ratio < 1 - sup.creep_frac or ratio > 1:
            return None, None
        t_c = -sup.creep_ms * math.log(max(1e-6, 1 - (1 - ratio) / sup.creep_frac))
        return t_from + max(t_c, 20.0), t_from

    def slide_off(self, pawn: Pawn, delay_ms: float) -> None:
        """A pawn set at the rim creeps off alone (no tip): its weight moves outwards and leaves."""
        rng = self.rng
        r = math.hypot(pawn.x, pawn.y) or 1.0
        speed = rng.uniform(15, 60)
        dist = DISC_RADIUS - r
        dur = dist / speed * 1000
        t0 = self.t + delay_ms
        n = max(1, int(dur / STEP_MS))
        trial = [p for p in self.pawns if p is not pawn] + [
            Pawn(0, pawn.size, pawn.mass, pawn.x / r * DISC_RADIUS, pawn.y / r * DISC_RADIUS, 0, 0)
        ]
        if not self.balanced(trial, 0.97):
            return
        xs = [pawn.x / r * (r + dist * k / n) for k in range(n)]
        ys = [pawn.y / r * (r + dist * k / n) for k in range(n)]
        self._step_pawns(t0, [pawn], -1)
        self.tl.add_point_force(t0, [pawn.mass] * n, xs, ys)
        t_fall = t0 + n * STEP_MS
        self.pawns.remove(pawn)
        land = self._land(pawn, t_fall, pawn.x / r * DISC_RADIUS, pawn.y / r * DISC_RADIUS, speed, 0.0)
        self.truth.append(
            {
                "event": "fell",
                "t_ms": int(t_fall),
                "pawns": {pawn.size: 1},
                "mass_g": round(pawn.mass, 3),
                "pid": pawn.pid,
                "from_mm": [round(pawn.x, 1), round(pawn.y, 1)],
                **land,
            }
        )
        self.t = max(self.t, t_fall + 500)

    # -- landing on the base plate -----------------------------------------------------------------
    def _land(self, pawn: Pawn, t: float, x: float, y: float, speed: float, drop_mm: float) -> dict:
        """Where a pawn that left the rim lands: on the base plate (still weighed) or off it."""
        rng = self.rng
        r = math.hypot(x, y) or 1.0
        h = max(2.0, drop_mm) + rng.uniform(0, 4)
        t_fly = math.sqrt(2 * h / G) * 1000
        reach = DISC_RADIUS + speed * t_fly / 1000 + rng.uniform(2, 12)
        t_land = t + t_fly
        if reach < self.b.ledge_mm - 3:
            lx, ly = x / r * reach, y / r * reach
            v = math.sqrt(2 * G * h)
            width = rng.uniform(3, 10)
            n = max(1, int(width / STEP_MS))
            peak = pawn.mass * v / G * 1000 * math.pi / (2 * width)  # g: impulse m v over the width
            self.tl.add_point_force(
                t_land, [peak * math.sin(math.pi * (k + 0.5) / n) for k in range(n)], lx, ly
            )
            self.tl.step(t_land, pawn.mass, pawn.mass * lx, pawn.mass * ly)
            self.base.append((pawn, lx, ly))
            if rng.random() < 0.3:  # it bounces off the base plate a moment later
                t_off = t_land + rng.uniform(40, 400)
                self.tl.step(t_off, -pawn.mass, -pawn.mass * lx, -pawn.mass * ly)
                self.base.remove((pawn, lx, ly))
                return {"lands_t_ms": int(t_land), "lands_on": "base", "off_base_t_ms": int(t_off)}
            return {"lands_t_ms": int(t_land), "lands_on": "base"}
        self.tl.add_point_force(
            t_land,
            [pawn.mass * rng.uniform(0.05, 0.3) * math.sin(k * 1.3) * math.exp(-k / 6) for k in range(30)],
            DISC_RADIUS,
            0.0,
        )
        return {"lands_t_ms": int(t_land), "lands_on": "table"}

    def pick_up_base(self) -> None:
        """Players take the pawns lying on the base plate back (a light pinch, then the weight goes)."""
        rng = self.rng
        for pawn, lx, ly in list(self.base):
            self.t += rng.uniform(500, 2500)
            n = max(2, int(rng.uniform(100, 400) / STEP_MS))
            self.tl.add_point_force(self.t, [rng.uniform(3, 15) * edge(k, 5) for k in range(n)], lx, ly)
            self.t += n * STEP_MS
            self.tl.step(self.t, -pawn.mass, -pawn.mass * lx, -pawn.mass * ly)
            self.truth.append({"event": "picked_up", "t_ms": int(self.t), "pid": pawn.pid})
        self.base = []

    # -- the tip --------------------------------------------------------------------------------
    def tip(
        self,
        onset: float,
        touches: list[Force],
        cause: str = "",
        creep_from: float | None = None,
        relevel: bool = True,
    ) -> None:
        """The disc loses its balance at ``onset``: integrate the episode, write its loads and truth."""
        rng, sup = self.rng, self.sup
        pawns = list(self.pawns)
        mx, my = self.moment(pawns)
        fx = sum(fc.at(onset) * fc.x for fc in touches)
        fy = sum(fc.at(onset) * fc.y for fc in touches)
        norm = math.hypot(mx + fx, my + fy)
        if norm < 1e-6:
            a = rng.uniform(0, 2 * math.pi)
            ux, uy = math.cos(a), math.sin(a)
        else:
            ux, uy = (mx + fx) / norm, (my + fy) / norm
        vx, vy = -uy, ux
        bodies = disc_bodies(self.b.disc_mass_g, sup.com_mm)
        by_pid: dict[int, Pawn] = {}
        for p in pawns:
            z = sup.top_mm + PAWN_HEIGHT_MM[p.size] / 2
            bodies.append(
                Body(p.pid, p.mass, p.x * ux + p.y * uy, p.x * vx + p.y * vy, z, p.mu_s, p.mu_k, p.size)
            )
            by_pid[p.pid] = p

        def ext(t: float) -> list[tuple[float, float, float]]:
            out = []
            for fc in touches:
                f = fc.at(t)
                if f:
                    out.append((f, fc.x * ux + fc.y * uy, fc.x * vx + fc.y * vy))
            return out

        t0 = creep_from if creep_from is not None else onset
        self._step_pawns(t0, pawns, -1)  # from here the episode's loads stand for the disc and its pawns
        th0, om0 = 0.0, 0.0
        if creep_from is not None:
            # the slow lean into the compliant top, recorded as part of the episode; the tip then
            # starts about the edge the creep has moved inwards
            hold = sup.hold(self.weight(pawns))
            lean_eq = sup.creep_rad * norm / max(hold, 1.0)
            lever = self.b.disc_mass_g * sup.com_mm + sum(p.mass for p in pawns) * (sup.top_mm + 6)
            n_c = int((onset - creep_from) / STEP_MS)
            mass = sum(p.mass for p in pawns)
            f_l = [mass] * n_c
            mu_l = [
                norm + lean_eq * (1 - math.exp(-(k * STEP_MS) / sup.creep_ms)) * lever for k in range(n_c)
            ]
            self._write(creep_from, f_l, mu_l, [0.0] * n_c, ux, uy)
            th0 = lean_eq * (1 - math.exp(-(onset - creep_from) / sup.creep_ms))
            om0 = (lean_eq - th0) / (sup.creep_ms / 1000)
            crept = 1 - sup.creep_frac * (1 - math.exp(-(onset - creep_from) / sup.creep_ms))
            scale = max(0.0, min(crept, norm / max(hold, 1.0)) - 0.01)
            sup = replace(sup, flat_mm=sup.flat_mm * scale, preload_gmm=sup.preload_gmm * scale)
        integ = Integrator(sup, bodies, ext, onset, th0=max(th0, 1e-7), om0=om0)
        end_kind, t_rel = run_episode(integ, rng, self.b.disc_mass_g, onset, ext, relevel)
        res = integ.res
        self._write(onset, res.f, res.mu, res.mv, ux, uy)
        t_end = onset + len(res.f) * STEP_MS
        # truth: a disc that rocked a little and came back by itself (no stop, no fall) only wobbled
        theta_max = max((abs(x) for x in res.theta), default=0.0)
        went_over = res.rim_ms is not None or res.falls or theta_max > 0.5 * sup.stop_rad
        self.truth.append(
            {
                "event": "tipped" if went_over else "wobble",
                "t_ms": int(onset),
                "cause": cause,
                "max_deg": round(math.degrees(theta_max), 2),
                **({"creep_from_ms": int(creep_from)} if creep_from is not None else {}),
            }
        )
        if res.rim_ms is not None:
            self.truth.append({"event": "rim_contact", "t_ms": int(res.rim_ms), "rim": sup.rim})
        if sup.rim == "ringing" and res.rim_ms is not None:
            self._ring(res.rim_ms, res.rim_impulse, ux, uy)
        fallen = set()
        for fall in res.falls:
            p = by_pid[fall.pid]
            fx_, fy_ = fall.s * ux + fall.v * vx, fall.s * uy + fall.v * vy
            drop = max(
                0.0,
                -(
                    sup.place(
                        fall.s,
                        sup.top_mm,
                        res.theta[min(len(res.theta) - 1, int((fall.t_ms - onset) / STEP_MS))],
                    )[1]
                ),
            )
            land = self._land(p, fall.t_ms, fx_, fy_, fall.speed_mm_s, drop + 3)
            self.truth.append(
                {
                    "event": "fell",
                    "t_ms": int(fall.t_ms),
                    "pawns": {p.size: 1},
                    "mass_g": round(p.mass, 3),
                    "pid": p.pid,
                    "from_mm": [round(p.x, 1), round(p.y, 1)],
                    **land,
                }
            )
            fallen.add(p.pid)
        survivors = []
        for b in integ.bodies:
            if b.pid < 0 or not b.on:
                continue
            p = by_pid[b.pid]
            nx, ny = b.s * ux + b.v * vx, b.s * uy + b.v * vy
            if math.hypot(nx - p.x, ny - p.y) > 2:
                self.truth.append(
                    {
                        "event": "moved",
                        "t_ms": int(t_end),
                        "pid": p.pid,
                        "to_mm": [round(nx, 1), round(ny, 1)],
                    }
                )
            p.x, p.y = nx, ny
            survivors.append(p)
        self.pawns = survivors
        if end_kind == "relevel" and t_rel is not None:
            self.truth.append({"event": "relevel", "t_ms": int(t_rel), "by": "hand"})
        elif end_kind == "level" and went_over:
            self.truth.append({"event": "relevel", "t_ms": int(t_end), "by": "self"})
        if end_kind != "tipped":
            self._step_pawns(t_end, survivors, +1)
            if went_over:
                self.truth.append({"event": "settled", "t_ms": int(t_end + 300)})
        self.episodes.append(
            {
                "onset": onset,
                "end": t_end,
                "kind": end_kind,
                "falls": len(res.falls),
                "rim_ms": res.rim_ms,
                "theta_max": theta_max,
                "went_over": bool(went_over),
            }
        )
        self.t = t_end + 300
        if self.base:
            self.pick_up_base()

    def _write(
        self, t0: float, f: list[float], mu: list[float], mv: list[float], ux: float, uy: float
    ) -> None:
        vx, vy = -uy, ux
        self.tl.add(
            t0,
            f,
            [a * ux + b * vx for a, b in zip(mu, mv, strict=True)],
            [a * uy + b * vy for a, b in zip(mu, mv, strict=True)],
        )

    def _ring(self, t: float, impulse: float, ux: float, uy: float) -> None:
        """A ringing platform: the strike excites a base mode of 8-40 Hz (no lasting change)."""
        rng = self.rng
        f0 = rng.uniform(8, 40)
        tau = rng.uniform(100, 500)
        amp = min(150.0, impulse * 1000 * 2 * math.pi * f0 / 1000 * rng.uniform(0.3, 1.0))
        n = int(5 * tau / STEP_MS)
        lever = rng.uniform(40, 150)
        vals = [
            amp * math.exp(-k * STEP_MS / tau) * math.sin(2 * math.pi * f0 * k * STEP_MS / 1000)
            for k in range(n)
        ]
        self.tl.add(t, vals, [v * lever * ux for v in vals], [v * lever * uy for v in vals])
        self.truth.append(
            {"event": "ringing", "t_ms": int(t), "freq_hz": round(f0, 1), "amplitude_g": round(amp, 1)}
        )

    # -- removals and hands ------------------------------------------------------------------------
    def remove(self, pawn: Pawn, pinch_ms: float | None = None) -> bool:
        """A pinch grips the pawn (5-40 g for 0.1-1 s), lifts it; only if the disc stays balanced."""
        rng = self.rng
        rest = [p for p in self.pawns if p is not pawn]
        if not self.balanced(rest, 0.97):
            return False
        self.t += rng.uniform(400, 900)
        dur = pinch_ms if pinch_ms is not None else rng.uniform(*self.b.pinch_ms)
        n = max(3, int(dur / STEP_MS))
        grip = rng.uniform(5, 40)
        # the weight goes over 20-100 ms at the end of the pinch (the pawn is lifted)
        n_lift = max(2, int(rng.uniform(20, 100) / STEP_MS))
        prof = [grip * edge(k, 8) for k in range(n)]
        prof += [(grip + pawn.mass) * (1 - edge(k, n_lift)) - pawn.mass for k in range(n_lift)]
        self.tl.add_point_force(self.t, prof, pawn.x, pawn.y)
        t_gone = self.t + len(prof) * STEP_MS
        self.tl.step(t_gone, -pawn.mass, -pawn.mass * pawn.x, -pawn.mass * pawn.y)
        self.pawns.remove(pawn)
        self.truth.append(
            {
                "event": "removed",
                "t_ms": int(t_gone),
                "size": pawn.size,
                "mass_g": round(pawn.mass, 3),
                "pid": pawn.pid,
                "pinch_ms": int(dur),
            }
        )
        self.t = t_gone
        return True

    def hand(self, kind: str | None = None, duration_ms: float | None = None) -> bool:
        """A hand on the disc (a rule violation): two fingers steadying it (tens of g), a palm (hundreds)
        or fingers lifting the rim; placed where it does not tip the disc."""
        rng = self.rng
        kind = kind or rng.choices(("fingers", "palm", "lift"), (0.45, 0.4, 0.15))[0]
        force = {
            "fingers": rng.uniform(15, 80),
            "palm": rng.uniform(150, 800),
            "lift": -rng.uniform(20, 150),
        }[kind]
        dur = duration_ms if duration_ms is not None else rng.uniform(300, 6000)
        mx, my = self.moment()
        wander = 6.0
        if kind == "lift":
            # fingers grip the rim and lift: the grip holds the disc level (it can pull and twist)
            a = rng.uniform(0, 2 * math.pi)
            r = rng.uniform(135, 148)
            x, y = r * math.cos(a), r * math.sin(a)
        else:
            # pressing only (it cannot pull): a steadying hand's centre of pressure lies where the disc
            # stays level, i.e. it balances the pawns' moment within what the support holds
            room = self.sup.hold(self.weight() + force) / force
            a = rng.uniform(0, 2 * math.pi)
            e = rng.uniform(0, 0.4) * room
            x, y = -mx / force + e * math.cos(a), -my / force + e * math.sin(a)
            if math.hypot(x, y) > 140:
                return False
            wander = min(6.0, 0.15 * room)
        self.t += rng.uniform(200, 600)
        n = max(6, int(dur / STEP_MS))
        up, down = rng.uniform(60, 300) / STEP_MS, rng.uniform(60, 300) / STEP_MS
        if up + down > n:
            up = down = n / 2
        wf, wp = rng.uniform(0.2, 0.8), rng.uniform(0, 6.3)
        ta, tf, tp = rng.uniform(0.02, 0.08), rng.uniform(3, 9), rng.uniform(0, 6.3)
        prof = []
        for k in range(n + 1):
            tt = k * STEP_MS / 1000
            prof.append(
                force
                * edge(k, up)
                * edge(n - k, down)
                * (1 + 0.2 * math.sin(2 * math.pi * wf * tt + wp) + ta * math.sin(2 * math.pi * tf * tt + tp))
            )
        prof[-1] = 0.0
        xs = [x + wander * math.sin(2 * math.pi * 0.3 * k * STEP_MS / 1000) for k in range(n + 1)]
        ys = [y + wander * math.cos(2 * math.pi * 0.3 * k * STEP_MS / 1000) for k in range(n + 1)]
        self.tl.add_point_force(self.t, prof, xs, ys)
        end = self.t + n * STEP_MS
        self.truth.append(
            {
                "event": "hand",
                "t_ms": int(self.t),
                "duration_ms": int(end - self.t),
                "force_g": round(force, 1),
                "kind": kind,
            }
        )
        self.truth.append({"event": "settled", "t_ms": int(end + 300)})
        self.t = end + rng.uniform(400, 1000)
        return True

    def best_size(self, available: list[str], x: float, y: float) -> str:
        """The size a careful player picks: the one leaving the disc furthest from its limit."""

        def margin(size: str) -> float:
            trial = self.pawns + [Pawn(0, size, self.masses[size], x, y, 0.2, 0.15)]
            mx, my = self.moment(trial)
            return math.hypot(mx, my) / self.sup.hold(self.weight(trial))

        return min(available, key=margin)


def _slide_left(slide: tuple[float, float, float, float], t: float) -> float:
    """The share of a finger slide's offset not yet covered at ``t`` (1 before it, 0 after; min-jerk)."""
    t_s, d_s = slide[0], slide[1]
    k = min(1.0, max(0.0, (t - t_s) / d_s))
    return 1.0 - (10 * k**3 - 15 * k**4 + 6 * k**5)
