"""The force staircase of a tipped disc: pawns leave one after another, each a step down.

While the disc lies tipped its load is static between falls, so the total force is a staircase:
every pawn that slides over the rim takes its weight away at once. Steps a few tenths of a
second apart are merged by the long quiet window that measures a loss precisely; short quiet
plateaus (about 100 ms) still separate them. A loss split into steps is far less ambiguous than
the same loss read as a whole (one medium pawn and, later, two small pawns weigh what one large
pawn and one small pawn weigh, but each step alone has one reading), so each step is decomposed
on its own.

Only decreases are steps. A rise after a lower plateau is a temporary load that went away (a
hand lifting the low rim, a pawn that fell onto a base plate and stays weighed): it is merged
into the plateau before, never read as pawns coming back.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from companion.sensing.falls import (
    PAWN_MASS_ERR_G,
    SIZES,
    STEP_ERR_G,
    STEP_PER_PAWN,
    Decomposition,
    Pawn,
    decompose,
    decompose_steps,
    prefer_steps,
    weighed_falls,
)

if TYPE_CHECKING:
    from companion.sensing.layout import DiscLayout
    from companion.sensing.pipeline import Pipeline
    from companion.sensing.settings import SensingSettings

BASE_PICKUP_INSIDE_MM = 3.0  # a pick-up this far inside the disc's edge may still be off the base plate
AFTER_N = 6  # readings judged after a dip: the impact (one or two), then a calm level
TILTED_ERR_G = 0.3  # error of a level of the tilted disc, as of a step's plateau
WEIGHED_LAY_OVER = 2.0  # tilt excursion (in tip thresholds) of a disc that lay over far enough to shed pawns
FINGER_LEAVES_MS = 3000.0  # a finger resting on a pawn just placed lets go within this of its `placed`
FINGER_AT_PAWN_MM = 25.0  # ... and it leaves from where that pawn stands (a finger's aim, the pawn's size)
SLIDE_FROM_FRACTION = 0.8  # a pawn slides off a level disc by itself only from its rim (of the radius)
TIP_PRESS_LOOKBACK_MS = 250.0  # how far back before a tip the load of a pawn set down is looked for
RISE_LOOKBACK_MS = 1000.0  # how far back before a tip a load set down (and maybe gone since) is looked for
RISE_MIN_MS = 60.0  # ... standing at least this long (a knock's swing is shorter)
TIP_TRANSIENT_MS = 40.0  # the last readings before the tip fired already show the disc moving


@dataclass
class Plateau:
    """A quiet stretch of the total force: its mean and the time of its last sample."""

    level: float
    t_last: int
    n: int


class Staircase:
    """Quiet plateaus of the total force since a tip, kept non-increasing (see module doc)."""

    def __init__(self, step_tol_g: float, dt_ms: float) -> None:
        self.step_tol_g = step_tol_g
        self.plateaus: list[Plateau] = []
        self.mark = 0  # plateaus before this index were covered by an earlier report
        # a dip: a pawn's flight from the rim to a base plate wider than the disc (40-150 ms)
        self.dip_min_n = max(3, round(35.0 / dt_ms))
        self.dip_max_n = round(150.0 / dt_ms)
        self.watch_dips = dt_ms <= 25.0  # a reading must be shorter than the flight
        self.before: list[float] = []  # the last readings before a dip (its reference level)
        self.ref = 0.0  # the level a dip is measured from
        self.run: list[float] = []  # readings below the reference (the flight)
        self.after: list[float] = []  # readings after the dip ended (the impact, then calm)
        self.landings = 0  # landings on the base plate seen but not read (several pawns at once)
        self.run_held = False  # a lone cell jump was held (as a glitch) at the end of the current dip
        self.after_landing: float | None = None  # the level right after the last landing read
        # the pawn set down just before the tip that no press reading weighed (see
        # ``FallReader._tipping_pawn``): where its load pressed before the tip, and whether the
        # first plateau of the tilted disc was judged for it
        self.press_xy: tuple[float, float] | None = None
        self.gain_judged = False
        self.rise_before = False  # a load stood a pawn above the base in the second before the tip
        self.tip_pawn: Pawn | None = None  # the pawn so found (not in the tracked moment at the tip)

    def feed(self, fs: list[float], ts: list[int], tol_g: float) -> None:
        """Offer the latest short window of the force (values ``fs`` at times ``ts``): when it is
        quiet (range within twice the still tolerance ``tol_g``: a tilted disc with pawns sliding
        is noisier than a level one; the means of its two halves agree within half a step) it
        extends the current plateau or starts a new one."""
        if max(fs) - min(fs) > 2.0 * tol_g:
            return  # a transient (the disc bouncing on its stop, a knock)
        h = len(fs) // 2
        level = sum(fs) / len(fs)
        if abs(sum(fs[:h]) / h - sum(fs[h:]) / (len(fs) - h)) > 0.5 * self.step_tol_g:
            return  # a step may hide in the noise of this window: its halves disagree
        cur = self.plateaus[-1] if self.plateaus else None
        if cur is not None and abs(level - cur.level) <= 0.5 * self.step_tol_g:
            # the same plateau: a running mean of the window means, weighted by new samples
            new = sum(1 for t in ts if t > cur.t_last)
            if new:
                cur.level = (cur.level * cur.n + level * new) / (cur.n + new)
                cur.n += new
                cur.t_last = ts[-1]
            return
        if cur is not None and (ts[0] <= cur.t_last or abs(level - cur.level) <= self.step_tol_g):
            return  # overlaps the previous plateau, or neither the same level nor a step: wait
        while len(self.plateaus) > self.mark + 1 and level > self.plateaus[-1].level + self.step_tol_g:
            self.plateaus.pop()  # a temporary dip (a hand lifting, a pawn landing on the base)
        last = self.plateaus[-1] if self.plateaus else None
        if last is not None and abs(level - last.level) <= self.step_tol_g:
            last.t_last = ts[-1]
            return
        self.plateaus.append(Plateau(level, ts[-1], len(fs)))

    def watch(self, f: float, min_dip_g: float, held: bool = False) -> float | None:
        """Per sample ``f`` while tipped: the weight that came back after a dip that just ended
        (a pawn that landed on the base plate), else None.

        A pawn that falls from the rim onto a base plate wider than the disc takes its weight away
        for its flight and brings it back on landing, with an impact pulse (its momentum delivered
        in a few ms). So: a calm load (the last ``AFTER_N - 2`` readings within a step tolerance),
        then at least ``min_dip_g`` below it for 35-150 ms, then a pulse more than two step
        tolerances above it within the first readings after the dip, then a calm level again. The
        flight is measured by its median reading after the first (partial) one: a tipped disc on a
        soft stop rebounds a little as a load leaves its rim, so the flight is not flat. The weight
        that came back is the calm level after the landing minus the flight level: a pawn landing
        while another one falls to the table brings back only its own weight. A pawn that falls to
        the table never comes back; a hand lifting the rim lasts far longer; a table bump or the
        disc bouncing on its stop rings (no calm before and after, no short pulse)."""
        if not self.watch_dips:
            return None
        tol = self.step_tol_g
        if self.after:
            self.after.append(f)
            if len(self.after) < AFTER_N:
                return None
            return self._landing(min_dip_g)
        if self.run:
            self.run_held = self.run_held or held
            if f < self.ref - tol:
                self.run.append(f)
                if len(self.run) > self.dip_max_n:  # a pawn gone for good: a step, not a flight
                    self.run = []
                    self.before = []
                return None
            if len(self.run) < self.dip_min_n:
                # shorter than any flight (a reading or two of noise): no dip, and the readings
                # that follow are watched as a reference again, not as a landing's aftermath
                # (which would swallow the start of a real flight)
                self.before = (self.before + self.run + [f])[-(AFTER_N - 2):]
                self.run = []
                return None
            self.after = [f]
            return None
        calm = len(self.before) >= AFTER_N - 2 and max(self.before) - min(self.before) <= 2.0 * tol
        if calm:
            ref = sorted(self.before)[len(self.before) // 2]
            if f < ref - tol:
                self.ref = ref
                self.run = [f]
                self.run_held = False
                return None
        self.before.append(f)
        if len(self.before) > AFTER_N - 2:
            del self.before[0]
        return None

    def _landing(self, min_dip_g: float) -> float | None:
        """Judge a dip whose flight (``run``) and aftermath (``after``) are complete."""
        run, after, ref, tol = self.run, self.after, self.ref, self.step_tol_g
        self.run, self.after, self.before = [], [], after[-(AFTER_N - 2):]
        if not self.dip_min_n <= len(run) <= self.dip_max_n:
            return None
        flight = _median(run[1:])
        pulse = [i for i in range(3) if after[i] > ref + 2.0 * tol]
        if pulse:
            i = pulse[-1] + 1
            rest = after[i:i + 3]  # the level right after it (the next pawn may go)
        elif self._held_pulse(run, flight) or self.run_held:
            # weaker evidence: the whole aftermath must be calm (no ringing). A landing's pulse is
            # one reading, mostly on the cell nearest the landing: the glitch filter may hold that
            # cell for it (seen as a lone jump held at the end of the dip, or as what is left)
            rest = after
        else:
            return None  # no landing pulse: the load came back without anything landing
        depth = ref - flight
        if pulse and depth >= min_dip_g:
            # a pawn's weight left and something struck the platform: a landing, read or not
            self.landings += 1
        if max(rest) - min(rest) > 2.0 * tol:
            return None  # no calm after the pulse (ringing, or the next pawn going)
        back = _median(rest) - flight
        if depth < min_dip_g or back < min_dip_g or back > depth + tol:
            return None
        self.landings -= bool(pulse)  # read: reported as a pawn on the base plate
        self.after_landing = _median(rest)
        # all of it came back: the pawn's weight is measured twice (leaving and landing)
        return 0.5 * (depth + back) if back >= depth - tol else back

    def _held_pulse(self, run: list[float], flight: float) -> bool:
        """Does the flight end in a one-reading outlier on an otherwise steady flight? The landing
        pulse is one reading, mostly on the cell nearest the landing: the glitch filter may hold
        that cell for it, which leaves the other cells' share (their opposite lever) as a reading
        far off the flight level, either way. A swinging load (a hand rocking the disc) is no
        steady flight."""
        tol = self.step_tol_g
        body = run[2:]  # the first readings are partial (and one may be held)
        if len(body) < 3:
            return False
        k = max(range(len(body)), key=lambda j: abs(body[j] - flight))
        if k < len(body) - 2 or abs(body[k] - flight) <= 2.0 * tol:
            return False
        steady = body[:k] + body[k + 1:]
        return max(steady) - min(steady) <= 2.0 * tol

    def steps(self, total_g: float) -> list[float]:
        """Split a loss of ``total_g`` grams since the last report into the steps seen, in time
        order. A drop before the first plateau is a step of its own; the small difference between
        the last plateau and the caller's (more precise) level goes to the last step. The whole
        loss as one step when no steps were seen or they do not add up."""
        ps = self.plateaus[self.mark:]
        inner = [a.level - b.level for a, b in zip(ps, ps[1:], strict=False)]
        inner = [s for s in inner if s > self.step_tol_g]
        rest = total_g - sum(inner)
        if not inner or rest < -self.step_tol_g:
            return [total_g]  # no steps seen, or the staircase does not add up: the whole loss
        if rest > self.step_tol_g:
            return [rest, *inner]  # a drop before the first quiet plateau (an early fall)
        inner[-1] += rest  # measurement differences: the last step absorbs them
        return inner if inner[-1] > self.step_tol_g else [total_g]

    def reported(self) -> None:
        """A loss was reported: later steps start from the latest plateau."""
        self.mark = max(0, len(self.plateaus) - 1)


def _median(values: list[float]) -> float:
    """The median of a short list."""
    v = sorted(values)
    h = len(v) // 2
    return v[h] if len(v) % 2 else 0.5 * (v[h - 1] + v[h])


class FallReader:
    """The fall-reading half of ``SegmentJudge``: losses of mass after a tip (step by step), pawns
    landing on the base plate, and the decomposition of every loss into pawns."""

    s: SensingSettings
    masses: dict[str, float]
    layout: DiscLayout
    positional: bool
    tip_t: int | None
    base: tuple[float, float, float]
    fall_n: int
    step_n: int
    stairs: Staircase
    on_base: list[Pawn]
    lost_reported: float
    lost_moment: tuple[float, float]
    tip_moment: tuple[float, float] | None
    exc_max: float
    hand_ref: float | None
    run_sign: int
    back_t: int | None
    last_loss_t: int
    righted: bool
    dec_memo: dict
    placed_t: int
    unsure_falls: bool
    pre_placed: bool
    pre_est: float | None
    press_at_tip: bool
    dt: float
    _placed_event: Callable[..., dict]  # provided by PlacementReader (the placing half of the judge)

    def _drifted(self, t: int) -> tuple[float, float, float]:
        raise NotImplementedError

    def zero_tol_g(self, pipe: Pipeline) -> float:
        """Largest net force change that still counts as 'no change'."""
        raise NotImplementedError

    def _watch_stairs(self, pipe: Pipeline, t: int) -> list[dict]:
        """Every sample while tipped: the staircase of plateaus and pawns landing on the base."""
        w = pipe.window(self.step_n)
        if w is None:
            return []
        if self.stairs.press_xy is None:
            self.stairs.press_xy = self._load_point_before_tip(pipe)
        tol = max(self.s.still_tol_min_g, 5.0 * pipe.sigma_f())
        self.stairs.feed(w[0], w[3], tol)
        gained = self._tipping_pawn(pipe, t)
        if gained:
            return gained
        depth = self.stairs.watch(w[0][-1], 0.6 * self.masses["small"], pipe.glitch_held)
        return [] if depth is None else self._landed_on_base(pipe, t, depth)

    def _load_point_before_tip(self, pipe: Pipeline) -> tuple[float, float]:
        """Where the load above the base pressed in the last readings before the tip fired (the
        pawn set down and its finger), by the force-weighted mean of its moment; the readings of
        the tip itself (the disc's own weight moving out) are left out."""
        n = max(4, round(TIP_PRESS_LOOKBACK_MS / self.dt))
        w = pipe.window(n)
        bf, bx, by = self.base
        self.stairs.rise_before = self._rose_before_tip(pipe, bf)
        sw = sx = sy = 0.0
        if w is not None:
            skip = max(1, round(TIP_TRANSIENT_MS / self.dt))
            for f, x, y in list(zip(w[0], w[1], w[2], strict=True))[:-skip]:
                d = f - bf
                if d >= 0.6 * self.masses["small"]:
                    sw += d
                    sx += x - bx
                    sy += y - by
        if sw <= 0.0:
            return 0.0, 0.0
        x, y = sx / sw, sy / sw
        r = math.hypot(x, y)
        lim = self.layout.radius_mm - 5.0
        return (x * lim / r, y * lim / r) if r > lim else (x, y)

    def _rose_before_tip(self, pipe: Pipeline, base_f: float) -> bool:
        """Did the load stand a pawn's weight above the base for a while in the last second before
        the tip fired (a pawn set down, or a finger pressing)? The readings of the tip itself are
        left out."""
        n = round(RISE_LOOKBACK_MS / self.dt)
        w = None
        while w is None and n >= 4:
            w = pipe.window_f(n)
            n //= 2
        if w is None:
            return False
        need = max(2, round(RISE_MIN_MS / self.dt))
        run = 0
        for f in w[:-max(1, round(TIP_TRANSIENT_MS / self.dt))]:
            run = run + 1 if f - base_f >= 0.6 * min(self.masses.values()) else 0
            if run >= need:
                return True
        return False

    def _tipping_pawn(self, pipe: Pipeline, t: int) -> list[dict]:
        """The first quiet plateau of the tilted disc, before any pawn fell, stands a pawn above
        the base, and no press was weighed for it: the pawn set down just before the tip (a
        finger too light to count as a press, or a tip that fired after the release). Its weight
        is on the disc when it tips, so the falls are read from it: it joins the pawns on the
        disc (``placed``, not confident: weighed on the tilted disc) and the base rises by it.
        Without it, the falls of the tip are read one pawn short and with confidence."""
        st = self.stairs
        if st.gain_judged or self.pre_placed or self.pre_est is not None or self.press_at_tip:
            st.gain_judged = st.gain_judged or bool(st.plateaus)
            return []
        if not st.plateaus:
            return []
        first = st.plateaus[0]
        if first.n < self.step_n or (self.tip_t is not None and first.t_last <= self.tip_t):
            return []
        st.gain_judged = True
        gain = first.level - self._drifted(t)[0]
        lo, hi = 0.6 * min(self.masses.values()), 1.3 * max(self.masses.values())
        size = min(self.masses, key=lambda k: abs(math.log(max(gain, 1e-3) / self.masses[k])))
        if not lo <= gain <= hi or abs(gain - self.masses[size]) > max(3.0 * TILTED_ERR_G,
                                                                       0.15 * self.masses[size]):
            # no pawn's weight: nothing was set down, or a finger still rests, or the pawn set
            # down went before the tilted disc was quiet (a tip seen late): when a load stood on
            # the disc just before, the falls of this tip may include a pawn never weighed
            if st.rise_before:
                self.unsure_falls = True
            return []
        px, py = st.press_xy if st.press_xy is not None else (0.0, 0.0)
        ev = self._placed_event(pipe, t, size, gain, px, py)
        ev["confident"] = False
        self.pre_placed = True
        st.tip_pawn = pipe.pawns[-1]
        b = self.base
        self.base = (b[0] + gain, b[1] + gain * px, b[2] + gain * py)
        return [ev]

    def _check_falls(self, pipe: Pipeline, t: int) -> list[dict] | None:
        """While tipped: pawns come off one after another. As soon as the total force has been
        quiet for a short while after a drop, report the loss (mass evidence only: the disc is
        still tilted, so the moment says little)."""
        w = pipe.window(self.fall_n)
        if w is None:
            return None
        fs, ts = w[0], w[3]
        if max(fs) - min(fs) > max(self.s.still_tol_min_g, 5.0 * pipe.sigma_f()):
            return None
        level_f = sum(fs) / len(fs)
        self.hand_ref = level_f  # a new quiet level: an open run was a step (a pawn falling)
        self.run_sign = 0
        self.back_t = None
        if ts[0] <= self.last_loss_t:
            return None
        new_loss = -(level_f - self._drifted(t)[0]) - self.lost_reported
        if new_loss <= self.zero_tol_g(pipe) or (self._decompose(pipe, new_loss, None) is None
                                                  and not self.on_base):
            return None
        self.lost_reported += new_loss
        self.last_loss_t = t
        return self._loss_events(pipe, t, new_loss, None, removed=False)

    def _landed_on_base(self, pipe: Pipeline, t: int, depth: float) -> list[dict]:
        """A dip of one pawn's weight with a landing impact: that pawn fell onto the base plate,
        where it stays weighed. Reported now (not confident: the weight never left for good); it
        is remembered, so that its weight leaving later (it bounced off the base, or is picked up)
        is not read as another pawn falling."""
        # the flight level is a few readings of a disc rebounding on its stop: its error is a good
        # part of the still tolerance, far more than a plateau's; one dip is likelier one pawn
        sigma = max(0.1, 0.5 * self.stairs.step_tol_g)
        dec = decompose(depth, None, pipe.pawns, self.masses, sigma_g=sigma, toward=self._toward(pipe),
                        radius_mm=self.layout.radius_mm, per_pawn=STEP_PER_PAWN)
        if dec is None or sum(dec.counts.values()) != 1 or not dec.pawns:
            self.stairs.landings += 1  # a landing no single pawn fits: not read, but seen
            return []
        pipe.pawns.remove(dec.pawns[0])
        self.on_base.append(dec.pawns[0])
        return [{"event": "fell", "t_ms": t, "pawns": dec.counts, "mass_g": round(depth, 2),
                 "confident": False, "weighed": True}]

    def _weight_of(self, pipe: Pipeline, lost: float, pawns: list[Pawn],
                   extra_g: float) -> tuple[Pawn, ...] | None:
        """The pawns among ``pawns`` whose weight a loss is, within 3 sigma (the level difference,
        a pawn's mass error and ``extra_g``), or None."""
        if not pawns:
            return None
        sigma = max(0.1, pipe.sigma_f() * max(0.5, math.sqrt(2.0 / self.fall_n)))
        dec = decompose(lost, None, pawns, self.masses, sigma_g=sigma)
        if dec is None or not dec.pawns:
            return None
        if abs(lost - sum(p.mass_g for p in dec.pawns)) > 3.0 * math.sqrt(
                sigma ** 2 + PAWN_MASS_ERR_G ** 2 + extra_g ** 2):
            return None
        return dec.pawns

    def _off_the_base(self, pipe: Pipeline, lost: float) -> bool:
        """Is a loss the weight of pawns that lay on the base plate (they bounced off)? Then it
        was reported already when they landed."""
        # measured on the tipped disc (a plateau biased like a step): 3 sigma, since a pawn known to
        # lie on the ledge rolling off is likelier than a new fall of the same weight
        after = self.stairs.after_landing
        now = pipe.window_f(self.step_n)
        if after is not None and now is not None and sum(now) / len(now) >= after - self.stairs.step_tol_g:
            return False  # the load has not gone down since the landing: this loss came before it
        gone = self._weight_of(pipe, lost, self.on_base, STEP_ERR_G)
        if gone is None:
            return False
        for p in gone:
            self.on_base.remove(p)
        return True

    def _base_pickup(self, pipe: Pipeline, lost: float,
                     moment: tuple[float, float] | None) -> tuple[Pawn, ...] | None:
        """The pawns lying on the base plate (reported fallen, still weighed) whose weight a loss
        is, when it left from outside the disc (where the base plate is): a player picking them
        up. None when the loss fits none of them, or left from where pawns stand on the disc."""
        picked = self._weight_of(pipe, lost, pipe.base_pawns, 0.0)
        if picked is None:
            return None
        if self.positional and moment is not None and not self._off_the_disc(pipe, lost, moment):
            return None  # it left from the disc: a pawn standing there was lifted
        return picked

    def _off_the_disc(self, pipe: Pipeline, lost: float, moment: tuple[float, float] | None) -> bool:
        """Did a loss leave from outside the disc's edge (the base plate around it)? Where it left
        is the moment lost over the mass lost, which is noisy for a light pawn read from few
        readings (10 Hz): it must lie out by two of its own sigmas."""
        if not self.positional or moment is None or lost <= 0.0:
            return False
        sigma_r = pipe.sigma_m() * math.sqrt(2.0 / self.fall_n) / lost
        return math.hypot(*moment) / lost >= self.layout.radius_mm - BASE_PICKUP_INSIDE_MM + 2.0 * sigma_r

    def _weighed_falls(self, pipe: Pipeline, t: int) -> list[dict]:
        """Level again, but the pawns still tracked on the disc would hold it over: some pawns
        slid off and lie on the base plate (still weighed). Report the likeliest, not confident."""
        if not self.positional or self.tip_moment is None:
            return []
        if self.exc_max < WEIGHED_LAY_OVER * pipe.tip_threshold():
            # pawns slide only on a disc lying far over (tilted past their friction); a disc that
            # rocked a little and came back (a wobble read as a tip) shed none of them
            return []
        if self.stairs.tip_pawn is not None:
            # the "tip" came as a pawn was set down with a light touch and nothing was lost: the
            # disc rocking as that pawn settled reads the same (``_gained_pawn``), and the
            # pawns' moment says nothing of a limit the finger's push helped to pass
            return []
        gone = weighed_falls(pipe.pawns, self.tip_moment, self.layout.radius_mm)
        if not gone:
            return []
        for p in gone:
            pipe.pawns.remove(p)
            self.on_base.append(p)  # still weighed: its pick-up later is no second fall
        counts = {k: sum(1 for p in gone if p.size == k) for k in SIZES}
        # the weight never left the platform: the mass reported is what the pawns weighed when placed
        mass = sum(p.mass_g for p in gone)
        return [{"event": "fell", "t_ms": t, "pawns": counts, "mass_g": round(mass, 2),
                 "confident": False, "weighed": True}]

    def _toward(self, pipe: Pipeline) -> tuple[float, float] | None:
        """After a tip: the unit vector the disc tipped towards (the pawns' moment), else None."""
        if self.tip_t is None or not self.positional:
            return None
        zero = pipe.zero
        mx, my = self.base[1] - zero[1], self.base[2] - zero[2]
        norm = math.hypot(mx, my)
        return (mx / norm, my / norm) if norm > 1e-6 else None

    def _decompose(self, pipe: Pipeline, lost: float | list[float],  # noqa: ANN202
                   moment: tuple[float, float] | None):
        # the loss is the difference of two levels averaged over a few samples (few at 10 Hz);
        # a list is the steps of the staircase after a tip (shorter plateaus)
        n = self.step_n if isinstance(lost, list) else self.fall_n
        sigma = max(0.1, pipe.sigma_f() * max(0.5, math.sqrt(2.0 / n)))
        if not isinstance(lost, list) and self.tip_t is not None and not self.righted:
            # a level of the disc still lying on its stop: it rebounds as pawns leave and rocks
            # after a knock, so the level is biased like a step's plateau
            sigma = math.hypot(sigma, TILTED_ERR_G)
        toward = self._toward(pipe)
        # bounded cost: a level that is not explained yet is judged again on every sample, and
        # the reading of the same loss (to 0.02 g, 10 g*mm) of the same pawns is not re-run
        key = (tuple(round(v / 0.02) for v in lost) if isinstance(lost, list) else round(lost / 0.02),
               None if moment is None else (round(moment[0] / 10.0), round(moment[1] / 10.0)),
               tuple(map(id, pipe.pawns)), round(sigma, 3),
               None if toward is None else (round(toward[0], 3), round(toward[1], 3)))
        memo = self.dec_memo
        if key in memo:
            return memo[key]
        if len(memo) > 64:
            memo.clear()
        if isinstance(lost, list):
            dec = decompose_steps(lost, pipe.pawns, self.masses, sigma_g=sigma, toward=toward,
                                  radius_mm=self.layout.radius_mm)
        else:
            dec = decompose(lost, moment, pipe.pawns, self.masses, sigma_g=sigma, toward=toward,
                            radius_mm=self.layout.radius_mm)
        memo[key] = dec
        return dec

    def _loss_events(self, pipe: Pipeline, t: int, lost: float, moment: tuple[float, float] | None,
                     removed: bool) -> list[dict]:
        """``removed`` (one pawn lifted by hand) or ``fell`` for a loss of mass; update the pawn list."""
        if self.tip_t is not None and self._off_the_base(pipe, lost):
            self.stairs.reported()
            return []
        if self.tip_t is None and not removed and self._finger_left(pipe, t, lost, moment):
            return []
        unseen = False
        if self.tip_t is None and removed:  # a pinch lifted it (a pawn sliding off is not picked)
            picked = self._base_pickup(pipe, lost, moment)
            if picked is not None:  # a fallen pawn picked up from the base plate: reported already
                for p in picked:
                    pipe.base_pawns.remove(p)
                return []
            if self._off_the_disc(pipe, lost, moment):
                # picked up from outside the disc: a pawn that fell onto the base plate unseen
                # (at 10 Hz a flight is shorter than a reading); it fell, it was not lifted off
                removed = False
                unseen = True
        dec = self._decompose(pipe, lost, None if unseen or not self.positional else moment)
        if self.tip_t is not None:  # after a tip: read the loss step by step when steps were seen
            steps = self.stairs.steps(lost)
            self.stairs.reported()
            if len(steps) > 1:
                sigma = max(0.1, pipe.sigma_f() * max(0.5, math.sqrt(2.0 / self.fall_n)))
                if not self.righted:
                    # the total is a level of the disc still lying on its stop: it rebounds as
                    # pawns leave, so the level is biased like a step's plateau
                    sigma = math.hypot(sigma, TILTED_ERR_G)
                dec = prefer_steps(lost, dec, self._decompose(pipe, steps, None), sigma)
        if dec is None:
            if lost < 0.6 * min(self.masses.values()):
                return []
            size = min(self.masses, key=lambda k: abs(math.log(lost / self.masses[k])))
            return [{"event": "fell", "t_ms": t, "pawns": {s: int(s == size) for s in SIZES},
                     "mass_g": round(lost, 2), "confident": False}]
        for p in dec.pawns:
            pipe.pawns.remove(p)
            if p.x_mm is not None and p.y_mm is not None and self.tip_t is not None:
                self.lost_moment = (self.lost_moment[0] + p.mass_g * p.x_mm,
                                    self.lost_moment[1] + p.mass_g * p.y_mm)
        total = sum(dec.counts.values())
        if removed and total == 1:
            size = next(s for s, c in dec.counts.items() if c)
            ev = {"event": "removed", "t_ms": t, "size": size, "mass_g": round(lost, 2)}
        else:
            ev = {"event": "fell", "t_ms": t, "pawns": dec.counts, "mass_g": round(lost, 2),
                  "posterior": round(dec.posterior, 3)}  # of these counts, among every reading
        if not dec.confident or (self.tip_t is not None and (not self.stairs.watch_dips or self.unsure_falls
                                                             or self.stairs.landings)):
            # after a tip at a slow rate one reading spans a pawn's flight onto a base plate (it
            # stays weighed) or several falls: the counts cannot be singled out; nor when pawns
            # were seen landing on the base plate without being read (they may stay or roll off)
            ev["confident"] = False
        if any(self._size_unsure(p) for p in dec.pawns):
            # a pawn taken was weighed at its placement as no size really (a finger, two pawns, a
            # tilted disc): what it is, and so what fell, rests on that reading
            ev["confident"] = False
        if unseen:
            ev["confident"] = False
            ev["from_base"] = True
        elif self.tip_t is None and not removed and not self._slid_from_rim(dec):
            # no tip was seen and no pinch lifted it, but a level disc loses a pawn by itself only
            # over its rim: a pawn from further in left a disc that tilted unseen (more may have
            # gone onto the base plate), or the loss is no pawn at all (a finger leaving)
            ev["confident"] = False
        return [ev]

    def _finger_left(self, pipe: Pipeline, t: int, lost: float, moment: tuple[float, float] | None) -> bool:
        """Was a loss with no tip and no pinch the finger of the last placement leaving, not a pawn?
        A light finger resting steadily on a pawn just set down makes a level that was read as
        that pawn; when it lets go, the load goes down by the finger's force, from where that
        pawn stands, and what stays is a pawn's weight. No pawn falls then (a pawn standing
        there leaves a level disc only over the rim, and takes its whole weight): the pawn is
        re-read as what stayed (``placed`` cannot be retracted; the falls read later count the
        pawn that is really there), and no ``fell`` is reported."""
        if not self.positional or moment is None or not pipe.pawns or lost <= 0.0:
            return False
        if t - self.placed_t > FINGER_LEAVES_MS:
            return False
        last = pipe.pawns[-1]
        if last.x_mm is None or last.y_mm is None:
            return False
        rest = last.mass_g - lost
        lightest, heaviest = min(self.masses.values()), max(self.masses.values())
        if not 0.6 * lightest <= rest <= 1.3 * heaviest:
            return False  # the whole pawn went (a slide-off over the rim), or more than it
        # where the loss left: its moment over its mass, within the noise of a light loss
        sigma_r = pipe.sigma_m() * math.sqrt(2.0 / self.fall_n) / lost
        off = math.hypot(moment[0] / lost - last.x_mm, moment[1] / lost - last.y_mm)
        if off > max(FINGER_AT_PAWN_MM, 3.0 * sigma_r):
            return False
        size = min(self.masses, key=lambda k: abs(math.log(rest / self.masses[k])))
        pipe.pawns[-1] = Pawn(size, rest, last.x_mm, last.y_mm)
        return True

    def _size_unsure(self, pawn: Pawn) -> bool:
        """Does a tracked pawn's measured mass fit no size (beyond the size tolerance a placement is
        matched with: its ``placed`` named the nearest size, not confident)?"""
        nominal = self.masses[pawn.size]
        return abs(pawn.mass_g - nominal) > max(self.s.pawn_tol_min_g, self.s.pawn_tol_frac * nominal)

    def _slid_from_rim(self, dec: Decomposition) -> bool:
        """Did every pawn of a reading stand where a pawn slides off a level disc alone (near the
        rim)? Unknown without positions (one cell): then the reading has only the mass."""
        if not self.positional or not dec.pawns:
            return False
        return all(p.x_mm is not None and p.y_mm is not None
                   and math.hypot(p.x_mm, p.y_mm) >= SLIDE_FROM_FRACTION * self.layout.radius_mm
                   for p in dec.pawns)
