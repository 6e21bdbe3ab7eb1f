"""The read-only views the tip tests are handed each sample (``tips.py``): the conditioned
signals (``Signals``, written by the pipeline) and what the segment judge knows of the presses
(``PressView``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


class Signals:
    """What the tip tests read of the conditioned signals, one sample inside a segment. The
    pipeline writes it before each call; the tests only read it.

    ``f``, ``x``, ``y``: the segment's force and moments so far (the latest sample last; at least
    the last ``n`` samples are the recent history); ``n``: samples of history buffered; ``t``:
    this sample's time; ``count``: samples since the last warm-up; ``fast``: the fast-smoothed
    (F, Mx, My); ``base``: the still baseline frozen at the segment's start; ``zero``: the
    empty disc's moment (x, y); ``sigma_f`` / ``sigma_m``: per-sample noise of the force and the
    moment; ``glitch``: the latest row held a lone cell's jump as a possible glitch."""

    __slots__ = ("f", "x", "y", "n", "t", "count", "fast", "base", "zero", "sigma_f", "sigma_m",
                 "glitch")

    def __init__(self) -> None:
        self.f: Sequence[float] = []
        self.x: Sequence[float] = []
        self.y: Sequence[float] = []
        self.n = 0
        self.t = 0
        self.count = 0
        self.fast = (0.0, 0.0, 0.0)
        self.base = (0.0, 0.0, 0.0)
        self.zero = (0.0, 0.0)
        self.sigma_f = 0.02
        self.sigma_m = 2.0
        self.glitch = False


@dataclass(frozen=True)
class PressView:
    """What the segment judge knows of the presses in this segment, as the tip tests need it.

    ``level``: the still level before the segment (F, Mx, My); ``press``: the strongest finger
    press so far (summed force above the level, its summed moments: w, w*x, w*y; w = 0 if none);
    ``pressing``: a press is going on now; ``placed``: a finger press episode ended in this
    segment (a pawn was set down); ``on_disc_g``: the pawns weighed on the platform."""

    level: tuple[float, float, float]
    press: tuple[float, float, float]
    pressing: bool
    placed: bool
    on_disc_g: float
