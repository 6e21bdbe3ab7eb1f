"""Losses of mass read as pawns, at a bounded cost per sample.

``LossReader`` (the judge's ``losses`` stage) wraps ``falls.decompose`` and
``falls.decompose_steps``: the noise of a loss (a difference of two levels, or the steps of the
staircase after a tip), a memo of the readings already made in this segment (a level that is not
explained yet is judged again on every sample) and the budget of pawn subsets all the readings of
one sample may score together. Its inputs are explicit: the loss, the pawns on the disc, the
pipeline's force noise, whether the disc still lies tilted, the direction it tipped towards, and
the time of the sample.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from companion.sensing.falls import Decomposition, decompose, decompose_steps

if TYPE_CHECKING:
    from companion.sensing.falls import Pawn

TILTED_ERR_G = 0.3  # error of a level of the tilted disc, as of a step's plateau
# pawn subsets scored by all the decompositions of one sample together: the bound on the cost of
# one ``feed()`` (a pick costs ~4 us here; one loss over 30-40 pawns asked for 4-6 decompositions
# of up to 2,000 picks each, 24 ms). Past it, each further count vector gets its likeliest pick.
PICKS_PER_FEED = 2000
MEMO_MAX = 64  # readings remembered per segment (the memo is cleared past it)


class LossReader:
    """Decompositions of losses into pawns, memoised per segment, within a budget per sample."""

    def __init__(self, masses: dict[str, float], radius_mm: float, fall_n: int, step_n: int) -> None:
        self.masses = masses
        self.radius_mm = radius_mm
        self.fall_n = fall_n  # readings of a level a loss is the difference of
        self.step_n = step_n  # ... and of a plateau of the staircase after a tip
        self.memo: dict = {}
        self.picks_t = -1  # the sample whose decompositions ``picks_left`` counts
        self.picks_left = PICKS_PER_FEED

    def new_segment(self) -> None:
        """A new segment: the readings of the last one say nothing of its losses."""
        self.memo = {}

    def sigma(self, sigma_f: float, steps: bool, tilted: bool) -> float:
        """The error (g) of a loss: two levels of ``fall_n`` readings (``steps``: plateaus of
        ``step_n``); ``tilted``: a level of the disc still lying on its stop (it rebounds as pawns
        leave and rocks after a knock, so the level is biased like a step's plateau)."""
        n = self.step_n if steps else self.fall_n
        sigma = max(0.1, sigma_f * max(0.5, math.sqrt(2.0 / n)))
        if not steps and tilted:
            sigma = math.hypot(sigma, TILTED_ERR_G)
        return sigma

    def read(self, lost: float | list[float], moment: tuple[float, float] | None, pawns: list[Pawn],
             sigma_f: float, tilted: bool, toward: tuple[float, float] | None,
             t: int) -> Decomposition | None:
        """The likeliest pawns of ``pawns`` a loss is (a list: the steps of the staircase after a
        tip), or None. ``moment``: the moment lost (None: mass only); ``toward``: the unit vector
        the disc tipped towards; ``t``: the sample (its budget)."""
        steps = isinstance(lost, list)
        sigma = self.sigma(sigma_f, steps, tilted)
        # bounded cost: the reading of the same loss (to 0.02 g, 10 g*mm) of the same pawns is not re-run
        key = (tuple(round(v / 0.02) for v in lost) if isinstance(lost, list) else round(lost / 0.02),
               None if moment is None else (round(moment[0] / 10.0), round(moment[1] / 10.0)),
               tuple(map(id, pawns)), round(sigma, 3),
               None if toward is None else (round(toward[0], 3), round(toward[1], 3)))
        memo = self.memo
        if key in memo:
            return memo[key]
        if len(memo) > MEMO_MAX:
            memo.clear()
        budget = self.budget(t)
        if isinstance(lost, list):
            dec = decompose_steps(lost, pawns, self.masses, sigma_g=sigma, toward=toward,
                                  radius_mm=self.radius_mm, max_picks=budget)
        else:
            dec = decompose(lost, moment, pawns, self.masses, sigma_g=sigma, toward=toward,
                            radius_mm=self.radius_mm, max_picks=budget)
        self.spend(dec)
        memo[key] = dec
        return dec

    def budget(self, t: int) -> int:
        """Pawn subsets the decompositions of sample ``t`` may still score (``PICKS_PER_FEED``)."""
        if t != self.picks_t:
            self.picks_t = t
            self.picks_left = PICKS_PER_FEED
        return max(0, self.picks_left)

    def spend(self, dec: Decomposition | None) -> None:
        """Count a decomposition's picks against this sample's budget."""
        if dec is not None:
            self.picks_left -= dec.picks
