"""A wobble held, not reported: the revisable decision of the excess-moment tip test.

Used by ``TipTests`` (``tips.py``); see docs/sensing.md, Tips. On the tuned families most false
``tipped`` were a placement's wobble: the finger pressing a pawn down pushes the disc's moment
beyond its hold, the disc tilts onto its support's edge (a pedestal's flat, a pivot's spring),
its own tared mass moves sideways, and that excess moment stays while the disc rocks back after
the finger lets go -- 40-80 ms after the release the excess test read it as a tip (at 80 Hz; a
reading or two later at 10 Hz). Physics tells the two apart only by what comes next:

* when the pawns cannot tip the disc (their moment, at most the level's before the segment plus
  the new load anywhere on the disc, is below the disc's hold) and a light press (a pawn and a
  finger, no push and no rim striking its stop) tilted it, the excess is *held*;
* it is refuted when the moment comes back to where the pawns put it (no excess, the force
  quiet): a wobble, no event;
* it is a tip after all, at once, when pawns leave (the force a pawn's weight below the level
  before the segment) or the excess goes on growing along the load's moment beyond a wobble's
  (the disc going on to its stop; one reading beyond is the disc snapping back onto its support,
  which swings the moment to its other side); and when it is still there ``HOLD_MS`` later (a
  disc whose pawns just outweigh its hold stays pinned at the edge before it rolls over).

Pure: numbers in, a yes/no out.
"""

from __future__ import annotations

BEYOND_THR = 3.0  # a held wobble is a tip once its excess passes this many tip thresholds ...
BEYOND_GROW = 2.0  # ... and this many times the excess it was first held at (the disc going on to its stop)
HOLD_MS = 400  # a wobble has rocked back by then: an excess still there is a disc lying over


class WobbleHold:
    """An excess moment held as a possible wobble (see the module's doc)."""

    def __init__(self, loss_g: float, max_press_g: float, confirm_n: int, min_press_g: float = 0.0) -> None:
        self.loss_g = loss_g  # a pawn's weight gone (the lightest pawn's share that counts)
        self.max_press_g = max_press_g  # a pawn set down with a finger: no more above the level
        self.min_press_g = min_press_g  # ... and at least a pawn's step: a wobble is a press's
        self.confirm_n = confirm_n  # readings that must agree (two at 80 Hz: one can be a swing)
        self._held: tuple[int, float, float, float] | None = None
        self._beyond_n = 0
        self._lost_n = 0

    @property
    def active(self) -> bool:
        """An excess is being held."""
        return self._held is not None

    def reset(self) -> None:
        """Nothing held (a new segment, a tip)."""
        self._held = None

    def may_hold(self, f_max: float, level_f: float, pawns_gmm: float, hold_gmm: float) -> bool:
        """Is an excess over the threshold possibly a wobble? Only after a light press (a moment
        that shifts with no press at all is the disc itself going over). ``f_max``: the largest
        force of the segment so far; ``level_f``: the level before it; ``pawns_gmm``: the most the
        pawns' moment can be now; ``hold_gmm``: the least moment the disc holds level."""
        return self.min_press_g <= f_max - level_f <= self.max_press_g and pawns_gmm < hold_gmm

    def hold(self, t: int, excess: float, load_x: float, load_y: float) -> None:
        """Hold the excess ``excess`` first seen at ``t`` with the load's moment (``load_x``,
        ``load_y``, about the empty disc) pointing the way the disc would tip."""
        self._held = (t, excess, load_x, load_y)
        self._beyond_n = self._lost_n = 0

    def step(self, t: int, f: float, level_f: float, excess: float, lag: float, load_x: float,
             load_y: float, quiet: bool, thr: float) -> bool:
        """One reading while held: True when it is a tip after all (the hold ends), False while it
        may still be a wobble (or once refuted: ``active`` is then False). ``excess``: against the
        level before the segment; ``lag``: against the quiet reference a moment ago; ``thr``: the
        tip threshold."""
        held = self._held
        assert held is not None
        t0, first, ux, uy = held
        if f < level_f - self.loss_g:
            self._lost_n += 1
            if self._lost_n >= self.confirm_n:
                self._held = None
                return True
        if excess >= max(BEYOND_THR * thr, BEYOND_GROW * first) and load_x * ux + load_y * uy > 0.0:
            self._beyond_n += 1
            if self._beyond_n >= self.confirm_n:
                self._held = None
                return True
        if excess <= 0.0 and quiet:
            self._held = None  # back where the pawns put it: a wobble
            return False
        if t - t0 >= HOLD_MS:
            self._held = None
            return max(excess, lag) > thr
        return False
