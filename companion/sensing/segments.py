"""Judging a segment (from a trigger until the load is still again) into sensed events.

The ``Pipeline`` keeps the signals and the fast path; ``SegmentJudge`` looks at one segment:
its peaks, the finger press, a tip, and the still level at the end, and decides what happened
(``placed``, ``removed``, ``fell``, ``hand``, ``settled`` or nothing at all for a bump).
It is told what it reads of the pipeline (a segment's ``Readings``, ``readings.py``) and returns
what it decides of the pipeline's state (``Verdict``). It owns the segment's bookkeeping and its
stages; a stage is told what it needs of the segment (``FallWatch``: ``SegmentFacts``, built by
``fall_facts``) and the judge applies what it decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.sensing.explain import DECIDE_MS, expired_loss, explain_loss, held_came_back, hold, unexplained
from companion.sensing.falls import SIZES
from companion.sensing.fallwatch import LONE_LOSS_PAWNS, FallWatch
from companion.sensing.handruns import HandRuns
from companion.sensing.massonly import Press, tip_after_release, tip_events, tip_of
from companion.sensing.placing import PawnLocator, Placements
from companion.sensing.pressing import PressTracker
from companion.sensing.segfacts import NO_STAIRS, SegmentFacts, StairsRead, Verdict
from companion.sensing.settings import SensingSettings
from companion.sensing.slideoff import slid_off
from companion.sensing.stillwindow import StillWindow
from companion.sensing.tipepisode import TipEpisode
from companion.sensing.tipping import TippingPawn
from companion.sensing.trace import TraceHeader

if TYPE_CHECKING:
    from companion.sensing.explain import Explained, Held
    from companion.sensing.readings import Readings

PRESS_MIN_G = 10.0  # force above the baseline that counts as a press (finger, pinch or hand) ...
HAND_WITH_LOSS_MS = 1200.0  # a sustained press this long next to a loss is a hand (pinches last up to ~1 s)
PRESS_MIN_PAWNS = 1.5  # ... and at least this many of the heaviest pawn (the pawn itself is no press)
# a still level that did not begin with a finger letting go (a light finger, a few grams, may rest
# on the pawn as steadily as a pawn stands) is the pawn only once it has lasted longer than such a
# touch does -- as long as "never deaf" allows (every level explained within a second)
RELEASE_UNSEEN_MS = 1000.0
PRE_TRIGGER_MS = 150.0  # a press is summed from this long before its trigger (the old level)
BREAK_LOOK_MS = 50.0  # when such a level moves, where the force went this much later tells why
_new_facts = tuple.__new__  # ``SegmentFacts`` from its fields in order (``fall_facts``)


class SegmentJudge:
    """Per-segment bookkeeping and the decisions taken when the load is still again."""

    def __init__(self, header: TraceHeader, settings: SensingSettings, positional: bool,
                 still_n: int) -> None:
        self.s = settings
        self.header = header
        self.still_n = still_n  # samples in the stillness window
        self.masses = {k: header.pawn_mass_g[k] for k in SIZES}
        self.layout = header.layout
        self.lever_mm = header.layout.radius_mm * 1.07
        self.positional = positional
        self.locator = PawnLocator(header.cells, header.layout.radius_mm)
        self.trigger_m = 120.0
        self.press_min_g = max(PRESS_MIN_G, PRESS_MIN_PAWNS * max(self.masses.values()))
        dt = 1000.0 / header.rate_hz
        self.dt = dt
        self.placing = Placements(settings, self.masses, self.layout, positional, self.locator)
        self.tipping = TippingPawn(self.placing, dt)
        self.level_n = max(settings.level_min_samples, round(settings.level_ms / dt))
        self.tip_settle_n = max(settings.still_min_samples, round(settings.tip_settle_ms / dt))
        self.pre_n = max(3, round(150.0 / dt))
        self.pre_trigger_n = max(2, round(PRE_TRIGGER_MS / dt))
        self.fall_n = max(3, round(250.0 / dt))
        self.step_n = max(3, round(60.0 / dt))  # a plateau of the force staircase after a tip
        # the largest net force change that still counts as 'no change' (below half a small pawn)
        self.zero_tol_g = 0.45 * self.masses["small"]
        # the fall state and readings (``FallWatch``), told the segment's facts per call (``fall_facts``)
        self.fallwatch = FallWatch(settings, self.masses, self.layout, positional, dt, self.fall_n,
                                   self.step_n, self.zero_tol_g)
        self.stillness = StillWindow(settings, positional)
        self.pressing = PressTracker(settings, self.press_min_g, dt, header.layout.radius_mm)
        self.hands = HandRuns(settings)
        self.episode = TipEpisode()  # a tip episode judged once still (and a disc left lying over)
        self.placed_t = -10**9  # when the last ``placed`` was reported
        # a still change no pawn event explained, taken as the level but kept open (explain.py)
        self.held: Held | None = None
        # what this sample decided of the pipeline's state (``Verdict``, taken by ``_verdict``)
        self._end: tuple[float, float, float] | None = None
        self._tip_over: int | None = None
        self._placed_now = self._tipped_now = False
        self._reset(0, (0.0, 0.0, 0.0))

    def _reset(self, t: int, base: tuple[float, float, float]) -> None:
        self.t0 = t
        self.base = base
        self.n_checked = 0  # samples of this segment judged so far (the trigger's is the first)
        self.tip_t: int | None = None
        self.still_since: int | None = None
        self.cand: tuple[tuple[float, float, float], int] | None = None
        self.cand_kind: str | None = None
        self.cand_unsure = False  # the candidate loss is read with little evidence
        self.cand_released = False  # the candidate level began as a finger let go
        self.cand_break_t: int | None = None  # when a level no release led into moved
        self.tipping.reset()
        self.press_at_tip = False  # a finger still pressed a pawn when the disc went over
        self.unsure_falls = False  # ... so the falls may include that pawn, weighed only afterwards
        self.righted = False  # the disc was seen righting itself after a tip
        self.exc_max = 0.0  # largest excess moment seen since the tip (the tilt excursion)
        self.seg_exc_max = 0.0  # ... and before any tip: the disc's own mass moved (``explain.py``)
        self.exc_peak_t = t  # when it was reached
        self.slope = (0.0, 0.0, 0.0)
        self.pressing.reset()
        self.fallwatch.reset()  # the fall state (staircase, pawns on the base plate, losses reported)
        self.stillness.reset()
        self.hands.reset(t)  # peaks and hand-like runs (``HandRuns``)
        self.episode.reset()  # the lightest level since the tip, how far the disc lay over

    def fall_facts(self, t: int | None) -> SegmentFacts:
        """What ``FallWatch`` is told of this segment for a reading at ``t`` (None: no drift)."""
        tp = self.tipping  # (built every tipped sample: the tuple directly, without the keywords' __new__)
        return _new_facts(SegmentFacts, (self.tip_t, self.base, self.base if t is None else self.drifted(t),
                                         self.righted, self.exc_max, self.seg_exc_max, self.placed_t,
                                         self.press_at_tip, self.unsure_falls, self.hands.touched, tp.est,
                                         tp.placed))

    def _apply_stairs(self, rd: Readings, t: int, read: StairsRead) -> list[dict]:
        """Apply what ``FallWatch.watch_stairs`` decided (the falls made unsure; the tipping pawn
        weighed on the tilted disc: its ``placed``, not confident, the base up by it); the events."""
        if read.unsure:
            self.unsure_falls = True
        if read.placed is None:
            return list(read.events)
        size, gain, px, py = read.placed
        ev = self.placed_event(rd, t, size, gain, px, py)
        ev["confident"] = False
        self.tipping.placed = True
        b = self.base
        self.base = (b[0] + gain, b[1] + gain * px, b[2] + gain * py)
        return [ev]

    def righting_seen(self) -> None:
        """The tip tests saw the disc righting itself after the tip."""
        self.righted = True

    # ---------------------------------------------------------------- per sample
    def begin(self, rd: Readings, t: int, base: tuple[float, float, float],
              slope: tuple[float, float, float]) -> None:
        """A segment starts at ``t`` from the pipeline's baseline ``base`` (drifting by ``slope``
        per ms)."""
        self._reset(t, base)
        self.slope = slope
        # the press is summed from the old level on: the readings just before the trigger may
        # hold part of the load already (a cell converting early, a slow arrival under the trigger)
        w = rd.history.window(self.pre_trigger_n + 1)
        if w is not None:
            b = self.base
            rows = zip(w[0][:-1], w[1][:-1], w[2][:-1], strict=True)
            self.pressing.trail = [(f - b[0], x - b[1], y - b[2]) for f, x, y in rows]

    def drifted(self, t: int) -> tuple[float, float, float]:
        """The segment's base level carried forward to ``t`` along the drift."""
        d = t - self.t0
        b, s = self.base, self.slope
        return b[0] + s[0] * d, b[1] + s[1] * d, b[2] + s[2] * d

    def observe(self, t: int, f: float, excess: float) -> None:
        """Record the peaks and the tilt excursion; the hand-like runs are ``HandRuns``'s (after a
        tip measured from the latest quiet level of the tilted disc: pawns falling off are no hand)."""
        self.episode.observe(f)
        if self.tip_t is not None:
            if excess > self.exc_max:
                self.exc_max = excess
                self.exc_peak_t = t
        else:
            self.seg_exc_max = max(self.seg_exc_max, excess)
        self.hands.observe(t, f, self.base[0])

    def press_sample(self, f: float, x: float, y: float) -> None:
        """Track press episodes (``PressTracker``), until the disc went over (unless a finger
        still pressed a pawn then: followed until it lets go)."""
        if self.tip_t is not None and not self.press_at_tip:
            return
        pr = self.pressing
        if pr.sample(f, x, y, self.base) and self.press_at_tip and \
                self.tipping.weigh_pressed(pr.post_press, pr.point()):  # type: ignore[arg-type]
            # the disc went over while a finger still pressed a pawn (a finger adds tipping
            # moment, it does not hold the disc): it is weighed now the finger has let go (its
            # ``placed`` follows at the first quiet moment), and the falls of this tip are not
            # confident (it may have gone with them before it was weighed)
            self.press_at_tip = False
            self.unsure_falls = True

    def tipped(self, t: int) -> None:
        """The tip detector fired at ``t``: hand tracking restarts on the tilted disc."""
        self.tip_t = t
        self.press_at_tip = self.pressing.cur_ep is not None and not self.tipping.placed
        self.cand = None  # a level judged before the disc went over is void (``before_tip`` takes the pawn)
        self.hands.tipped()
        self.episode.tipped()

    @property
    def tip_t_ms(self) -> int:
        """When the current segment's tip was detected (segment start if none)."""
        return self.tip_t if self.tip_t is not None else self.t0

    # ---------------------------------------------------------------- decisions
    def check(self, rd: Readings, t: int, tipped: bool, count: int, glitch: bool,
              landing: tuple[int, float, float] | None) -> Verdict | None:
        """Every sample inside a segment (``count``: its number since the warm-up; ``glitch``: its
        row held a lone cell's jump; ``landing``: a pawn the tip tests saw landing on the base
        plate): once (part of) the segment is judged, what was decided (``Verdict``), else None."""
        events = self._check(rd, t, tipped, count, glitch, landing)
        return None if events is None else self._verdict(events)

    def _verdict(self, events: list[dict]) -> Verdict:
        """The events of a sample and what was decided with them (taken: none are left)."""
        over = self.fallwatch.take_went_over()
        v = Verdict(events, self._end, self._tip_over if over is None else over, self._placed_now,
                    self._tipped_now)
        self._end = self._tip_over = None
        self._placed_now = self._tipped_now = False
        return v

    def _ended(self, level: tuple[float, float, float], events: list[dict]) -> list[dict]:
        """The segment ends at the still ``level`` with ``events``."""
        self._end = level
        return events

    def _explained(self, level: tuple[float, float, float], t: int, ex: Explained) -> list[dict]:
        """Apply what an explanation decided (explain.py): the change kept open, a tip episode
        over; the segment ends at ``level``."""
        self.held = ex.held
        if ex.tip_over:
            self._tip_over = t
        return self._ended(level, ex.events)

    def _check(self, rd: Readings, t: int, tipped: bool, count: int, glitch: bool,
               landing: tuple[int, float, float] | None) -> list[dict] | None:
        if tipped:
            fw = self.fallwatch
            facts = self.fall_facts(t)
            read = fw.watch_stairs(rd, t, facts, glitch)
            if read is not NO_STAIRS:
                landed = self._apply_stairs(rd, t, read)
                if landed:
                    return landed
                facts = self.fall_facts(t)  # (the segment changed)
            if self.tipping.est is not None:
                return self._check_pre(rd, t)
            fw.remember_tip_moment(rd.pawns)
            level_f = fw.quiet_level(rd)
            if level_f is not None:
                self.hands.new_level(level_f)  # a new quiet level: an open run was a step (a pawn falling)
                early = fw.check_falls(rd, t, level_f, facts)
                if early:
                    return early
        self.n_checked += 1
        n = self.tip_settle_n if tipped else self.still_n
        if self.cand is not None:
            n = max(n, min(self.level_n, self.cand[1] + 1))
        elif n > self.n_checked and not tipped:
            # a level is read after the change began: a window reaching back before the trigger
            # holds the old level, and the trigger's reading (a press starting, within the
            # stillness tolerance of the old level at 10 Hz) would be averaged into a new base
            return None
        if rd.history.n < n:
            return None
        tol_f = self.stillness.tol_f(rd.sigma_f)
        window = self.stillness.window(rd.history, count, rd.sigma_m, n, tol_f)
        still = window is not None
        if not still:
            self.still_since = None
            if self.cand is not None:
                if self.cand_kind == "placed" and not self.cand_released:
                    # a level no release led into moved: where to? Up by more than a finger's
                    # wavering is a new load (the level stands); otherwise it was a finger
                    # resting on the pawn, now letting go, and the decision waits for the level
                    # after the release
                    if self.cand_break_t is None:
                        self.cand_break_t = t
                    if t - self.cand_break_t < BREAK_LOOK_MS:
                        return None
                    self.cand_break_t = None
                    last = rd.history.window_f(2)
                    if 0.5 * (last[-1] + last[-2]) - self.cand[0][0] <= max(tol_f, self.zero_tol_g):  # type: ignore[index]
                        self.cand = None
                        return None
                return self._finish_cand(rd, t)
            return None
        fs, xs, ys, ts = window  # type: ignore[misc]
        if self.still_since is None:
            self.still_since = ts[0]
        k = 1.0 / len(fs)
        level = (sum(fs) * k, sum(xs) * k, sum(ys) * k)
        if self.cand is not None:
            self.cand = (level, len(fs))
            self.cand_break_t = None
            return self._maybe_finish(rd, t)
        if tipped:
            events = self.episode.judge(self, rd, t, level)
            if events is not None:  # the tip episode is over
                self._tip_over = t
                self._end = level
            return events
        return self._judge(rd, t, level, ts[0], landing)

    def _judge(self, rd: Readings, t: int, level: tuple[float, float, float], t_still: int,
               landing: tuple[int, float, float] | None) -> list[dict] | None:
        base = self.drifted(t)
        d_f = level[0] - base[0]
        change = (d_f, level[1] - base[1], level[2] - base[2])
        if self.held is not None:
            back = held_came_back(self, rd, t, t_still, change)
            if back is not None:
                return self._explained(level, t, back)
        pr = self.pressing
        press = Press(pr.point(), pr.presses, pr.post_press, self.t0 - self.placed_t)
        if not self.positional:
            tip = tip_of(press, self.placing, self.dt, d_f)
        else:  # more than one pawn gone after a pawn was set down: a tip the tip tests missed
            tip = tip_after_release(press, self.placing, self.dt, d_f, 1.3 * max(self.masses.values()))
        if tip is not None:  # (the pawn set down is placed before the falls are read)
            placed = None if tip.placed is None else self.placed_event(rd, t, *tip.placed)
            falls = self.fallwatch.loss_events(rd, t, tip.lost, None, False, self.fall_facts(t))
            return self._ended(level, tip_events(t, placed, falls))
        if abs(d_f) <= self.zero_tol_g:
            if self.episode.set_level_later(change, self.zero_tol_g):
                events = []  # a hand set the disc left lying over level: part of that tip
            else:
                events = self.hands.events(t) or slid_off(rd, t, landing, self.header)
            return self._ended(level, events)
        if d_f > 0 and (self.placing.match_size(d_f) or self.placing.near_size(d_f)) is not None:
            self.cand, self.cand_kind = (level, len(rd.history.window(self.still_n)[0])), "placed"  # type: ignore[index]
            self.cand_released = self.placing.released_into(
                rd.history.window_f(rd.history.n), level[0], self.still_n, self.stillness.tol_f(rd.sigma_f),
                rd.sigma_f, self.dt)
            self.cand_break_t = None
            return self._maybe_finish(rd, t)
        held = t - (self.still_since or t)
        dec = None
        if d_f < 0:
            if self.fallwatch.base_pickup(rd, -d_f, None) is not None:
                self.cand, self.cand_kind = (level, self.still_n), "lost"
                self.cand_unsure = False
                return self._maybe_finish(rd, t)
            dec = self.fallwatch.read_loss(rd, -d_f, None, self.fall_facts(t))
            if dec is not None and self.fallwatch.plausible_loss(rd, -d_f, sum(dec.counts.values())):
                self.cand, self.cand_kind = (level, self.still_n), "lost"
                self.cand_unsure = sum(dec.counts.values()) > LONE_LOSS_PAWNS
                return self._maybe_finish(rd, t)
        # never deaf: a still level no pawn event explains is explained within a second
        # (explain.py): pawns gone with a tip missed at its start, or a hand holding the disc
        if held >= DECIDE_MS and (abs(d_f) >= self.s.hand_min_g or (d_f < 0 and dec is not None)):
            if d_f > 0:
                return self._explained(level, t, hold(self.held, self.t0, change))
            ex = explain_loss(self, rd, t, change)
            if ex is not None:
                return self._explained(level, t, ex)
            held = max(held, 2000)  # a light loss no missed tip explains: one pawn, not confident
        # a small unexplained level: a slow change, or a pawn that fits no size well
        if held >= 2000.0:
            return self._ended(level, unexplained(self, rd, t, level))
        return None

    def _maybe_finish(self, rd: Readings, t: int) -> list[dict] | None:
        if self.cand is None or self.cand[1] < self.level_n:
            return None
        if self.cand_kind == "placed" and not self.cand_released and \
                t - (self.still_since if self.still_since is not None else t) < RELEASE_UNSEEN_MS:
            # no release was seen: a light finger may still rest on the pawn -- unless the level
            # puts the load beyond the disc's edge, which no finger on a pawn can (a disc lying tilted)
            base = self.drifted(t)
            level = self.cand[0]
            d = (level[0] - base[0], level[1] - base[1], level[2] - base[2])
            if not self.placing.lies_tilted(self.pressing.point(), *d, rd.tip_threshold):
                return None
        return self._finish_cand(rd, t)

    def _finish_cand(self, rd: Readings, t: int) -> list[dict]:
        """Emit the pawn event of a candidate level and go back to still."""
        assert self.cand is not None
        level, n = self.cand
        kind = self.cand_kind
        self.cand = None
        base = self.drifted(t)
        d_f, d_x, d_y = level[0] - base[0], level[1] - base[1], level[2] - base[2]
        events: list[dict] = []
        if kind == "placed":
            size = self.placing.match_size(d_f)
            unsure = size is None
            if size is None:
                size = self.placing.near_size(d_f)
            if size is not None:
                press = self.pressing.point()
                tilted = self.placing.lies_tilted(press, d_f, d_x, d_y, rd.tip_threshold)
                if tilted:  # the tilted level says nothing of where the pawn stands; the press does
                    px, py = press  # type: ignore[misc]  # (tilted: there was a press)
                else:
                    px, py = self.pawn_position(rd, d_f, d_x, d_y, n)
                events.append(self.placed_event(rd, t, size, d_f, px, py))
                if unsure or self.pressing.presses > 1:
                    # the step fits no pawn well, or fingers set pawns down more than once before
                    # the load was still: it may be several pawns (two smalls weigh about a
                    # medium) standing where their mean is
                    events[-1]["confident"] = False
                self._placed_now = True  # on a level disc: a new tip is possible again
                if tilted:  # the disc lies tilted once still: a tip the tip tests missed starts now
                    b = self.base  # the pawn stands on the disc: falls are read from here
                    self.base = (b[0] + d_f, b[1] + d_f * px, b[2] + d_f * py)
                    self._tipped_now = True
                    self.tipped(t)
                    events.append({"event": "tipped", "t_ms": t})
                    return events
        else:
            loss = self.fallwatch.loss_events(rd, t, -d_f, (-d_x, -d_y), self.hands.peak_hi >= 2.5,
                                              self.fall_facts(t))
            if loss and self.cand_unsure:
                loss[-1]["confident"] = False
            events.extend(loss)
            if self.hands.longest_run >= HAND_WITH_LOSS_MS:
                events.extend(self.hands.events(t)[:1])  # a hand held the disc, then pawns went
        return self._ended(level, events)

    def flush(self, rd: Readings, t: int) -> Verdict:
        """End of stream inside a segment: finish a pending candidate (no guessing otherwise)."""
        if self.tipping.est is not None:
            return self._verdict(self._resolve_pre(rd, t, None))
        return self._verdict(self._finish_cand(rd, t) if self.cand is not None else [])

    def held_expired(self, rd: Readings, t: int) -> list[dict]:
        """The change kept open has expired (``Held.expired``): forgotten, and its pawns' ``fell``
        if its mass fits any (``explain.expired_loss``)."""
        h = self.held
        assert h is not None
        self.held = None
        return expired_loss(self, rd, t, h)

    def resync(self) -> None:
        """The pipeline learns its level afresh (a cell replaced): a change kept open is forgotten."""
        self.held = None

    # ---------------------------------------------------------------- placements (``placing``, ``tipping``)
    def pawn_position(self, rd: Readings, d_f: float, d_x: float, d_y: float,
                      n: int) -> tuple[float, float]:
        """Where the pawn of a step stands (``Placements.position``, from this segment's readings)."""
        return self.placing.position(self.pressing.trail, d_f, d_x, d_y, n, rd.sigma_f, rd.sigma_m)

    def placed_event(self, rd: Readings, t: int, size: str, mass: float, x: float, y: float) -> dict:
        """The ``placed`` event (``Placements.placed_event``), the pawn added to the pipeline's list."""
        ev, pawn = self.placing.placed_event(t, size, mass, x, y)
        self.placed_t = t
        rd.pawns.append(pawn)
        return ev

    def before_tip(self, t: int) -> None:
        """Called as ``tipped`` is reported: the pawn a finger had just set down (its release
        tipped the disc) is estimated (``TippingPawn.at_tip``); its ``placed`` waits."""
        if not self.tipping.placed:
            cand = self.cand[0] if self.cand is not None and self.cand_kind == "placed" else None
            self.tipping.at_tip(self.pressing.point(), self.pressing.post_press, cand, self.drifted(t))

    def _check_pre(self, rd: Readings, t: int) -> list[dict] | None:
        """While the tipping pawn is pending: wait for a short quiet stretch of the total force."""
        tip_t = self.tip_t if self.tip_t is not None else t
        tol = max(self.s.still_tol_min_g, 5.0 * rd.sigma_f)
        now, level = TippingPawn.quiet(rd.history.window(self.pre_n), t, tip_t, tol)
        return self._resolve_pre(rd, t, level) if now else None

    def _resolve_pre(self, rd: Readings, t: int, level: tuple[float, float, float] | None) -> list[dict]:
        """Emit the ``placed`` of the pawn that tipped the disc (``TippingPawn.reading``); the
        falls are read from the base with it."""
        read = self.tipping.reading(level, self.drifted(t), self.pressing.trail, rd.sigma_f, rd.sigma_m)
        if read is None:
            return []
        size, f, px, py, confident = read
        ev = self.placed_event(rd, t, size, f, px, py)
        if not confident:
            ev["confident"] = False
        self.base = (self.base[0] + f, self.base[1] + f * px, self.base[2] + f * py)
        return [ev]
