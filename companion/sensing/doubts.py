"""What a fall reading's evidence may lack: its doubts, each with the probability it holds anyway.

``Doubts`` (the judge's ``doubts`` stage) names the ways the evidence a decomposition was given
may be incomplete (``DOUBT_HOLDS``); the posterior reported with a ``fell`` is the
decomposition's times these, so that ``confident`` is one rule (posterior >= ``CONFIDENT_P``) on
a probability that means what it says. Pure, with explicit inputs: the pawn set and geometry at
construction, the state of the tip episode (whether a tip is open, what the staircase saw, a pawn
that may have gone unweighed) as arguments.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from companion.sensing.falls import CONFIDENT_P

if TYPE_CHECKING:
    from companion.sensing.falls import Decomposition, Pawn
    from companion.sensing.settings import SensingSettings

SLIDE_FROM_FRACTION = 0.8  # a pawn slides off a level disc by itself only from its rim (of the radius)

# The probability that a fall reading holds although its evidence may be incomplete in one way
# (the name of each doubt is in the ``fell``'s "doubts"), by the share of exactly right fall
# episodes with that doubt on the tuned families (simfamily pedestal-sync, pedestal-free,
# pivot-spring, sim, sim_alt; 80 and 10 Hz, 4 and 3 cells; Laplace's rule, 2026-12-02):
# "weighed" is a pawn read from the moment or a landing on the base plate, "set_down" a pawn
# that tipped the disc and left before it was weighed (``_set_down_and_gone``).
DOUBT_HOLDS = {
    "misfit": 0.33,  # 2 of 7
    "slow": 0.47,  # 24 of 51 (10 Hz)
    "unweighed": 0.29,  # 1 of 5
    "landings": 0.67,  # 3 of 4
    "size": 0.31,  # 7 of 24
    "unseen": 0.5,  # none seen: no evidence either way
    "inside": 0.2,  # 0 of 3
    "weighed": 0.4,  # 3 of 8
    "set_down": 0.45,  # 4 of 9
    "pushed": 0.33,  # 6 of 19 (tuned and calibration corpora, 2026-12-02 afternoon)
    "lifted": 0.59,  # 22 of 37
}


class Doubts:
    """The doubts of a fall reading (``DOUBT_HOLDS``: name -> probability the reading holds)."""

    def __init__(self, settings: SensingSettings, masses: dict[str, float], positional: bool,
                 radius_mm: float) -> None:
        self.s = settings
        self.masses = masses
        self.positional = positional
        self.radius_mm = radius_mm

    def of(self, dec: Decomposition, removed: bool, unseen: bool, *, tipped: bool, watch_dips: bool,
           unsure_falls: bool, landings: int, touched: frozenset[int] = frozenset()) -> dict[str, float]:
        """The doubts of the reading ``dec`` (``removed``: a pinch lifted it; ``unseen``: picked up
        from the base plate, a fall never seen). ``tipped``: inside a tip episode, where
        ``watch_dips`` says the rate is fast enough to single out falls, ``unsure_falls`` that a
        pawn set down may have gone unweighed, ``landings`` how many landings on the base plate
        were seen but not read, ``touched`` the signs of the hand-like runs during the tip that
        came back (+1 a push, -1 a lift)."""
        out: dict[str, float] = {}
        if not dec.confident and dec.posterior >= CONFIDENT_P:
            out["misfit"] = DOUBT_HOLDS["misfit"]  # no count vector fits the mass well, or the steps disagree
        if tipped:
            if not watch_dips:
                # at a slow rate one reading spans a pawn's flight onto the base plate (it stays
                # weighed) or several falls: the counts cannot be singled out
                out["slow"] = DOUBT_HOLDS["slow"]
            if unsure_falls:
                out["unweighed"] = DOUBT_HOLDS["unweighed"]  # a pawn set down may have gone unweighed
            if 1 in touched:
                # a hand pushed on the table during the tip (and let go): it may have taken a pawn
                # off the base plate or the disc, or set one down, unseen
                out["pushed"] = DOUBT_HOLDS["pushed"]
            if -1 in touched:
                out["lifted"] = DOUBT_HOLDS["lifted"]  # a hand lifted the disc during the tip
            if landings:
                # pawns were seen landing on the base plate without being read (they may stay or
                # roll off later)
                out["landings"] = DOUBT_HOLDS["landings"]
        if any(self.size_unsure(p) for p in dec.pawns):
            # a pawn taken was weighed at its placement as no size really (a finger, two pawns, a
            # tilted disc): what it is, and so what fell, rests on that reading
            out["size"] = DOUBT_HOLDS["size"]
        if unseen:
            out["unseen"] = DOUBT_HOLDS["unseen"]
        elif not tipped and not removed and not self.slid_from_rim(dec):
            # no tip was seen and no pinch lifted it, but a level disc loses a pawn by itself only
            # over its rim: a pawn from further in left a disc that tilted unseen (more may have
            # gone onto the base plate), or the loss is no pawn at all (a finger leaving)
            out["inside"] = DOUBT_HOLDS["inside"]
        return out

    def size_unsure(self, pawn: Pawn) -> bool:
        """Does a tracked pawn's measured mass fit no size (beyond the size tolerance a placement is
        matched with: its ``placed`` named the nearest size, not confident)?"""
        nominal = self.masses[pawn.size]
        return abs(pawn.mass_g - nominal) > max(self.s.pawn_tol_min_g, self.s.pawn_tol_frac * nominal)

    def slid_from_rim(self, dec: Decomposition) -> bool:
        """Did every pawn of a reading stand where a pawn slides off a level disc alone (near the
        rim)? Unknown without positions (one cell): then the reading has only the mass."""
        if not self.positional or not dec.pawns:
            return False
        return all(p.x_mm is not None and p.y_mm is not None
                   and math.hypot(p.x_mm, p.y_mm) >= SLIDE_FROM_FRACTION * self.radius_mm
                   for p in dec.pawns)
