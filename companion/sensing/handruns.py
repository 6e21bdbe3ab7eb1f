"""Hand-like runs of a segment: a push or a lift that came back, and whether it was a hand.

``HandRuns`` is a stage of the segment judge (``judge.hands``). Every sample inside a segment it
is given the total force and the segment's base force; it tracks the force's peaks above and
below its reference and the runs of one sign beyond half of ``hand_min_g``. A run that comes
back to the reference was a disturbance, not a step (a pawn coming or going never comes back);
only such runs count as a hand (``events``). Before a tip the reference is the segment's base;
after a tip (``tipped``) it is the latest quiet level of the tilted disc (``new_level``, set by
the fall watch: pawns falling off are no hand), and a run has come back only once the force has
stayed back for ``RETURN_MS`` (a knock can swing it back across the level for a reading or two).
The runs that came back after a tip are kept as ``touched`` (+1 a push, -1 a lift): a hand on
the table while pawns were falling, which the doubts of those falls read.

Pure: explicit inputs, no clock, no I/O.
"""

from __future__ import annotations

from companion.sensing.pressing import PRESS_MIN_MS
from companion.sensing.settings import SensingSettings

RETURN_MS = 40.0  # after a tip, a hand-like run has come back once the force stays back this long


class HandRuns:
    """Peaks and same-sign runs of the force against its reference within one segment."""

    def __init__(self, settings: SensingSettings) -> None:
        self.hand_min_g = settings.hand_min_g
        self.hand_min_ms = settings.hand_min_ms
        self.reset(0)

    def reset(self, t: int) -> None:
        """A new segment starting at ``t``: measured from the segment's base, nothing seen."""
        self.after_tip = False  # the runs are measured from the tilted disc's quiet level
        self.run_start = t
        self._restart()

    def tipped(self) -> None:
        """The disc went over: tracking restarts, from the tilted disc's first quiet level on."""
        self.after_tip = True
        self._restart()

    def _restart(self) -> None:
        self.ref: float | None = None  # quiet level of the tilted disc (the reference after a tip)
        self.peak_hi = 0.0  # largest force above the reference
        self.peak_lo = 0.0  # ... and below it (negative)
        self.first_dev: int | None = None  # when the first run that came back began
        self.last_dev: int | None = None  # ... and when the last one came back
        self.run_sign = 0  # sign of the current run (0: within half of ``hand_min_g``)
        self.back_t: int | None = None  # when the current run came back to the reference
        self.longest_run = 0  # the longest run that came back (ms)
        # after a tip: the signs of the hand-like runs (+1 a push, -1 a lift) that came back, a
        # hand on the table while pawns were falling (it may take or set down pawns unseen)
        self.touched: frozenset[int] = frozenset()

    def new_level(self, level_f: float) -> None:
        """A new quiet level of the tilted disc: the reference from now on; an open run was a
        step (a pawn falling), not a hand."""
        self.ref = level_f
        self.run_sign = 0
        self.back_t = None

    def observe(self, t: int, f: float, base_f: float) -> None:
        """One sample at ``t`` of total force ``f``; ``base_f``: the segment's base force (the
        reference before a tip)."""
        if self.after_tip:
            if self.ref is None:
                return
            d = f - self.ref
        else:
            d = f - base_f
        if d > self.peak_hi:
            self.peak_hi = d
        if d < self.peak_lo:
            self.peak_lo = d
        thr = self.hand_min_g * 0.5
        sign = 1 if d > thr else -1 if d < -thr else 0
        back = self.back_t
        if back is not None:  # after a tip, the run came back to the reference at ``back``
            if sign == self.run_sign:
                self.back_t = None  # for a moment only (a knock swung it across): it goes on
                return
            if not sign and t - back < RETURN_MS:
                return
            self.back_t = None
            self._came_back(back)
        if sign != self.run_sign:
            if self.run_sign and not sign:
                if self.after_tip:
                    # a pawn falling is a step down that a knock can swing back across the
                    # reference for a reading or two: it has come back once it stays back
                    self.back_t = t
                    return
                self._came_back(t)
            self.run_sign = sign
            self.run_start = t

    def _came_back(self, t: int) -> None:
        """A hand-like run ended at ``t``, back at the reference: the push was a disturbance, not
        a step (a pawn coming or going never comes back); only such runs count as a hand."""
        self.longest_run = max(self.longest_run, t - self.run_start)
        if self.after_tip and self.run_sign and t - self.run_start >= PRESS_MIN_MS:
            self.touched = self.touched | {self.run_sign}
        if self.first_dev is None or self.run_start < self.first_dev:
            self.first_dev = self.run_start
        self.last_dev = t
        self.run_sign = 0
        self.run_start = t

    def events(self, t: int) -> list[dict]:
        """A disturbance with no net change, judged at ``t``: ``hand`` (its duration from the
        first run's start to the last one's return) and ``settled`` if sustained, else a bump
        (no event)."""
        if self.first_dev is None or self.last_dev is None:
            return []
        if self.longest_run < self.hand_min_ms * 0.6:
            return []
        if max(self.peak_hi, -self.peak_lo) < self.hand_min_g:
            return []
        duration = max(self.last_dev - self.first_dev, self.longest_run)
        return [{"event": "hand", "t_ms": t, "duration_ms": int(duration)},
                {"event": "settled", "t_ms": t}]
