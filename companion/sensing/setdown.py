"""After a tip: the pawn set down just before it, found on the tilted disc (``FallWatch``'s).

A pawn set down with a touch too light to count as a press (or whose release fired the tip) is
on the disc when it tips, but no ``placed`` reported it: the tilted disc's first quiet level
stands a pawn above the base (it is placed then, and the base rises by it), or stands where the
disc stood before the pawn came with a load of one pawn just before the tip (it went: a fall,
not confident). Its state is the tip's ``Staircase`` (``press_xy``, ``rise_pawn``, ``tip_pawn``...).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from companion.sensing.beforetip import BeforeTip
from companion.sensing.decomposing import TILTED_ERR_G
from companion.sensing.doubts import DOUBT_HOLDS
from companion.sensing.falls import SIZES, Pawn
from companion.sensing.segfacts import NO_STAIRS, SegmentFacts, StairsRead

if TYPE_CHECKING:
    from companion.sensing.readings import Readings
    from companion.sensing.staircase import Staircase


class SetDown:
    """The pawn set down just before a tip, read from the tip's staircase (``judge``), and where
    the load pressed before the tip (``start``, as the staircase starts). ``zero_tol_g``: the
    largest net force change that counts as none."""

    def __init__(self, masses: dict[str, float], radius_mm: float, dt: float, step_n: int,
                 zero_tol_g: float) -> None:
        self.masses = masses
        self.step_n = step_n
        self.zero_tol_g = zero_tol_g
        self.before_tip = BeforeTip(masses, radius_mm, dt)

    def start(self, st: Staircase, rd: Readings, seg: SegmentFacts, loss_t: int) -> None:
        """The tip's staircase starts: where the load pressed before the tip, the pawns tracked
        then, and the tipping pawn's estimate (``loss_t``: when the last loss off a level disc
        was read, the base went down then)."""
        st.press_xy = self._load_point(st, rd, seg, loss_t)
        st.ids_at_tip = frozenset(map(id, rd.pawns))
        st.pre_est = seg.tipping_est

    def _load_point(self, st: Staircase, rd: Readings, seg: SegmentFacts,
                    loss_t: int) -> tuple[float, float]:
        """Where the load pressed before the tip, and whether (and how heavy) a pawn stood there
        (``BeforeTip``), read as the tip episode's staircase starts."""
        bt = self.before_tip
        base = seg.base
        n = bt.rise_n(rd.history.n)
        since = max(loss_t, seg.placed_t)  # before that, the load stood on an older base
        st.rise_before, st.rise_pawn = bt.rose(rd.history.window(n) if n >= 4 else None, base[0], since,
                                               rd.sigma_f)
        return bt.load_point(rd.history.window(bt.press_n), base)

    def judge(self, st: Staircase, rd: Readings, t: int, seg: SegmentFacts) -> StairsRead:
        """The first quiet plateau of the tilted disc, before any pawn fell, stands a pawn above
        the base, and no press was weighed for it: the pawn set down just before the tip (a
        finger too light to count as a press, or a tip that fired after the release). Its weight
        is on the disc when it tips, so the falls are read from it: it joins the pawns on the
        disc (``placed``, not confident: weighed on the tilted disc) and the base rises by it.
        Without it, the falls of the tip are read one pawn short and with confidence. The judge
        reports that ``placed`` and raises the base (``StairsRead.placed``)."""
        if st.gain_judged or seg.press_at_tip or seg.tipping_est is not None:
            # judged already, or a press is followed to its end, or the pawn whose release
            # tipped the disc is being weighed (``_resolve_pre``): wait for it
            st.gain_judged = st.gain_judged or (seg.press_at_tip and bool(st.plateaus))
            return NO_STAIRS
        if not st.plateaus:
            return NO_STAIRS
        first = st.plateaus[0]
        if first.n < self.step_n or (seg.tip_t is not None and first.t_last <= seg.tip_t):
            return NO_STAIRS
        if seg.tipping_placed:
            st.gain_judged = True
            if any(id(p) not in st.ids_at_tip for p in rd.pawns):
                return NO_STAIRS  # the pawn whose release tipped the disc was weighed and placed
            # it was estimated at the tip but fit no pawn when weighed: it may have gone. Its
            # weight is the load that stood before the tip when that weighs like a pawn, else the
            # estimate right after the press ended
            gain = first.level - seg.drifted[0]
            return StairsRead(self._set_down_and_gone(st, t, gain, st.rise_pawn, True)
                              or self._set_down_and_gone(st, t, gain, st.pre_est, False)
                              or self._unweighed_and_gone(st, rd, t, gain))
        st.gain_judged = True
        gain = first.level - seg.drifted[0]
        lo, hi = 0.6 * min(self.masses.values()), 1.3 * max(self.masses.values())
        size = min(self.masses, key=lambda k: abs(math.log(max(gain, 1e-3) / self.masses[k])))
        if not lo <= gain <= hi or abs(gain - self.masses[size]) > max(3.0 * TILTED_ERR_G,
                                                                       0.15 * self.masses[size]):
            # no pawn's weight: nothing was set down, or a finger still rests, or the pawn set
            # down went before the tilted disc was quiet (a tip seen late): when a load stood on
            # the disc just before, the falls of this tip may include a pawn never weighed
            return StairsRead(self._set_down_and_gone(st, t, gain, st.rise_pawn, True), None, st.rise_before)
        px, py = st.press_xy if st.press_xy is not None else (0.0, 0.0)
        st.tip_pawn = Pawn(size, gain, px, py)  # (the judge tracks the pawn it reports placed)
        return StairsRead((), (size, gain, px, py))

    def _set_down_and_gone(self, st: Staircase, t: int, gain: float, rise: float | None,
                           fit: bool) -> list[dict]:
        """A load of one pawn's weight (``rise``) stood on the disc just before the tip, and the
        tilted disc's first quiet level has gained nothing: the pawn set down was on the disc as
        it tipped, and a pawn of its weight left before the level could be read (a tip seen only
        after its first fall). Mass is conserved: that is a fall, of a pawn of that size (the one
        set down, or another like it; which one the evidence cannot say), not confident. Without
        it the episode reports no fall at all. ``fit``: the load must weigh like a pawn (it was
        no press: a steady finger weighs anything); else (the level right after a press ended,
        the disc already moving) the nearest size is the guess."""
        lightest, heaviest = min(self.masses.values()), max(self.masses.values())
        # a pawn or nothing: read at the press's end on a moving disc, the load errs by about as
        # much for either, so the boundary is halfway to the lightest pawn
        least = (0.6 if fit else 0.5) * lightest
        if rise is None or gain > 0.6 * lightest or not least <= rise <= 1.3 * heaviest:
            return []  # nothing stood on the disc before the tip, or the level rose: no pawn left
        size = min(self.masses, key=lambda k: abs(math.log(rise / self.masses[k])))
        if fit and abs(rise - self.masses[size]) > max(3.0 * TILTED_ERR_G, 0.15 * self.masses[size]):
            return []
        st.tip_pawn = Pawn(size, rise, None, None)
        return [{"event": "fell", "t_ms": t, "pawns": {s: int(s == size) for s in SIZES},
                 "mass_g": round(rise, 2), "confident": False, "set_down": True,
                 "posterior": DOUBT_HOLDS["set_down"]}]

    def _unweighed_and_gone(self, st: Staircase, rd: Readings, t: int, gain: float) -> list[dict]:
        """A finger let go of a pawn as the disc went over (its release tipped it), no reading
        weighed that pawn (the disc was already moving), and the tilted disc's first quiet level
        stands where the disc stood before the pawn came: mass is conserved, so a pawn left
        (the one set down, the first to reach the low rim). Its size is unknown: the likeliest
        is the commonest size of the pawns set down so far (Laplace's rule), not confident.
        Without it the episode reports no fall at all."""
        if abs(gain) > self.zero_tol_g:
            return []  # the level moved: a pawn stayed (weighed above), or more went (the steps)
        seen = [p.size for p in (*rd.pawns, *rd.base_pawns)]
        size = max(SIZES, key=lambda k: (seen.count(k), -SIZES.index(k)))
        st.tip_pawn = Pawn(size, self.masses[size], None, None)
        return [{"event": "fell", "t_ms": t, "pawns": {s: int(s == size) for s in SIZES},
                 "mass_g": round(self.masses[size], 2), "confident": False, "set_down": True,
                 "posterior": round((1 + seen.count(size)) / (len(SIZES) + len(seen)), 3)}]
