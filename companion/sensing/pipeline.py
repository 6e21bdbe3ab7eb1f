"""The sensing pipeline: raw HX711 samples in, sensed events (``table-trace.md``) out.

Contract 3 of ``docs/architecture.md``. Pure and streaming: no clock (time is the samples'
``t_ms``), no threads, no randomness, no I/O. The per-sample fast path (calibration, glitch
check, force and moment, trigger test against the still baseline) is cheap; the heavier
analysis runs only inside a *segment* (from a trigger until the load is still again).
``Pipeline`` composes the stages: the cells (``cells.py``), what is learned while still
(``baseline.py``), the tip tests (``tips.py``) and the segment judge (``segments.py``); it keeps
the short history of the signals (``SignalHistory``, ``readings.py``) and the state (still,
active, tipped). The judge is handed what it reads (a segment's ``Readings``) and returns what it
decided (``Verdict``, ``segfacts.py``), which the pipeline applies; no stage knows the pipeline.

See ``docs/sensing.md`` for the algorithm, the thresholds and why.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from companion.sensing.baseline import Baseline
from companion.sensing.cells import CellFilter
from companion.sensing.falls import Pawn
from companion.sensing.layout import cells_span_area
from companion.sensing.readings import Readings, SignalHistory
from companion.sensing.segfacts import Verdict
from companion.sensing.segments import SegmentJudge
from companion.sensing.settings import SensingSettings
from companion.sensing.tips import TipTests
from companion.sensing.tipviews import PressView, Signals
from companion.sensing.toldfall import told_pawns
from companion.sensing.trace import Sample, TraceHeader

STILL, ACTIVE, TIPPED = "still", "active", "tipped"
_NO_EXCURSION = (0.0, 0)  # the tip excursion the tip tests are told of while not tipped (unused)


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
        self._still_n = max(s.still_min_samples, round(s.still_ms / dt))
        hist = max(self._still_n, s.level_min_samples, round(s.level_ms / dt),
                   round(s.tip_settle_ms / dt)) + 2
        self._hist = SignalHistory(hist)  # the short history of the signals (and a segment's lists)
        self._push = self._hist.push
        self._judge = SegmentJudge(header, s, self._positional, self._still_n)
        self._rd: Readings | None = None  # what the judge reads of this segment (``_readings``)
        # the baseline, zero, noise, drift and trigger thresholds (learned while still)
        self._level = Baseline(s, dt, self._judge.zero_tol_g)
        self.tips = TipTests(header, s, self._positional)
        self._follow = self.tips.follow  # the release watch after its segment (the still path)
        self._sig = Signals()  # what the tip tests read of this sample (written here, read there)
        self._pv_memo: tuple | None = None  # the last ``PressView`` and what it was made of
        self.pawns: list[Pawn] = []
        # pawns reported fallen that lie on the base plate around the disc: still weighed, not on
        # the disc (not in its moment, not on the page); their pick-up later is no event
        self.base_pawns: list[Pawn] = []
        self._state = STILL
        self._t = 0
        self._n = 0
        self._fF = self._fX = self._fY = 0.0  # fast-smoothed force and moments
        self._degraded = False  # a cell failed and could not be replaced
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
            lv = self._level
            bF = lv.bF
            trig = lv.trig_f
            if -trig <= fF - bF <= trig:
                bX = lv.bX
                bY = lv.bY
                dX = fX - bX
                dY = fY - bY
                if dX * dX + dY * dY <= lv.trig_m2:
                    # the cheap path while still: the baseline follows slow drift
                    b = lv.a_base
                    lv.bF = bF + b * (F - bF)
                    lv.bX = bX + b * (X - bX)
                    lv.bY = bY + b * (Y - bY)
                    if self._follow.rolling and self._follow.roll_after(F, X, Y):
                        out = list(faults) if faults else []
                        self._start_segment(out)  # the release watch saw the disc going over
                        return out
                    if n & 3 == 0:
                        self._still_upkeep(F, X, Y)
                        held = self._judge.held  # a change kept open (explain.py)
                        if held is not None and held.expired(t):
                            expired = self._judge.held_expired(self._readings(), t)
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
        hist = self._hist
        seg = hist.seg
        if seg is not None:
            sf, sx, sy, st = seg
            sf.append(F)
            sx.append(X)
            sy.append(Y)
            st.append(t)
            if len(sf) > hist.seg_max:
                keep = -hist.size
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
        assert self._rd is not None
        return self._apply(self._judge.flush(self._rd, self._t))

    def snapshot(self) -> dict:
        """Live view for the page: mass, centre of pressure, tilt, stillness, pawns and faults."""
        lv = self._level
        mass = self._fF - lv.zF
        cop = None
        if self._positional and mass > 0.5:
            cop = [round((self._fX - lv.zX) / mass, 1), round((self._fY - lv.zY) / mass, 1)]
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

    def told_fallen(self, counts: dict[str, int]) -> list[dict]:
        """The host says these pawns (counts by size) fell in a tip whose fall the sensors did not
        see: no mass left, so they lie on the base plate, still weighed. The likeliest tracked
        pawns (``toldfall.py``) move from ``pawns`` to ``base_pawns``, so their pick-up later is no
        event. Returns the events this makes (none). A ValueError naming the problem (an unknown
        size, a count below 0 or not whole, more pawns than are tracked) changes nothing."""
        gone = told_pawns(self.pawns, counts)
        for p in gone:
            self.pawns.remove(p)
        self.base_pawns.extend(gone)
        return []

    # ------------------------------------------------------------------ internals
    def _warm_up(self, F: float, X: float, Y: float) -> None:
        """First half second: take the starting level as baseline (and as zero if the disc is
        empty; ``Baseline``), then the fast path's thresholds."""
        lv = self._level
        lv.warm_up(F, X, Y, self._n)
        if self._n == self._warm:
            if lv.too_noisy():  # a hand on the disc after a resync: wait for it to be still
                self._n = 0
                return
            self._update_thresholds()
            self._fF, self._fX, self._fY = lv.bF, lv.bX, lv.bY
            lv.warmed()

    def _still_upkeep(self, F: float, X: float, Y: float) -> None:
        """Every 4th still sample: noise estimate, empty-disc zero (drift), trigger thresholds."""
        empty = not self.pawns and not self.base_pawns
        h = self._hist
        self._level.upkeep(F, X, Y, h.f[-2], h.x[-2], h.y[-2], empty)
        self.tips.level()
        if self._n & 63 == 0:
            self._update_thresholds()
            self._level.track_slope(self._t)

    def _resync(self) -> None:
        """A failed cell was replaced by its estimate: the force and moments now come from a
        different sum, so learn the still level afresh (a new warm-up), keeping the mass and
        moment on the disc as they were."""
        self._state = STILL
        self._hist.end_segment()
        self._judge.resync()
        self._n = 0
        self._still_from_n = 0
        self.tips.resync()
        self._level.resync()

    def _update_thresholds(self) -> None:
        """Trigger thresholds of the fast path from the current noise estimates."""
        lv = self._level
        if self._state is STILL and self._n > self._warm:
            h = self._hist
            self.tips.track_window_noise(h.x, h.y, self._n, max(self._still_from_n, self._warm),
                                         (lv.bX, lv.bY), lv.sig_m)
        lv.thresholds(self._fast_gain(), self._judge.trigger_m if self._positional else None)

    def _fast_gain(self) -> float:
        """Noise of the fast EMA relative to one sample."""
        a = self._a_fast
        return math.sqrt(a / (2.0 - a))

    def _start_segment(self, out: list[dict]) -> None:
        """A change began: freeze the baseline and analyse until the load is still again."""
        self._state = ACTIVE
        self._hist.begin_segment()
        self.tips.begin_segment()
        self._signals_begin()
        lv = self._level
        rd = self._rd = self._readings()
        self._judge.begin(rd, self._t, lv.baseline(), lv.slope)
        self._segment_step(out)

    def _segment_step(self, out: list[dict]) -> None:
        """Slow path inside a segment: the tip tests every sample, the level test when still.
        The tip tests read a view of the signals (``Signals``) and of the judge's presses
        (``PressView``); the judge records what they measured and judges the segment."""
        sig = self._sig
        sig.n = len(self._hist.f)  # (the rest of ``sig`` is fixed within a segment: ``_signals_begin``)
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
            j.before_tip(t)
            out.append({"event": "tipped", "t_ms": t})
            j.tipped(t)
        rd = self._rd
        assert rd is not None  # (built as the segment started)
        verdict = j.check(rd, t, self._state is TIPPED, self._n, sig.glitch, tips.landing)
        if verdict is not None:
            out.extend(self._apply(verdict))

    def _apply(self, v: Verdict) -> list[dict]:
        """Apply what the segment judge decided (``Verdict``); its events."""
        if v.placed:  # a placement on a level disc: a new tip is possible again
            self.tips.pawn_placed()
        if v.tipped:  # the disc lies tilted once still (a tip the tip tests missed): the episode starts
            self._state = TIPPED
            self.tips.tipped_late()
        if v.tip_over is not None:  # a tip episode ended (settled): the tip tests' refractory window
            self.tips.episode_over(v.tip_over)
        if v.level is not None:
            self._end_segment(v.level)
        return v.events

    def _signals_begin(self) -> None:
        """A segment starts: the parts of ``Signals`` that stay fixed until it ends (the history
        lists, the frozen baseline, the zero and the noise change only while still)."""
        sig = self._sig
        seg = self._hist.seg
        assert seg is not None
        sig.f, sig.x, sig.y = seg[0], seg[1], seg[2]
        lv = self._level
        sig.base = (lv.bF, lv.bX, lv.bY)
        sig.zero = (lv.zX, lv.zY)
        sig.sigma_f = lv.sig_f
        sig.sigma_m = lv.sig_m

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

    def _readings(self) -> Readings:
        """What the segment judge reads of the pipeline now (``Readings``): the history, the noise,
        the tip threshold and the zero (fixed while not still: built as a segment starts), the pawns."""
        lv = self._level
        return Readings(self._hist, lv.sig_f, lv.sig_m, self.tips.threshold(lv.sig_m), (lv.zF, lv.zX, lv.zY),
                        self.pawns, self.base_pawns)

    def _end_segment(self, level: tuple[float, float, float]) -> None:
        """Back to still with a new baseline ``level``."""
        self._state = STILL
        self._hist.end_segment()
        self._still_from_n = self._n
        self._level.settle(level)
        self._fF, self._fX, self._fY = level
        self.tips.level()
        if self._positional:
            mx = sum(p.mass_g * p.x_mm for p in self.pawns if p.x_mm is not None)
            my = sum(p.mass_g * p.y_mm for p in self.pawns if p.y_mm is not None)
            self.tips.carried(math.hypot(mx, my))
