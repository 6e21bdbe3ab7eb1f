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

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.sensing.falls import Pawn

AFTER_N = 6  # readings judged after a dip: the impact (one or two), then a calm level


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
        # ``FallWatch._tipping_pawn``): where its load pressed before the tip, and whether the
        # first plateau of the tilted disc was judged for it
        self.press_xy: tuple[float, float] | None = None
        self.gain_judged = False
        self.rise_before = False  # a load stood a pawn above the base in the second before the tip
        self.rise_pawn: float | None = None  # ... how far, when it weighed like a pawn (no press)
        self.ids_at_tip: frozenset[int] = frozenset()  # the tracked pawns when the tip fired
        self.pre_est: float | None = None  # the estimate of the pawn whose release tipped the disc
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
                tail = self.run[-(AFTER_N - 1):-1]
                if len(tail) == AFTER_N - 2 and max(tail) - min(tail) <= 2.0 * tol and \
                        max(self.run[-1], f) < _median(tail) - tol:
                    # calm at a lower level, then lower still for two readings: a flight ends with
                    # its weight coming back, never with a further drop, so the run so far was a
                    # step (a pawn gone to the table) and this is a new dip from that level (a pawn
                    # leaving just after). (One reading far off a steady flight is what the glitch
                    # filter leaves of a landing's pulse, ``_held_pulse``.)
                    self.before, self.ref = tail, _median(tail)
                    self.run, self.run_held = [self.run[-1], f], False
                    return None
                self.run.append(f)
                if len(self.run) > self.dip_max_n:  # a pawn gone for good: a step, not a flight
                    tail = self.run[-(AFTER_N - 2):]  # the new level is the reference now
                    self.before = tail if max(tail) - min(tail) <= 2.0 * tol else []
                    self.run = []
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
