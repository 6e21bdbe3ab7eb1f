"""The residual tip test: the disc's own tilt told from a contact pressing at a fixed point.

Used by ``TipTests`` (``tips.py``) inside a segment at 80 Hz; see docs/sensing.md, Tips. Pure:
block means of the samples in, the outward residual out.
"""

from __future__ import annotations

import math


class ResidualTest:
    """The disc's own tilt, told from the contacts pressing on it (issue 14: a finger pressing a
    pawn adds tipping moment; it does not hold the disc, and a tip can start while it presses).

    A contact presses at a fixed point while it presses, so the moment it explains is ``p * dF``
    with ``p`` its own centre of pressure, read from its own samples (the moment over the force it
    added to the level before the segment, once its force has settled). What is left, the
    *residual* ``r = dM - p dF`` since that anchor, is the disc's own mass moving: zero while the
    disc stays level, growing outwards along the load's moment once it goes over. The residual is
    tested on block means of ``block_n`` samples (50 ms: longer than the cells' timing skew, up
    to a whole sample period on free-running HX711 clocks) against its noise, with a one-sided
    CUSUM (sum of the standardised outward residual less ``K``; a tip when it reaches ``H``):
    small sustained tilts add up, one block's swing does not. Its noise: the block mean's own
    scatter (measured on the still disc), the contact's aim (``AIM_MM``: the finger is a few mm
    from the pawn, so force changes of the finger act a few mm from ``p``), its wander
    (``WANDER_MM`` times its force: a fingertip rolls, a hand steadying the disc shifts within
    the room the disc's hold leaves it, so a tip under a heavy contact must move further before
    it counts), and the skew (a cell
    lagging by up to a period reads the force of the past: a moment error of the force's slope
    times that lag times the cells' lever). A force step between blocks (a release, a new
    press, a fall) is a new contact: the test re-anchors at the next settled block. It anchors
    only on a contact no heavier than a pawn and a light finger (``pawn_press_g``): a heavier
    one is a hand or the placing hand's other fingers steadying the disc, whose centre of
    pressure is no fixed point (it lies wherever the disc stays level)."""

    K = 1.0  # CUSUM reference: a residual below one sigma per block adds nothing
    H = 12.0  # ... a tip when the sum reaches this
    CLIP = 3.0  # ... to which one block adds at most this much (three blocks at least)
    AIM_MM = 3.0  # a force change at the finger acts this far from the contact's centre of pressure
    WANDER_MM = 10.0  # a contact's centre of pressure wanders this much (a steadying hand: tens of mm)
    SETTLED = 0.15  # a block is settled when its force moved by at most this share of the contact
    STEP_G = 3.0  # a force step (block to block) beyond this (or 30 % of the contact) re-anchors

    def __init__(self, block_n: int, dt: float, cells_r_mm: float, arrive_g: float,
                 pawn_press_g: float = math.inf) -> None:
        self.block_n = block_n
        self.dt = dt
        self.skew_gain = 0.5 * cells_r_mm * dt  # g*mm per (g/ms) of force slope: lag <= one period
        self.arrive_g = arrive_g
        self.pawn_press_g = pawn_press_g
        self.reset()

    def reset(self) -> None:
        """A new segment (or a tip): no block, no anchor."""
        self._k = 0
        self._sf = self._sx = self._sy = 0.0
        self._first = 0.0
        self._prev: float | None = None  # the last block's mean force
        self._anchor: tuple[float, float, float] | None = None
        self._p = (0.0, 0.0)
        self.cusum = 0.0

    def step(self, f: float, x: float, y: float, base: tuple[float, float, float],
             zero: tuple[float, float], sigma_blk: float, floor: float) -> float:
        """One sample; returns the outward residual (g*mm) when the CUSUM says the disc is going
        over, else 0.0. ``base``: the level before the segment; ``zero``: the empty disc's
        moment; ``sigma_blk``: noise of a block's mean moment (per axis); ``floor``: the least
        residual that is a tip (the tip threshold)."""
        if self._k == 0:
            self._first = f
        self._k += 1
        self._sf += f
        self._sx += x
        self._sy += y
        if self._k < self.block_n:
            return 0.0
        inv = 1.0 / self._k
        bf, bx, by = self._sf * inv, self._sx * inv, self._sy * inv
        slope = abs(f - self._first) / ((self._k - 1) * self.dt)
        self._k = 0
        self._sf = self._sx = self._sy = 0.0
        prev, self._prev = self._prev, bf
        d_f = bf - base[0]
        if prev is None:
            return 0.0
        step = abs(bf - prev)
        if step > max(self.STEP_G, 0.3 * abs(d_f)):
            self._anchor = None  # a contact arrived, left or changed: its new place is unknown
            self.cusum = 0.0
            return 0.0
        if self._anchor is None:
            if not self.arrive_g <= d_f <= self.pawn_press_g or step > self.SETTLED * d_f:
                return 0.0
            self._anchor = (bf, bx, by)
            self._p = ((bx - base[1]) / d_f, (by - base[2]) / d_f)
            self.cusum = 0.0
            return 0.0
        if d_f > self.pawn_press_g:
            self._anchor = None  # more than a pawn and a light finger: a hand, its point wanders
            self.cusum = 0.0
            return 0.0
        af, ax, ay = self._anchor
        dF = bf - af
        rx = bx - ax - self._p[0] * dF
        ry = by - ay - self._p[1] * dF
        ux, uy = bx - zero[0], by - zero[1]
        norm = math.hypot(ux, uy)
        if norm < 1e-6:
            return 0.0
        e = (rx * ux + ry * uy) / norm
        var = 2.0 * sigma_blk * sigma_blk + (self.AIM_MM * dF) ** 2 + (self.WANDER_MM * d_f) ** 2 + \
            (self.skew_gain * slope) ** 2
        # one block adds at most CLIP sigmas: a jump in one block is a contact, not a disc that
        # goes over (its residual grows block after block)
        self.cusum = max(0.0, self.cusum + min(e / math.sqrt(var), self.CLIP) - self.K)
        if self.cusum >= self.H and e >= floor:
            return e
        return 0.0
