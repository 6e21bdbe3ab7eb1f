"""After a tip: reading the falls (``FallWatch``, the judge's ``fallwatch`` stage).

Losses of mass are read step by step from the force staircase (``staircase.py``), pawns landing
on the base plate are set aside, the pawn set down just before the tip that no press weighed is
found on the tilted disc (``setdown.py``), and every loss is decomposed into pawns (``falls.py``)
with an honest ``confident``: not when the tip's inventory is in doubt (a pawn never weighed, a
pawn whose size fits nothing, a landing seen but not read, a slow rate), nor when a level disc
lost a pawn from inside its rim. A loss right after a placement that leaves a pawn's weight
behind is the finger letting go, not a fall.

``FallWatch`` owns the fall state of a segment and nothing else: what it needs of the segment
comes in as ``SegmentFacts`` (``segfacts.py``, built by the judge for each call), and what it
decides of the segment's own state (a pawn weighed on the tilted disc, falls made unsure) goes
back as ``StairsRead`` for the judge to apply.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from companion.sensing.decomposing import LossReader
from companion.sensing.doubts import DOUBT_HOLDS, Doubts
from companion.sensing.explain import went_over
from companion.sensing.falls import (
    CONFIDENT_P,
    PAWN_MASS_ERR_G,
    SIZES,
    STEP_ERR_G,
    STEP_PER_PAWN,
    Decomposition,
    Pawn,
    decompose,
    pawn_moment,
    prefer_steps,
    weighed_falls,
)
from companion.sensing.segfacts import NO_STAIRS, SegmentFacts, StairsRead
from companion.sensing.setdown import SetDown
from companion.sensing.staircase import Staircase

if TYPE_CHECKING:
    from companion.sensing.layout import DiscLayout
    from companion.sensing.readings import Readings
    from companion.sensing.settings import SensingSettings

BASE_PICKUP_INSIDE_MM = 3.0  # a pick-up this far inside the disc's edge may still be off the base plate
WEIGHED_LAY_OVER = 2.0  # tilt excursion (in tip thresholds) of a disc that lay over far enough to shed pawns
FINGER_LEAVES_MS = 3000.0  # a finger resting on a pawn just placed lets go within this of its `placed`
FINGER_AT_PAWN_MM = 25.0  # ... and it leaves from where that pawn stands (a finger's aim, the pawn's size)
LONE_LOSS_PAWNS = 2  # without a tip, pawns leave one (or two) at a time: a slide-off or a removal


class FallWatch:
    """Losses of mass after a tip (step by step), pawns landing on the base plate, and the
    decomposition of every loss into pawns. The judge's ``fallwatch`` stage: it owns the fall state
    of a segment (the staircase, the pawns on the base plate, what was reported lost); the rest
    of the segment comes in as ``SegmentFacts``. ``zero_tol_g``: the largest net force change
    that counts as none (``SegmentJudge.zero_tol_g``)."""

    def __init__(self, settings: SensingSettings, masses: dict[str, float], layout: DiscLayout,
                 positional: bool, dt: float, fall_n: int, step_n: int, zero_tol_g: float) -> None:
        self.s = settings
        self.masses = masses
        self.layout = layout
        self.positional = positional
        self.dt = dt
        self.fall_n = fall_n
        self.step_n = step_n
        self.zero_tol_g = zero_tol_g
        self.losses = LossReader(masses, layout.radius_mm, fall_n, step_n)
        self.doubts = Doubts(settings, masses, positional, layout.radius_mm)
        self.set_down = SetDown(masses, layout.radius_mm, dt, step_n, zero_tol_g)  # a pawn set down at a tip
        self.loss_t = -10**9  # when the last loss off a level disc was read (the base went down then)
        self.went_over: int | None = None  # a loss read as a missed tip, over then (``take_went_over``)
        self.reset()

    def reset(self) -> None:
        """A new segment: nothing lost, nothing on the base plate, a new staircase."""
        self.lost_reported = 0.0  # grams already reported as fallen in this tip
        self.lost_moment = (0.0, 0.0)  # moment the pawns reported fallen had where they stood
        self.tip_moment: tuple[float, float] | None = None  # tracked pawns' moment when it tipped
        self.last_loss_t = -1
        self.stairs = Staircase(0.45 * self.masses["small"], self.dt)
        self.on_base: list[Pawn] = []  # pawns seen landing on the base plate (still weighed)
        self.losses.new_segment()  # readings of losses already decomposed are this segment's

    def watch_stairs(self, rd: Readings, t: int, seg: SegmentFacts, glitch: bool) -> StairsRead:
        """Every sample while tipped: the staircase of plateaus and pawns landing on the base
        (``glitch``: the latest row held a lone cell's jump as a possible glitch, ``cells.py``)."""
        w = rd.history.window(self.step_n)
        if w is None:
            return NO_STAIRS
        if self.stairs.press_xy is None:
            self.set_down.start(self.stairs, rd, seg, self.loss_t)
        tol = max(self.s.still_tol_min_g, 5.0 * rd.sigma_f)
        self.stairs.feed(w[0], w[3], tol)
        gained = self.set_down.judge(self.stairs, rd, t, seg)
        if gained.events or gained.placed is not None:
            return gained
        depth = self.stairs.watch(w[0][-1], 0.6 * self.masses["small"], glitch)
        if depth is None:
            return gained  # (nothing, or the falls made unsure)
        return StairsRead(self._landed_on_base(rd, t, depth, seg), None, gained.unsure)

    def take_went_over(self) -> int | None:
        """When a loss was read as a tip its tests missed, over at once (``_went_over_loss``),
        since the judge last asked; None if none."""
        t, self.went_over = self.went_over, None
        return t

    def hand_over_base(self) -> list[Pawn]:
        """A tip episode settled: the pawns seen landing on the base plate (still weighed there,
        no longer on the disc), handed over; none are this episode's any more."""
        on_base, self.on_base = self.on_base, []
        return on_base

    def remember_tip_moment(self, pawns: list[Pawn]) -> None:
        """The tracked pawns' moment as the falls of a tip start to be read (once per tip)."""
        if self.tip_moment is None:
            self.tip_moment = pawn_moment(pawns)

    def quiet_level(self, rd: Readings) -> float | None:
        """While tipped: the total force when it has been quiet for a short while (a new level
        of the tilted disc, ``check_falls`` reads it), else None."""
        fs = rd.history.window_f(self.fall_n)  # (the times only once the force is quiet)
        if fs is None:
            return None
        if max(fs) - min(fs) > max(self.s.still_tol_min_g, 5.0 * rd.sigma_f):
            return None
        return sum(fs) / len(fs)

    def check_falls(self, rd: Readings, t: int, level_f: float, seg: SegmentFacts) -> list[dict] | None:
        """While tipped: pawns come off one after another. As soon as the total force has been
        quiet for a short while after a drop (``level_f``, ``quiet_level``), report the loss
        (mass evidence only: the disc is still tilted, so the moment says little)."""
        if rd.history.window(self.fall_n)[3][0] <= self.last_loss_t:  # type: ignore[index]
            return None
        new_loss = -(level_f - seg.drifted[0]) - self.lost_reported
        if new_loss <= self.zero_tol_g or (self.read_loss(rd, new_loss, None, seg) is None
                                           and not self.on_base):
            return None
        self.lost_reported += new_loss
        self.last_loss_t = t
        return self.loss_events(rd, t, new_loss, None, False, seg)

    def _landed_on_base(self, rd: Readings, t: int, depth: float, seg: SegmentFacts) -> list[dict]:
        """A dip of one pawn's weight with a landing impact: that pawn fell onto the base plate,
        where it stays weighed. Reported now (not confident: the weight never left for good); it
        is remembered, so that its weight leaving later (it bounced off the base, or is picked up)
        is not read as another pawn falling."""
        # the flight level is a few readings of a disc rebounding on its stop: its error is a good
        # part of the still tolerance, far more than a plateau's; one dip is likelier one pawn
        sigma = max(0.1, 0.5 * self.stairs.step_tol_g)
        dec = decompose(depth, None, rd.pawns, self.masses, sigma_g=sigma, toward=self._toward(rd, seg),
                        radius_mm=self.layout.radius_mm, per_pawn=STEP_PER_PAWN)
        if dec is None or sum(dec.counts.values()) != 1 or not dec.pawns:
            self.stairs.landings += 1  # a landing no single pawn fits: not read, but seen
            return []
        rd.pawns.remove(dec.pawns[0])
        self.on_base.append(dec.pawns[0])
        return [{"event": "fell", "t_ms": t, "pawns": dec.counts, "mass_g": round(depth, 2),
                 "confident": False, "weighed": True,
                 "posterior": round(dec.posterior * DOUBT_HOLDS["weighed"], 3)}]

    def _weight_of(self, rd: Readings, lost: float, pawns: list[Pawn],
                   extra_g: float) -> tuple[Pawn, ...] | None:
        """The pawns among ``pawns`` whose weight a loss is, within 3 sigma (the level difference,
        a pawn's mass error and ``extra_g``), or None."""
        if not pawns:
            return None
        sigma = max(0.1, rd.sigma_f * max(0.5, math.sqrt(2.0 / self.fall_n)))
        dec = decompose(lost, None, pawns, self.masses, sigma_g=sigma)
        if dec is None or not dec.pawns:
            return None
        if abs(lost - sum(p.mass_g for p in dec.pawns)) > 3.0 * math.sqrt(
                sigma ** 2 + PAWN_MASS_ERR_G ** 2 + extra_g ** 2):
            return None
        return dec.pawns

    def _off_the_base(self, rd: Readings, lost: float) -> bool:
        """Is a loss the weight of pawns that lay on the base plate (they bounced off)? Then it
        was reported already when they landed."""
        # measured on the tipped disc (a plateau biased like a step): 3 sigma, since a pawn known to
        # lie on the ledge rolling off is likelier than a new fall of the same weight
        after = self.stairs.after_landing
        now = rd.history.window_f(self.step_n)
        if after is not None and now is not None and sum(now) / len(now) >= after - self.stairs.step_tol_g:
            return False  # the load has not gone down since the landing: this loss came before it
        gone = self._weight_of(rd, lost, self.on_base, STEP_ERR_G)
        if gone is None:
            return False
        for p in gone:
            self.on_base.remove(p)
        return True

    def base_pickup(self, rd: Readings, lost: float,
                     moment: tuple[float, float] | None) -> tuple[Pawn, ...] | None:
        """The pawns lying on the base plate (reported fallen, still weighed) whose weight a loss
        is, when it left from outside the disc (where the base plate is): a player picking them
        up. None when the loss fits none of them, or left from where pawns stand on the disc."""
        picked = self._weight_of(rd, lost, rd.base_pawns, 0.0)
        if picked is None:
            return None
        if self.positional and moment is not None and not self._off_the_disc(rd, lost, moment) and \
                self._disc_pawn_there(rd, lost, moment):
            return None  # it left from the disc, where a pawn of that weight stands: it was lifted
        return picked

    def _disc_pawn_there(self, rd: Readings, lost: float, moment: tuple[float, float]) -> bool:
        """Does a pawn tracked on the disc of the loss's weight stand where the loss left (within a
        finger's reach of it, and the place's own noise)? A loss just inside the edge that no disc
        pawn explains is a pawn lying on the base plate picked up (a light pawn's place is noisy)."""
        sigma_r = rd.sigma_m * math.sqrt(2.0 / self.fall_n) / lost
        lx, ly = moment[0] / lost, moment[1] / lost
        reach = FINGER_AT_PAWN_MM + 2.0 * sigma_r
        near = [p for p in rd.pawns if p.x_mm is None or p.y_mm is None or
                math.hypot(p.x_mm - lx, p.y_mm - ly) <= reach]
        return self._weight_of(rd, lost, near, 0.0) is not None

    def _off_the_disc(self, rd: Readings, lost: float, moment: tuple[float, float] | None) -> bool:
        """Did a loss leave from outside the disc's edge (the base plate around it)? Where it left
        is the moment lost over the mass lost, which is noisy for a light pawn read from few
        readings (10 Hz): it must lie out by two of its own sigmas."""
        if not self.positional or moment is None or lost <= 0.0:
            return False
        sigma_r = rd.sigma_m * math.sqrt(2.0 / self.fall_n) / lost
        return math.hypot(*moment) / lost >= self.layout.radius_mm - BASE_PICKUP_INSIDE_MM + 2.0 * sigma_r

    def plausible_loss(self, rd: Readings, lost: float, count: int) -> bool:
        """Can a level ``lost`` grams below the base, with no tip, be ``count`` pawns leaving? Not
        more mass than the tracked pawns weigh (a hand lifting the disc); not many pawns at once
        (the judge reports those only once the level lasts far longer than a hand holds, and not
        as confident)."""
        on_disc = sum(p.mass_g for p in rd.pawns) + sum(p.mass_g for p in rd.base_pawns)
        if lost > 1.1 * on_disc + max(self.s.pawn_tol_min_g, 0.5 * self.masses["small"]):
            return False
        return count <= LONE_LOSS_PAWNS

    def weighed_falls(self, rd: Readings, t: int, seg: SegmentFacts) -> list[dict]:
        """Level again, but the pawns still tracked on the disc would hold it over: some pawns
        slid off and lie on the base plate (still weighed). Report the likeliest, not confident."""
        if not self.positional or self.tip_moment is None:
            return []
        if seg.exc_max < WEIGHED_LAY_OVER * rd.tip_threshold:
            # pawns slide only on a disc lying far over (tilted past their friction); a disc that
            # rocked a little and came back (a wobble read as a tip) shed none of them
            return []
        if self.stairs.tip_pawn is not None:
            # the "tip" came as a pawn was set down with a light touch (it stayed, and nothing
            # was lost: the disc rocking as that pawn settled reads the same, ``_gained_pawn``;
            # or it tipped the disc and went): the tracked pawns' moment says nothing of a
            # limit that pawn and the finger's push helped to pass
            return []
        gone = weighed_falls(rd.pawns, self.tip_moment, self.layout.radius_mm)
        if not gone:
            return []
        for p in gone:
            rd.pawns.remove(p)
            self.on_base.append(p)  # still weighed: its pick-up later is no second fall
        counts = {k: sum(1 for p in gone if p.size == k) for k in SIZES}
        # the weight never left the platform: the mass reported is what the pawns weighed when placed
        mass = sum(p.mass_g for p in gone)
        return [{"event": "fell", "t_ms": t, "pawns": counts, "mass_g": round(mass, 2),
                 "confident": False, "weighed": True, "posterior": DOUBT_HOLDS["weighed"]}]

    def _toward(self, rd: Readings, seg: SegmentFacts) -> tuple[float, float] | None:
        """After a tip: the unit vector the disc tipped towards (the pawns' moment), else None."""
        if seg.tip_t is None or not self.positional:
            return None
        zero = rd.zero
        mx, my = seg.base[1] - zero[1], seg.base[2] - zero[2]
        norm = math.hypot(mx, my)
        return (mx / norm, my / norm) if norm > 1e-6 else None

    def read_loss(self, rd: Readings, lost: float | list[float],
                  moment: tuple[float, float] | None, seg: SegmentFacts) -> Decomposition | None:
        """The pawns a loss is (``LossReader.read``; a list: the steps of the staircase after a tip)."""
        tilted = seg.tip_t is not None and not seg.righted
        return self.losses.read(lost, moment, rd.pawns, rd.sigma_f, tilted, self._toward(rd, seg),
                                self._sample_t(rd))

    @staticmethod
    def _sample_t(rd: Readings) -> int:
        """The time of the pipeline's latest sample (-1 before any)."""
        w = rd.history.window(1)
        return w[3][-1] if w is not None else -1

    def picks_budget(self, rd: Readings) -> int:
        """Pawn subsets the decompositions of this sample may still score (``LossReader.budget``)."""
        return self.losses.budget(self._sample_t(rd))

    def spend_picks(self, dec: Decomposition | None) -> None:
        """Count a decomposition's picks against this sample's budget."""
        self.losses.spend(dec)

    def loss_events(self, rd: Readings, t: int, lost: float, moment: tuple[float, float] | None,
                    removed: bool, seg: SegmentFacts) -> list[dict]:
        """``removed`` (one pawn lifted by hand) or ``fell`` for a loss of mass; update the pawn list."""
        tip_t = seg.tip_t
        if tip_t is None:
            self.loss_t = t
            if removed and went_over(self.positional, seg.seg_exc_max, rd.tip_threshold):
                return self._went_over_loss(rd, t, lost, moment, seg)
        if tip_t is not None and self._off_the_base(rd, lost):
            self.stairs.reported()
            return []
        if tip_t is None and not removed and self._finger_left(rd, t, lost, moment, seg):
            return []
        unseen = False
        if tip_t is None:  # a pinch lifted it, seen or not (a pawn sliding off is not picked)
            picked = self.base_pickup(rd, lost, moment)
            if picked is not None:  # a fallen pawn picked up from the base plate: reported already
                for p in picked:
                    rd.base_pawns.remove(p)
                return []
            if self._off_the_disc(rd, lost, moment):
                # picked up from outside the disc: a pawn that fell onto the base plate unseen
                # (at 10 Hz a flight is shorter than a reading); it fell, it was not lifted off
                removed = False
                unseen = True
        dec = self.read_loss(rd, lost, None if unseen or not self.positional else moment, seg)
        if tip_t is not None:  # after a tip: read the loss step by step when steps were seen
            steps = self.stairs.steps(lost)
            self.stairs.reported()
            if len(steps) > 1:
                # the total is a level of the disc still lying on its stop unless it righted:
                # it rebounds as pawns leave, so the level is biased like a step's plateau
                sigma = self.losses.sigma(rd.sigma_f, False, not seg.righted)
                dec = prefer_steps(lost, dec, self.read_loss(rd, steps, None, seg), sigma)
        if dec is None:
            if lost < 0.6 * min(self.masses.values()):
                return []
            size = min(self.masses, key=lambda k: abs(math.log(lost / self.masses[k])))
            return [{"event": "fell", "t_ms": t, "pawns": {s: int(s == size) for s in SIZES},
                     "mass_g": round(lost, 2), "confident": False}]
        for p in dec.pawns:
            rd.pawns.remove(p)
            if p.x_mm is not None and p.y_mm is not None and tip_t is not None:
                self.lost_moment = (self.lost_moment[0] + p.mass_g * p.x_mm,
                                    self.lost_moment[1] + p.mass_g * p.y_mm)
        total = sum(dec.counts.values())
        if removed and total == 1:
            size = next(s for s, c in dec.counts.items() if c)
            ev = {"event": "removed", "t_ms": t, "size": size, "mass_g": round(lost, 2)}
        elif removed and tip_t is None:
            # a press lifted them and the disc did not tip: pawns taken by hand (two pinches the
            # load never rested between, or one that took two), not a fall; which ones rests on
            # the mass alone
            return [{"event": "removed", "t_ms": t, "size": p.size, "mass_g": round(p.mass_g, 2),
                     "confident": False} for p in dec.pawns]
        else:
            ev = {"event": "fell", "t_ms": t, "pawns": dec.counts, "mass_g": round(lost, 2)}
        doubts = self.doubts.of(dec, removed, unseen, tipped=tip_t is not None,
                                watch_dips=self.stairs.watch_dips, unsure_falls=seg.unsure_falls,
                                landings=self.stairs.landings, touched=seg.touched)
        posterior = dec.posterior * math.prod(doubts.values())
        if ev["event"] == "fell":
            ev["posterior"] = round(posterior, 3)  # of these counts, with what the evidence may lack
            if doubts:
                ev["doubts"] = sorted(doubts)
        if posterior < CONFIDENT_P or not dec.confident:
            ev["confident"] = False
        if unseen:
            ev["from_base"] = True
        return [ev]

    def _went_over_loss(self, rd: Readings, t: int, lost: float,
                        moment: tuple[float, float] | None, seg: SegmentFacts) -> list[dict]:
        """A loss after a press, that a pinch lifting a pawn would leave too, but the disc's own
        mass moved out meanwhile (``explain.went_over``): the press tipped the disc and pawns fell
        (a tip its tests missed). ``tipped`` (late), the falls (not confident: the tip was not
        seen, and the survivors may have slid) and ``settled``, not ``removed``."""
        falls = self.loss_events(rd, t, lost, moment, False, seg)
        for ev in falls:
            ev["confident"] = False
        self.went_over = t  # the tip episode is over (the judge tells the pipeline)
        return [{"event": "tipped", "t_ms": t, "late": True}, *falls, {"event": "settled", "t_ms": t}]

    def _finger_left(self, rd: Readings, t: int, lost: float, moment: tuple[float, float] | None,
                     seg: SegmentFacts) -> bool:
        """Was a loss with no tip and no pinch the finger of the last placement leaving, not a pawn?
        A light finger resting steadily on a pawn just set down makes a level that was read as
        that pawn; when it lets go, the load goes down by the finger's force, from where that
        pawn stands, and what stays is a pawn's weight. No pawn falls then (a pawn standing
        there leaves a level disc only over the rim, and takes its whole weight): the pawn is
        re-read as what stayed (``placed`` cannot be retracted; the falls read later count the
        pawn that is really there), and no ``fell`` is reported."""
        if not self.positional or moment is None or not rd.pawns or lost <= 0.0:
            return False
        if t - seg.placed_t > FINGER_LEAVES_MS:
            return False
        last = rd.pawns[-1]
        if last.x_mm is None or last.y_mm is None:
            return False
        rest = last.mass_g - lost
        lightest, heaviest = min(self.masses.values()), max(self.masses.values())
        if not 0.6 * lightest <= rest <= 1.3 * heaviest:
            return False  # the whole pawn went (a slide-off over the rim), or more than it
        # where the loss left: its moment over its mass, within the noise of a light loss
        sigma_r = rd.sigma_m * math.sqrt(2.0 / self.fall_n) / lost
        off = math.hypot(moment[0] / lost - last.x_mm, moment[1] / lost - last.y_mm)
        if off > max(FINGER_AT_PAWN_MM, 3.0 * sigma_r):
            return False
        size = min(self.masses, key=lambda k: abs(math.log(rest / self.masses[k])))
        rd.pawns[-1] = Pawn(size, rest, last.x_mm, last.y_mm)
        return True
