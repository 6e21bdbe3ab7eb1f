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
from dataclasses import dataclass
from typing import TYPE_CHECKING

from companion.sensing.falls import (
    PAWN_MASS_ERR_G,
    SIZES,
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
        self.run: list[float] = []  # readings below the plateau (depths)
        self.calm_n = 0  # readings in a row on the plateau
        self.ref = 0.0  # the plateau a dip is measured from
        self.pending: tuple[float, bool, int, int] | None = None  # a dip that ended: depth,
        # impact seen, calm readings and readings since

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

    def watch(self, f: float, min_dip_g: float, tol_g: float) -> float | None:
        """Per sample ``f`` while tipped: the depth of a dip that just ended, else None.

        A pawn that falls from the rim onto a base plate wider than the disc takes its weight away
        for its flight and brings it back on landing, with an impact pulse (its momentum delivered
        in a few ms). So: a calm load on the plateau, then at least ``min_dip_g`` below it for
        35-150 ms, steady meanwhile (within ``tol_g``: a flight, not an oscillation), then a pulse
        above the plateau and calm again. A pawn that falls to the table never comes back; a hand
        lifting the rim lasts far longer; a table bump or the disc bouncing on its stop
        oscillates (no calm before and after)."""
        if not self.watch_dips or not self.plateaus:
            return None
        if not self.run and self.pending is None:
            self.ref = self.plateaus[-1].level  # held through a dip (its flight may form a plateau)
        d = self.ref - f
        calm = abs(d) <= self.step_tol_g
        if self.pending is not None:  # after the dip: the impact, then calm again
            depth, seen, n_calm, n = self.pending
            seen = seen or -d > 2.0 * self.step_tol_g
            n_calm += calm
            n += 1
            self.pending = (depth, seen, n_calm, n)
            if n < 5:
                return None
            self.pending = None
            self.calm_n = 0
            return depth if seen and n_calm >= 3 else None
        if d > self.step_tol_g:
            if self.calm_n >= 3 or self.run:
                self.run.append(d)
            if len(self.run) > self.dip_max_n:  # a pawn gone for good: a step, not a flight
                self.run = []
                self.calm_n = 0
            return None
        run = self.run
        self.run = []
        if not run:
            self.calm_n = self.calm_n + 1 if calm else 0
            return None
        self.calm_n = 0
        if not self.dip_min_n <= len(run) <= self.dip_max_n:
            return None
        depth = sorted(run)[len(run) // 2]
        inner = run[1:-1]  # the first and last readings are partial
        if depth < min_dip_g or max(inner) - min(inner) > tol_g or max(run) > depth + tol_g:
            return None
        self.pending = (depth, -d > 2.0 * self.step_tol_g, 0, 0)
        return None

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
    hand_ref: float | None
    run_sign: int
    last_loss_t: int

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
        tol = max(self.s.still_tol_min_g, 5.0 * pipe.sigma_f())
        self.stairs.feed(w[0], w[3], tol)
        depth = self.stairs.watch(w[0][-1], 0.6 * self.masses["small"], tol)
        return [] if depth is None else self._landed_on_base(pipe, t, depth)

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
        dec = self._decompose(pipe, depth, None)
        if dec is None or sum(dec.counts.values()) != 1 or not dec.pawns:
            return []
        pipe.pawns.remove(dec.pawns[0])
        self.on_base.append(dec.pawns[0])
        return [{"event": "fell", "t_ms": t, "pawns": dec.counts, "mass_g": round(depth, 2),
                 "confident": False, "weighed": True}]

    def _off_the_base(self, pipe: Pipeline, lost: float) -> bool:
        """Is a loss the weight of pawns that lay on the base plate (they bounced off)? Then it
        was reported already when they landed."""
        if not self.on_base:
            return False
        sigma = max(0.1, pipe.sigma_f() * max(0.5, math.sqrt(2.0 / self.fall_n)))
        dec = decompose(lost, None, self.on_base, self.masses, sigma_g=sigma)
        if dec is None or not dec.pawns:
            return False
        misfit = abs(lost - sum(p.mass_g for p in dec.pawns))
        if misfit > 2.0 * math.hypot(sigma, PAWN_MASS_ERR_G):
            return False
        for p in dec.pawns:
            self.on_base.remove(p)
        return True

    def _weighed_falls(self, pipe: Pipeline, t: int, loss: float) -> list[dict]:
        """Level again, but the pawns still tracked on the disc would hold it over: some pawns
        slid off and lie on the base plate (still weighed). Report the likeliest, not confident."""
        if not self.positional or self.tip_moment is None:
            return []
        gone = weighed_falls(pipe.pawns, self.tip_moment, self.layout.radius_mm)
        if not gone:
            return []
        for p in gone:
            pipe.pawns.remove(p)
        counts = {k: sum(1 for p in gone if p.size == k) for k in SIZES}
        return [{"event": "fell", "t_ms": t, "pawns": counts, "mass_g": round(loss, 2),
                 "confident": False, "weighed": True}]

    def _decompose(self, pipe: Pipeline, lost: float | list[float],  # noqa: ANN202
                   moment: tuple[float, float] | None):
        # the loss is the difference of two levels averaged over a few samples (few at 10 Hz);
        # a list is the steps of the staircase after a tip (shorter plateaus)
        n = self.step_n if isinstance(lost, list) else self.fall_n
        sigma = max(0.1, pipe.sigma_f() * max(0.5, math.sqrt(2.0 / n)))
        toward = None
        if self.tip_t is not None and self.positional:
            zero = pipe.zero
            mx, my = self.base[1] - zero[1], self.base[2] - zero[2]
            norm = math.hypot(mx, my)
            if norm > 1e-6:
                toward = (mx / norm, my / norm)  # the disc tips towards the pawns' moment
        if isinstance(lost, list):
            return decompose_steps(lost, pipe.pawns, self.masses, sigma_g=sigma, toward=toward,
                                   radius_mm=self.layout.radius_mm)
        return decompose(lost, moment, pipe.pawns, self.masses, sigma_g=sigma, toward=toward,
                         radius_mm=self.layout.radius_mm)

    def _loss_events(self, pipe: Pipeline, t: int, lost: float, moment: tuple[float, float] | None,
                     removed: bool) -> list[dict]:
        """``removed`` (one pawn lifted by hand) or ``fell`` for a loss of mass; update the pawn list."""
        if self.tip_t is not None and self._off_the_base(pipe, lost):
            self.stairs.reported()
            return []
        dec = self._decompose(pipe, lost, moment if self.positional else None)
        if self.tip_t is not None:  # after a tip: read the loss step by step when steps were seen
            steps = self.stairs.steps(lost)
            self.stairs.reported()
            if len(steps) > 1:
                sigma = max(0.1, pipe.sigma_f() * max(0.5, math.sqrt(2.0 / self.fall_n)))
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
            ev = {"event": "fell", "t_ms": t, "pawns": dec.counts, "mass_g": round(lost, 2)}
        if not dec.confident or (self.tip_t is not None and not self.stairs.watch_dips):
            # after a tip at a slow rate one reading spans a pawn's flight onto a base plate (it
            # stays weighed) or several falls: the counts cannot be singled out
            ev["confident"] = False
        return [ev]
