"""The sensing pipeline: raw HX711 samples in, sensed events (``table-trace.md``) out.

Contract 3 of ``docs/architecture.md``. Pure and streaming: no clock (time is the samples'
``t_ms``), no threads, no randomness, no I/O. The per-sample fast path (calibration, glitch
check, force and moment, trigger test against the still baseline) is cheap; the heavier
analysis runs only inside a *segment* (from a trigger until the load is still again).

See ``docs/sensing.md`` for the algorithm, the thresholds and why.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable
from itertools import islice

from companion.sensing.cells import CellFilter
from companion.sensing.explain import Held, held_expired
from companion.sensing.falls import Pawn
from companion.sensing.layout import cells_span_area
from companion.sensing.segments import SegmentJudge
from companion.sensing.settings import SensingSettings
from companion.sensing.tips import TipTests
from companion.sensing.tipviews import PressView, Signals
from companion.sensing.trace import Sample, TraceHeader

STILL, ACTIVE, TIPPED = "still", "active", "tipped"
_NO_EXCURSION = (0.0, 0)  # the tip excursion the tip tests are told of while not tipped (unused)
RESYNC_NOISE = 3.0  # a level learned after a cell was replaced is rejected if this much noisier


class Pipeline:
    """Turns samples into sensed events; ``feed`` one sample at a time, ``finish`` at the end."""

    def __init__(self, header: TraceHeader, *, settings: SensingSettings | None = None) -> None:
        s = settings or SensingSettings()
        self.header = header
        self.settings = s
        self._cells = CellFilter(header, s)
        self._xs = [c.x_mm for c in header.cells]
        self._ys = [c.y_mm for c in header.cells]
        self._positional = cells_span_area(self._xs, self._ys)
        dt = 1000.0 / header.rate_hz
        self._dt = dt
        self._a_fast = 1.0 - math.exp(-dt / s.fast_tau_ms)
        self._a_base = 1.0 - math.exp(-dt / s.baseline_tau_ms)
        self._still_n = max(s.still_min_samples, round(s.still_ms / dt))
        hist = max(self._still_n, s.level_min_samples, round(s.level_ms / dt),
                   round(s.tip_settle_ms / dt)) + 2
        self._hF: deque[float] = deque(maxlen=hist)
        self._hX: deque[float] = deque(maxlen=hist)
        self._hY: deque[float] = deque(maxlen=hist)
        self._hT: deque[int] = deque(maxlen=hist)
        self._push = (self._hF.append, self._hX.append, self._hY.append, self._hT.append)
        self._hist_n = hist
        self._seg_max = 4 * hist  # a segment's lists are cut back to ``hist`` beyond this
        # inside a segment the history is also kept in plain lists (a window of them is a slice,
        # and a segment's sample asks for several windows); None while still
        self._seg: tuple[list[float], list[float], list[float], list[int]] | None = None
        self._judge = SegmentJudge(header, s, self._positional)
        self.tips = TipTests(header, s, self._positional)
        self._sig = Signals()  # what the tip tests read of this sample (written here, read there)
        self._pv_memo: tuple | None = None  # the last ``PressView`` and what it was made of
        self.pawns: list[Pawn] = []
        # pawns reported fallen that lie on the base plate around the disc: still weighed, not on
        # the disc (not in its moment, not on the page); their pick-up later is no event
        self.base_pawns: list[Pawn] = []
        # a still change no pawn event explained, taken as the level but kept open (explain.py)
        self.held: Held | None = None
        # a tip episode settled with the disc still lying over: its moment off the level the
        # pawns put it at (a hand setting it level later is part of the tip, ``tipepisode.py``)
        self.lying_over: tuple[float, float] | None = None
        self._state = STILL
        self._t = 0
        self._n = 0
        self._fF = self._fX = self._fY = 0.0  # fast-smoothed force and moments
        self._bF = self._bX = self._bY = 0.0  # still baseline
        self._zF = self._zX = self._zY = 0.0  # empty-disc zero (drift), set when empty and still
        self._noise = 0.0  # EMA of |dF| between samples while still
        self._noise_m = 0.0
        self._sig_f = self._sig_m = 0.0  # sigma_f() and sigma_m() of them (set by ``_noise_changed``)
        self._noise_changed()
        self._resync_mass: tuple[float, float, float] | None = None
        self._resync_noise = 0.0  # force noise before the resync (mean step, g)
        self._resync_tries = 0
        self._degraded = False  # a cell failed and could not be replaced
        self._prevF = 0.0
        self._prevX = self._prevY = 0.0
        self._trig_f = s.trigger_min_g
        self._trig_m2 = math.inf
        self._slope: tuple[float, float, float] = (0.0, 0.0, 0.0)
        self._slope_t: int | None = None
        self._slope_ref = (0.0, 0.0, 0.0)
        self._warm = max(self._still_n, round(500.0 / dt))
        self._still_from_n = 0  # the sample count when the disc last became still

    # ------------------------------------------------------------------ public API
    def feed(self, sample: Sample) -> list[dict]:
        """Process one sample; return the events detected at this sample's time (maybe none)."""
        t = sample.t_ms
        raw = sample.raw
        cells = self._cells
        if len(raw) != cells.n:
            raise ValueError(f"sample at t_ms={t} has {len(raw)} cells, the header has {cells.n}")
        self._t = t
        return self._after_cells(t, cells.update(t, raw))

    def _after_cells(self, t: int, faults: list[dict] | None) -> list[dict]:
        """``feed`` once the cells have taken the sample (``faults``: their fault events)."""
        cells = self._cells
        # a cell is only replaced (``remapped``) on a row that reports its fault
        if (faults is not None or cells.faults or self._degraded) and self._fault_gate():
            return list(faults) if faults else []
        F, X, Y = cells.F, cells.X, cells.Y
        pf, px, py, pt = self._push
        pf(F)
        px(X)
        py(Y)
        pt(t)
        a = self._a_fast
        fF = self._fF = self._fF + a * (F - self._fF)
        fX = self._fX = self._fX + a * (X - self._fX)
        fY = self._fY = self._fY + a * (Y - self._fY)
        n = self._n = self._n + 1
        if self._state is STILL and n > self._warm:
            bF = self._bF
            trig = self._trig_f
            if -trig <= fF - bF <= trig:
                bX = self._bX
                bY = self._bY
                dX = fX - bX
                dY = fY - bY
                if dX * dX + dY * dY <= self._trig_m2:
                    # the cheap path while still: the baseline follows slow drift
                    b = self._a_base
                    self._bF = bF + b * (F - bF)
                    self._bX = bX + b * (X - bX)
                    self._bY = bY + b * (Y - bY)
                    if n & 3 == 0:
                        self._still_upkeep(F, X, Y)
                        if self.held is not None:
                            expired = held_expired(self._judge, self, t)
                            if expired:
                                return (list(faults) if faults else []) + expired
                    return faults or []
            out = list(faults) if faults else []
            self._start_segment(out)
            return out
        out = list(faults) if faults else []
        if n <= self._warm:
            self._warm_up(F, X, Y)
            return out
        seg = self._seg
        if seg is not None:
            sf, sx, sy, st = seg
            sf.append(F)
            sx.append(X)
            sy.append(Y)
            st.append(t)
            if len(sf) > self._seg_max:
                keep = -self._hist_n
                del sf[:keep], sx[:keep], sy[:keep], st[:keep]
        self._segment_step(out)
        return out

    def feed_many(self, samples: Iterable[Sample]) -> list[dict]:
        """``feed`` every sample of ``samples`` in turn and return all their events, in order
        (``replay`` uses it). ``feed`` is written out in the loop; the still path is already the
        cheap branch of ``_after_cells`` (an inlined copy of the cells' and the still path here
        gained about 7 % and reached into the cells' private state, so it is not kept)."""
        out: list[dict] = []
        cells = self._cells
        update, after, n_cells = cells.update, self._after_cells, cells.n
        for sample in samples:
            # ``feed`` written out (one call less per sample)
            t = sample.t_ms
            raw = sample.raw
            if len(raw) != n_cells:
                raise ValueError(f"sample at t_ms={t} has {len(raw)} cells, the header has {n_cells}")
            self._t = t
            events = after(t, update(t, raw))
            if events:
                out.extend(events)
        return out

    def _fault_gate(self) -> bool:
        """After a cell fault: re-learn the level when a cell was replaced or recovered; True when
        a failed cell cannot be replaced (the table cannot weigh: say nothing but faults)."""
        cells = self._cells
        if cells.remapped is not None:
            cells.remapped = None
            self._resync()
        if cells.faults and (cells.substituted is None or len(cells.faults) > 1):
            # start afresh once the cells behave again
            if not self._degraded:
                self._degraded = True
                self._resync()
            return True
        if self._degraded:
            self._degraded = False
            self._resync()
        return False

    def finish(self) -> list[dict]:
        """Flush at the end of the stream: report what a still level would have confirmed."""
        if self._state == STILL or self._n <= self._warm:
            return []
        return self._judge.flush(self, self._t)

    def snapshot(self) -> dict:
        """Live view for the page: mass, centre of pressure, tilt, stillness, pawns and faults."""
        mass = self._fF - self._zF
        cop = None
        if self._positional and mass > 0.5:
            cop = [round((self._fX - self._zX) / mass, 1), round((self._fY - self._zY) / mass, 1)]
        pawns = []
        for p in self.pawns:
            zone, number = (None, None)
            if p.x_mm is not None and p.y_mm is not None:
                zone, number = self.header.layout.locate(p.x_mm, p.y_mm, self.settings.line_margin_mm)
            pawns.append({"size": p.size, "x_mm": p.x_mm, "y_mm": p.y_mm, "zone": zone, "number": number})
        return {
            "t_ms": self._t,
            "mass_g": round(mass, 2),
            "cop_mm": cop,
            "tilt": round(min(1.0, max(0.0, self.tips.tilt)), 3),
            "still": self._state == STILL,
            "pawns": pawns,
            "faults": dict(self._cells.faults),
        }

    # ------------------------------------------------------------------ internals
    def _warm_up(self, F: float, X: float, Y: float) -> None:
        """First half second: take the starting level as baseline (and as zero if the disc is empty)."""
        k = 1.0 / self._n
        self._bF += k * (F - self._bF)
        self._bX += k * (X - self._bX)
        self._bY += k * (Y - self._bY)
        if self._n > 1:
            self._noise += k * (abs(F - self._prevF) - self._noise)
            self._noise_m += k * (math.hypot(X - self._prevX, Y - self._prevY) - self._noise_m)
            self._noise_changed()
        self._prevF, self._prevX, self._prevY = F, X, Y
        if self._n == self._warm:
            if self._resync_mass is not None and self._resync_noise > 0.0 and \
                    self._noise > RESYNC_NOISE * 1.5 ** self._resync_tries * self._resync_noise:
                # far noisier than before the fault: a hand is on the disc (the cell may well have
                # failed under it); its tremor is no level to learn, so wait for the disc to be still
                self._resync_tries += 1
                self._n = 0
                self._bF = self._bX = self._bY = 0.0
                self._noise = self._noise_m = 0.0
                self._noise_changed()
                return
            self._update_thresholds()
            self._fF, self._fX, self._fY = self._bF, self._bX, self._bY
            if self._resync_mass is not None:
                m = self._resync_mass
                self._zF, self._zX, self._zY = self._bF - m[0], self._bX - m[1], self._bY - m[2]
                self._resync_mass = None
            elif abs(self._bF) < self._judge.zero_tol_g(self):
                self._zF, self._zX, self._zY = self._bF, self._bX, self._bY

    def sigma_f(self) -> float:
        """Estimated noise sigma of the total force per sample (grams)."""
        return self._sig_f

    def sigma_m(self) -> float:
        """Estimated noise of the moment per sample (g*mm)."""
        return self._sig_m

    def _noise_changed(self) -> None:
        """Set ``sigma_f()`` and ``sigma_m()`` after the noise estimates changed (they are read
        many times per sample inside a segment, where the estimates stay fixed)."""
        self._sig_f = max(0.02, self._noise / 1.128)
        self._sig_m = max(2.0, self._noise_m / 1.77)

    def baseline(self) -> tuple[float, float, float]:
        """The still level now (F, Mx, My): the slow baseline plus the drift it lags behind."""
        lag = self.settings.baseline_tau_ms
        sf, sx, sy = self._slope
        return self._bF + sf * lag, self._bX + sx * lag, self._bY + sy * lag

    @property
    def slope(self) -> tuple[float, float, float]:
        """Estimated drift of the still level per ms (F, Mx, My)."""
        return self._slope

    def _track_slope(self) -> None:
        """Drift rate of the baseline (slow EMA of its change per ms, bounded to thermal drift)."""
        t = self._t
        if self._slope_t is not None and t > self._slope_t:
            dt = t - self._slope_t
            c = min(1.0, dt / 10000.0)
            lim = 20.0 / 60000.0  # 20 g per minute
            old = self._slope
            ref = self._slope_ref
            now = (self._bF - ref[0], self._bX - ref[1], self._bY - ref[2])
            self._slope = (old[0] + c * (max(-lim, min(lim, now[0] / dt)) - old[0]),
                           old[1] + c * (max(-lim * 150, min(lim * 150, now[1] / dt)) - old[1]),
                           old[2] + c * (max(-lim * 150, min(lim * 150, now[2] / dt)) - old[2]))
        self._slope_t = t
        self._slope_ref = (self._bF, self._bX, self._bY)

    def _still_upkeep(self, F: float, X: float, Y: float) -> None:
        """Every 4th still sample: noise estimate, empty-disc zero (drift), trigger thresholds."""
        d = abs(F - self._hF[-2])
        noise = self._noise
        sigma_f = noise / 1.128  # sigma_f() (max() is a costly call here)
        if d < 8.0 * (sigma_f if sigma_f > 0.02 else 0.02) + 0.5:
            dm = math.hypot(X - self._hX[-2], Y - self._hY[-2])
            self._noise = noise + 0.008 * (d - noise)
            self._noise_m += 0.008 * (dm - self._noise_m)
            self._noise_changed()
        if not self.pawns and not self.base_pawns:
            bF = self._bF
            zF = self._zF
            if abs(bF - zF) < self._judge.zero_tol_g(self):
                # the disc is known to be empty and still: re-zero slowly (drift)
                a = 4.0 * self._a_base
                self._zF = zF + a * (bF - zF)
                self._zX += a * (self._bX - self._zX)
                self._zY += a * (self._bY - self._zY)
        self.tips.level()
        if self._n & 63 == 0:
            self._update_thresholds()
            self._track_slope()

    def _resync(self) -> None:
        """A failed cell was replaced by its estimate: the force and moments now come from a
        different sum, so learn the still level afresh (a new warm-up), keeping the mass and
        moment on the disc as they were."""
        if self._resync_mass is None:
            self._resync_mass = (self._bF - self._zF, self._bX - self._zX, self._bY - self._zY)
            self._resync_noise = self._noise
            self._resync_tries = 0
        self._state = STILL
        self._seg = None
        self.held = None
        self._n = 0
        self._still_from_n = 0
        self.tips.resync()
        self._bF = self._bX = self._bY = 0.0
        self._noise = self._noise_m = 0.0
        self._noise_changed()
        self._slope_t = None

    def _update_thresholds(self) -> None:
        """Trigger thresholds of the fast path from the current noise estimates."""
        s = self.settings
        if self._state is STILL and self._n > self._warm:
            self.tips.track_window_noise(self._hX, self._hY, self._n, max(self._still_from_n, self._warm),
                                         (self._bX, self._bY), self.sigma_m())
        gain = self._fast_gain()
        self._trig_f = max(s.trigger_min_g, s.trigger_sigmas * self.sigma_f() * gain)
        if self._positional:
            trig_m = max(self._judge.trigger_m, 6.0 * self.sigma_m() * gain)
            self._trig_m2 = trig_m * trig_m
        else:
            self._trig_m2 = math.inf

    def _fast_gain(self) -> float:
        """Noise of the fast EMA relative to one sample."""
        a = self._a_fast
        return math.sqrt(a / (2.0 - a))

    def _start_segment(self, out: list[dict]) -> None:
        """A change began: freeze the baseline and analyse until the load is still again."""
        self._state = ACTIVE
        self._seg = (list(self._hF), list(self._hX), list(self._hY), list(self._hT))
        self.tips.begin_segment()
        self._signals_begin()
        self._judge.begin(self, self._t)
        self._segment_step(out)

    def _segment_step(self, out: list[dict]) -> None:
        """Slow path inside a segment: the tip tests every sample, the level test when still.
        The tip tests read a view of the signals (``Signals``) and of the judge's presses
        (``PressView``); the judge records what they measured and judges the segment."""
        sig = self._sig
        sig.n = len(self._hF)  # (the rest of ``sig`` is fixed within a segment: ``_signals_begin``)
        sig.t = t = self._t
        sig.count = self._n
        sig.fast = (self._fF, self._fX, self._fY)
        sig.glitch = self._cells.suspect
        j = self._judge
        tips = self.tips
        tipped = self._state is TIPPED
        excursion = (j.exc_max, max(j.tip_t_ms, j.exc_peak_t)) if tipped else _NO_EXCURSION
        excess, righted = tips.measure(sig, tipped, j.pressing.presses > 0, excursion)
        if righted:
            j.righting_seen()
        cells = self._cells  # (the latest sample's force and moments)
        f = cells.F
        j.observe(t, f, excess)
        j.press_sample(f, cells.X, cells.Y)  # (one cell: mass only, at 0, 0)
        if tips.decide(sig, tipped, self._press_view(j)):
            self._state = TIPPED
            self.lying_over = None
            out.extend(j.before_tip(self, t))
            out.append({"event": "tipped", "t_ms": t})
            j.tipped(t)
        events = j.check(self, t, self._state is TIPPED)
        if events is not None:
            out.extend(events)

    def _signals_begin(self) -> None:
        """A segment starts: the parts of ``Signals`` that stay fixed until it ends (the history
        lists, the frozen baseline, the zero and the noise change only while still)."""
        sig = self._sig
        seg = self._seg
        assert seg is not None
        sig.f, sig.x, sig.y = seg[0], seg[1], seg[2]
        sig.base = (self._bF, self._bX, self._bY)
        sig.zero = (self._zX, self._zY)
        sig.sigma_f = self._sig_f
        sig.sigma_m = self._sig_m

    def _press_view(self, j: SegmentJudge) -> PressView:
        """What the tip tests read of the judge's presses (``PressView``). The last view is reused
        while what it is made of is the same objects (frozen: building one costs 2 us, and it
        changes only when a press or a pawn comes or goes); the pawn lists are compared with the
        copies taken then (equal frozen pawns have equal masses: an equal list, the same mass)."""
        pawns, bp = self.pawns, self.base_pawns
        pr = j.pressing
        pressing = pr.cur_ep is not None
        placed = pr.presses > 0
        m = self._pv_memo
        if m is not None and m[1] is j.base and m[2] is pr.press_w and m[3] is pr.press_x and \
                m[4] is pr.press_y and m[5] is pressing and m[6] is placed and m[7] == pawns and m[8] == bp:
            return m[0]
        pv = PressView(j.base, (pr.press_w, pr.press_x, pr.press_y), pressing, placed,
                       sum(p.mass_g for p in pawns) + sum(p.mass_g for p in bp))
        self._pv_memo = (pv, j.base, pr.press_w, pr.press_x, pr.press_y, pressing, placed, pawns[:], bp[:])
        return pv

    def window(self, n: int) -> tuple[list[float], list[float], list[float], list[int]] | None:
        """The last ``n`` samples of force, moments and times (None if fewer are buffered)."""
        m = len(self._hF)
        if m < n:
            return None
        seg = self._seg
        if seg is not None and n > 0:
            return seg[0][-n:], seg[1][-n:], seg[2][-n:], seg[3][-n:]
        k = m - n
        return (list(islice(self._hF, k, m)), list(islice(self._hX, k, m)), list(islice(self._hY, k, m)),
                list(islice(self._hT, k, m)))

    def window_f(self, n: int) -> list[float] | None:
        """The last ``n`` samples of the total force (None if fewer are buffered)."""
        m = len(self._hF)
        if m < n:
            return None
        seg = self._seg
        if seg is not None and n > 0:
            return seg[0][-n:]
        return list(islice(self._hF, m - n, m))

    @property
    def sample_count(self) -> int:
        """Samples taken since the last warm-up began (the latest one's number)."""
        return self._n

    @property
    def history_n(self) -> int:
        """Samples kept in the short history (``window`` reaches back this far)."""
        return len(self._hF)

    @property
    def glitch_held(self) -> bool:
        """Did the latest row hold a lone cell's jump as a possible glitch (``cells.py``)?"""
        return self._cells.suspect

    @property
    def still_n(self) -> int:
        """Samples in the stillness window."""
        return self._still_n

    @property
    def zero(self) -> tuple[float, float, float]:
        """The empty-disc zero (F, Mx, My)."""
        return self._zF, self._zX, self._zY

    @property
    def landing(self) -> tuple[int, float, float] | None:
        """A pawn seen landing on the base plate in this segment (time, weight gone, direction)."""
        return self.tips.landing

    def tip_threshold(self) -> float:
        """Unexplained moment (g*mm) that means a tip (the segment judge weighs the tilt
        excursion against it)."""
        return self.tips.threshold(self._sig_m)

    def tip_episode_over(self, t: int) -> None:
        """A tip episode ended at ``t`` (settled): the tip tests start their refractory window."""
        self.tips.episode_over(t)

    def pawn_placed(self) -> None:
        """A placement was judged on a level disc: a new tip is possible again."""
        self.tips.pawn_placed()

    def tipped_late(self, t: int) -> dict:
        """The segment judge found the disc lying tilted once the load was still (a tip the tip
        test missed): the tip episode starts now. Returns the ``tipped`` event."""
        self._state = TIPPED
        self.lying_over = None
        self.tips.tipped_late()
        self._judge.tipped(t)
        return {"event": "tipped", "t_ms": t}

    def end_segment(self, level: tuple[float, float, float]) -> None:
        """Back to still with a new baseline ``level``."""
        self._state = STILL
        self._seg = None
        self._still_from_n = self._n
        self._slope_t = None
        self._bF, self._bX, self._bY = level
        self._fF, self._fX, self._fY = level
        self.tips.level()
        if self._positional:
            mx = sum(p.mass_g * p.x_mm for p in self.pawns if p.x_mm is not None)
            my = sum(p.mass_g * p.y_mm for p in self.pawns if p.y_mm is not None)
            self.tips.carried(math.hypot(mx, my))
