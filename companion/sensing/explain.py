"""Never deaf: a still level that no pawn event explains is explained within a second.

Before, such a level made the segment wait: a loss of several pawns with no tip seen was held
as a hand lifting the disc, and the pipeline waited (8-12 s, or for ever while play went on) for
the level to come back, deaf to every placement meanwhile. Now, once the level has been still for
``DECIDE_MS``, the two explanations are weighed by where the change acted:

* **pawns gone** (a tip missed at its start, read again once its losses are in): pawns leave
  from where they stood, so the moment lost over the mass lost lies at the centre of mass of a
  subset of the tracked pawns; when some subset fits both the mass and the moment, the change is
  reported as ``tipped``, ``fell`` (not confident: the tip was not seen) and ``settled``;
* **held** (a hand lifting the disc or resting on it): anything else. The level is taken as the
  new still level at once (the pipeline tracks placements on it), and the change is kept open
  (``Held``). When the level comes back by the same change, it was a hand: ``hand`` (with the
  time since the change began) and ``settled``. A loss held open for ``HELD_EXPIRY_MS`` that
  never came back is reported as the pawns its mass fits (``fell``, not confident).

And a small still level that fits no pawn well, once it has lasted (``unexplained``): the
nearest pawn, not confident, or a hand, or nothing.

Functions of the segment judge and the pipeline's signals, like ``massonly.py``: they return what
they decided (``Explained``: the events, the change kept open; the judge applies it and ends the
segment at the level).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from companion.sensing.falls import PAWN_MASS_ERR_G, SIZES, Decomposition, decompose

if TYPE_CHECKING:
    from companion.sensing.readings import Readings
    from companion.sensing.segments import SegmentJudge

DECIDE_MS = 600.0  # a still level is explained this long after it was reached (< 1 s: never deaf)
HELD_EXPIRY_MS = 8000.0  # a loss held open this long without coming back is read as pawns gone
MOMENT_TOL_GMM = 150.0  # the lost pawns' moment must match the moment lost within this ...
MOMENT_TOL_FRAC = 0.06  # ... or this share of the lost mass at the rim (pawn positions err by mm)
# ... or three sigmas of the lost pawns' own position errors: a position read at a placement errs by
# about this much (sigma; on the tuned families p50 6 mm, p90 ~45 mm: a rim placement read inwards)
POS_ERR_MM = 15.0
RETURN_FRAC = 0.05  # a held change has come back when the level is back within this share of it
RETURN_SLIDE_MM = 10.0  # ... and moment within this many mm of the hand's force (fingers slide)
PINCH_MAX_MS = 1200.0  # a press held still this long that comes back a pawn short was a pinch
# an excess moment this many tip thresholds: the disc went over (a tip). On the tuned families a tip
# its tests missed moved 11-80 thresholds; knocks, pinches and presses of a level disc up to ~5 (a
# faulty cell, whose events no longer count, up to 14)
WENT_OVER_THRESHOLDS = 10.0


@dataclass(frozen=True)
class Held:
    """A still change that no pawn event explains, taken as the new level but kept open."""

    t0: int  # when the change began
    f: float  # the change of force (g) and moments (g*mm) from the level before it
    x: float
    y: float

    def expired(self, t: int) -> bool:
        """Is it a loss held open for ``HELD_EXPIRY_MS`` by ``t`` that never came back (read then
        as pawns gone, ``expired_loss``)? An open rise (a hand resting) stays."""
        return self.f < 0.0 and t - self.t0 >= HELD_EXPIRY_MS


class Explained(NamedTuple):
    """What an explanation of a still level decided, for the judge to apply: the events, the
    change kept open from now on (None: none), and whether a tip episode ended with them. The
    segment ends at that level."""

    events: list[dict]
    held: Held | None
    tip_over: bool = False


def missed_tip_reading(judge: SegmentJudge, rd: Readings, lost: float,
                       moment: tuple[float, float]) -> Decomposition | None:
    """The tracked pawns whose mass and moment a still loss is (the disc level again), or None."""
    pawns = [p for p in rd.pawns if p.x_mm is not None and p.y_mm is not None]
    if not judge.positional or not pawns:
        return None
    if lost > 1.1 * sum(p.mass_g for p in pawns) + judge.zero_tol_g:
        return None
    sigma = max(0.1, rd.sigma_f * math.sqrt(2.0 / judge.fall_n))
    tol_m = max(MOMENT_TOL_GMM, MOMENT_TOL_FRAC * judge.layout.radius_mm * lost,
                3.0 * rd.sigma_m * math.sqrt(2.0 / judge.level_n))
    dec = decompose(lost, moment, pawns, judge.masses, sigma_g=sigma, moment_tol_gmm=tol_m,
                    radius_mm=judge.layout.radius_mm, max_picks=judge.fallwatch.picks_budget(rd))
    judge.fallwatch.spend_picks(dec)
    if dec is None:  # within the subset's own position errors (sqrt of the sum of m^2 <= the mass lost)
        dec = decompose(lost, moment, pawns, judge.masses, sigma_g=sigma,
                        moment_tol_gmm=max(tol_m, 3.0 * POS_ERR_MM * lost), radius_mm=judge.layout.radius_mm,
                        max_picks=judge.fallwatch.picks_budget(rd))
        judge.fallwatch.spend_picks(dec)
    if dec is None or not dec.pawns:
        return None
    mass = sum(p.mass_g for p in dec.pawns)
    if abs(lost - mass) > 3.0 * math.sqrt(sigma ** 2 + len(dec.pawns) * PAWN_MASS_ERR_G ** 2):
        return None
    mx = sum(p.mass_g * p.x_mm for p in dec.pawns)  # type: ignore[operator]
    my = sum(p.mass_g * p.y_mm for p in dec.pawns)  # type: ignore[operator]
    tol_m = max(tol_m, 3.0 * POS_ERR_MM * math.sqrt(sum(p.mass_g ** 2 for p in dec.pawns)))
    if math.hypot(moment[0] - mx, moment[1] - my) > tol_m:
        return None
    return dec


def went_over(positional: bool, seg_exc_max: float, tip_threshold: float) -> bool:
    """Did the disc's own mass move out during the segment (no tip seen): an excess moment
    (``seg_exc_max``, g*mm) of ``WENT_OVER_THRESHOLDS`` tip thresholds, more than anything
    pressing on a level disc gives? Never known without positions."""
    return positional and seg_exc_max >= WENT_OVER_THRESHOLDS * tip_threshold


def went_over_reading(judge: SegmentJudge, rd: Readings, lost: float) -> Decomposition | None:
    """The tracked pawns whose mass a still loss is, when the disc itself went over during the
    change (its excess moment, beyond anything pressing on the disc can give, reached
    ``WENT_OVER_THRESHOLDS`` tip thresholds: the disc's own mass moved out) -- or None. A hand
    lifting the disc moves no more moment than its force at the rim, so such a loss is no hand;
    the moment lost says nothing here, since the survivors slid downhill as the disc lay over."""
    if not went_over(judge.positional, judge.seg_exc_max, rd.tip_threshold):
        return None
    if lost > 1.1 * sum(p.mass_g for p in rd.pawns) + judge.zero_tol_g:
        return None
    dec = judge.fallwatch.read_loss(rd, lost, None, judge.fall_facts(None))
    return dec if dec is not None and dec.pawns else None


def explain_loss(judge: SegmentJudge, rd: Readings, t: int,
                 change: tuple[float, float, float]) -> Explained | None:
    """A still loss no pawn reading explained: a tip missed at its start (its pawns fit the mass
    and the moment lost), else a hand holding the disc (``hold``) when it is a hand's force;
    None for a lighter loss that no missed tip explains (the caller reads it as one pawn)."""
    lost, moment = -change[0], (-change[1], -change[2])
    dec = missed_tip_reading(judge, rd, lost, moment)
    if dec is None:
        dec = went_over_reading(judge, rd, lost)
    if dec is None:
        return hold(judge.held, judge.t0, change) if lost >= judge.s.hand_min_g else None
    for p in dec.pawns:
        rd.pawns.remove(p)
    events = [{"event": "tipped", "t_ms": t, "late": True},
              {"event": "fell", "t_ms": t, "pawns": dec.counts, "mass_g": round(lost, 2), "confident": False},
              {"event": "settled", "t_ms": t}]
    return Explained(events, judge.held, True)


def hold(held: Held | None, t0: int, change: tuple[float, float, float]) -> Explained:
    """Take an unexplained still level (a ``change`` in a segment from ``t0``) as the new level
    at once, keeping the change open; on top of an open one (``held``), the sum, from its start."""
    if held is not None:
        return Explained([], Held(held.t0, held.f + change[0], held.x + change[1], held.y + change[2]))
    return Explained([], Held(t0, *change))


def held_came_back(judge: SegmentJudge, rd: Readings, t: int, t_still: int,
                   change: tuple[float, float, float]) -> Explained | None:
    """The level came back by the open change (a hand let go): ``hand`` and ``settled``. A lift
    that comes back short by pawns is the hand, then those pawns' ``fell`` (not confident)."""
    h = judge.held
    if h is None or h.f * change[0] >= 0.0:
        return None
    rest = (h.f + change[0], h.x + change[1], h.y + change[2])
    tol_f = max(judge.zero_tol_g, RETURN_FRAC * abs(h.f))
    events: list[dict] = []
    duration = max(0, t_still - h.t0)
    if abs(rest[0]) > tol_f:
        if abs(rest[0]) >= abs(h.f) - tol_f or judge.placing.match_size(change[0]) is not None:
            return None  # further away, or a pawn set down meanwhile: another change
        if rest[0] > 0.0:
            # a resting hand eased but still presses: still held (not pawns lost from the level
            # the hand's force was taken as)
            return hold(h, judge.t0, change)
        # a press that let go a pawn lighter: a pinch lifted it off (pinches last up to about a
        # second); after a lift, or a longer press, a hand held the disc and pawns went
        pinch = h.f > 0.0 and duration <= PINCH_MAX_MS
        moment = (-rest[1], -rest[2]) if judge.positional else None
        events = judge.fallwatch.loss_events(rd, t, -rest[0], moment, pinch, judge.fall_facts(t))
        if pinch and events and events[0]["event"] == "removed":
            return Explained(events, None)
        for ev in events:
            ev["confident"] = False
    elif judge.positional and math.hypot(rest[1], rest[2]) > max(MOMENT_TOL_GMM, RETURN_SLIDE_MM * abs(h.f)):
        return None  # back by the force, but not where the hand acted: another change
    return Explained([{"event": "hand", "t_ms": t, "duration_ms": int(duration)}, *events,
                      {"event": "settled", "t_ms": t}], None)


def expired_loss(judge: SegmentJudge, rd: Readings, t: int, h: Held) -> list[dict]:
    """An open loss that never came back within ``HELD_EXPIRY_MS`` (``Held.expired``; the judge
    forgets it): the pawns its mass fits (``fell``, not confident), or nothing when no pawns fit."""
    lost = -h.f
    if lost > 1.1 * sum(p.mass_g for p in rd.pawns) + judge.zero_tol_g:
        return []
    dec = judge.fallwatch.read_loss(rd, lost, None, judge.fall_facts(None))
    if dec is None or not dec.pawns:
        return []
    for p in dec.pawns:
        rd.pawns.remove(p)
    return [{"event": "fell", "t_ms": t, "pawns": {k: dec.counts.get(k, 0) for k in SIZES},
             "mass_g": round(lost, 2), "confident": False}]


def unexplained(judge: SegmentJudge, rd: Readings, t: int, level: tuple[float, float, float]) -> list[dict]:
    """A new still level that fits no pawn well. Pawn-sized and after a press: the nearest
    pawn, marked not confident (the table is asked to confirm); otherwise a hand or nothing."""
    base = judge.drifted(t)
    d_f = level[0] - base[0]
    lo, hi = 0.6 * min(judge.masses.values()), 1.3 * max(judge.masses.values())
    if lo <= abs(d_f) <= hi:
        size = min(judge.masses, key=lambda k: abs(math.log(abs(d_f) / judge.masses[k])))
        if d_f > 0 and judge.pressing.press_w > 0:
            d_x, d_y = level[1] - base[1], level[2] - base[2]
            px, py = judge.pawn_position(rd, d_f, d_x, d_y, judge.still_n)
            ev = judge.placed_event(rd, t, size, d_f, px, py)
            ev["confident"] = False
            return [ev]
        if d_f < 0:
            return [{"event": "fell", "t_ms": t, "pawns": {k: int(k == size) for k in SIZES},
                     "mass_g": round(-d_f, 2), "confident": False}]
    return judge.hands.events(t)
