"""Judging a tip episode once the load is still: the falls, the disc level again, ``settled``.

``TipEpisode.judge`` is called by ``SegmentJudge.check`` every time the load of a tipped segment
is still: it reports the falls not read yet as the load goes still (the disc may still lie
tilted), and ``settled`` once the disc has righted itself, was set level by a hand, or has lain
still for a long time. Play going on (a pawn set down after the tip's losses) ends the episode, and a pawn
gained over the episode is reported. ``TipEpisode`` (the judge's ``episode`` stage) owns the
episode's own state; it reads the segment's bookkeeping from the judge (``segments.py``) and the
pipeline's signals, and the judge ends the segment when it returns the episode's events.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.sensing.readings import Readings
    from companion.sensing.segments import SegmentJudge

LEVEL_FRACTION = 0.4  # level again: the moment within this share of the tilt excursion ...
LEVEL_MIN_GMM = 150.0  # ... or this much of where the remaining pawns put it
SET_LEVEL_FROM_MS = 50.0  # sample spacing from which a level disc after lying over settles at once
SET_DOWN_FRACTION = 0.75  # a disc lying over moved back this far: set level (see ``TipEpisode.judge``)
LAY_OVER_THRESHOLDS = 2.0  # a disc seen lying over: its tilt excursion reached this many tip thresholds
TIP_DECIDE_MS = 3000.0  # a tip episode still open this long after the tip (or its last loss) ends


class TipEpisode:
    """The judge's ``episode`` stage: a tip episode judged once the load is still (``judge``).
    Its own state: the lightest still level since the tip and the largest force since then
    (``tip_floor``, ``floor_peak``: a pawn set down as play goes on), the largest offset from level
    of the disc lying still after the tip (``off_tilted``); and, from one segment to the next, a
    disc whose episode settled with it still lying over (``lying_over``: its moment off the level
    the pawns put it at; a hand setting it level later is part of the tip, ``set_level_later``)."""

    def __init__(self) -> None:
        self.lying_over: tuple[float, float] | None = None
        self.reset()

    def reset(self) -> None:
        """A new segment: no still level read since a tip yet."""
        self.tip_floor: tuple[float, float, float] | None = None
        self.floor_peak = -math.inf
        self.off_tilted = 0.0

    def observe(self, f: float) -> None:
        """Every sample of a segment: the largest force since the lightest still level."""
        if f > self.floor_peak:
            self.floor_peak = f

    def tipped(self) -> None:
        """A new tip: a disc left lying over before it is no longer set level by a hand later."""
        self.lying_over = None

    def judge(self, judge: SegmentJudge, rd: Readings, t: int,
              level: tuple[float, float, float]) -> list[dict] | None:
        """After a tip: report falls as the load goes still (the disc may still lie tilted), and
        ``settled`` once the disc has righted itself (or has lain still for a long time). When it
        returns events, the episode is over and the segment ends at ``level``."""
        resumed = self._play_resumed(judge, rd, level)
        if resumed is not None:
            level = self.tip_floor  # type: ignore[assignment]  # the episode is judged without the new pawn
        base = judge.drifted(t)
        d_f = level[0] - base[0]
        d_x, d_y = level[1] - base[1], level[2] - base[2]
        # level again when the moment is back where the pawns left on the disc put it (the pawns
        # reported fallen taken away from where they stood): the tilt excursion has gone
        off = math.hypot(d_x + judge.fallwatch.lost_moment[0], d_y + judge.fallwatch.lost_moment[1])
        new_loss = -d_f - judge.fallwatch.lost_reported
        level_now = off < max(LEVEL_MIN_GMM, LEVEL_FRACTION * judge.exc_max) + \
            judge.lever_mm * max(0.0, new_loss)
        level_ok = judge.righted and level_now
        held = t - (judge.still_since or t)
        events: list[dict] = []
        lay_over = judge.exc_max >= LAY_OVER_THRESHOLDS * rd.tip_threshold
        # at 10-20 Hz, a disc seen lying over that is level again and still was set level (by a
        # hand, whose lift hides the righting): no need to wait as for a disc that may still lie
        # tilted. (At higher rates the wait lets pawns still sliding on the disc fall and be seen.)
        set_level = level_now and lay_over and judge.dt >= SET_LEVEL_FROM_MS
        # a disc seen lying still over, that moved back most of the way and is still again, with
        # no mass lost: set level by a hand, with pawns lying on the base plate (still weighed,
        # their moment now just outside the disc's edge, so the level is not where the tracked
        # pawns put it)
        set_down = (lay_over and not level_now and new_loss <= judge.zero_tol_g
                    and judge.fallwatch.lost_reported == 0.0 and off < SET_DOWN_FRACTION * self.off_tilted)
        if not level_now:
            self.off_tilted = max(self.off_tilted, off)
        # never deaf: a disc still but not level is taken as settled once it has lain so for
        # ``tip_max_unlevel_ms``. Play going on (pawns set down, a vibrating floor) keeps breaking
        # that stillness, so the wait is also bounded from the tip or the last loss it saw -- even
        # for a disc seen lying over: a player's hand may right it later, but the pipeline does not
        # wait for it (on the living-room tables such waits swallowed the next tips and their falls)
        waited = t - max(judge.tip_t_ms, judge.fallwatch.last_loss_t)
        if not level_ok and not set_level and not set_down and held < judge.s.tip_max_unlevel_ms \
                and waited < TIP_DECIDE_MS and resumed is None:
            return None
        if new_loss > judge.zero_tol_g:
            moment = (-d_x, -d_y) if level_ok and judge.fallwatch.lost_reported == 0.0 else None
            loss = judge.fallwatch.loss_events(rd, t, new_loss, moment, False, judge.fall_facts(t))
            if loss and not level_ok:
                loss[-1]["confident"] = False
            events.extend(loss)
        # a disc seen lying over that is level again after a hand-like run was set level by the
        # player (a hand lifting its low rim, then letting go; its lift moves the load back in,
        # like a disc righting itself): part of the tip, not a hand on the disc. A hand on a
        # disc that was never seen lying over, or that stays tilted, is still a hand.
        hand = [] if lay_over and level_now else judge.hands.events(t)
        if (level_ok or (level_now and lay_over) or set_down) and not events and \
                judge.fallwatch.lost_reported == 0.0:
            # level again without losing any mass: impossible unless pawns slid off onto the
            # base plate (the pawns left on it must hold less than its limit). The same holds
            # when a hand set the disc level (its righting hidden by the hand; lifting a nearly
            # balanced disc takes grams) and let go, provided the disc was seen lying over:
            # otherwise the "tip" may have been a knock, and no fall is invented. And when a
            # hand set it level with pawns lying on the base plate (``set_down``)
            events.extend(judge.fallwatch.weighed_falls(rd, t, judge.fall_facts(t)))
        events.extend(_gained_pawn(judge, rd, t, d_f, d_x, d_y, new_loss, events))
        events.extend(hand[:1])  # a hand on the disc after the tip (its own settled follows below)
        events.append({"event": "settled", "t_ms": t})
        # the pawns seen landing on the base plate: still on the platform (weighed), not on the disc
        rd.base_pawns.extend(judge.fallwatch.hand_over_base())
        if resumed is not None:
            size, x, y, mass = resumed
            placed = judge.placed_event(rd, t, size, mass, x, y)
            placed["confident"] = False
            events.append(placed)
        if not level_now and lay_over and resumed is None:
            self.lying_over = (d_x + judge.fallwatch.lost_moment[0], d_y + judge.fallwatch.lost_moment[1])
        return events


    def set_level_later(self, change: tuple[float, float, float], tol_g: float) -> bool:
        """Did this still change (no mass gained or lost) bring a disc that was left lying over
        back to where its pawns put it? Then the hand that did it set the tipped disc level: part of
        the tip (already settled), not a hand on the disc."""
        off = self.lying_over
        if off is None or abs(change[0]) > tol_g:
            return False
        self.lying_over = None
        return math.hypot(change[1] + off[0], change[2] + off[1]) < \
            max(LEVEL_MIN_GMM, LEVEL_FRACTION * math.hypot(*off))


    def _play_resumed(self, judge: SegmentJudge, rd: Readings, level: tuple[float, float, float]
                      ) -> tuple[str, float, float, float] | None:
        """After a tip's losses, a still level heavier than the lightest one since by a pawn,
        after a finger's press: a pawn was set down, so the players have gone on (the disc
        righted itself unseen, or the losses were read wrong). The episode ends, judged on the
        lighter level, and the pawn is reported (size, x, y, mass; not confident: read from the
        levels alone). Falls never add weight, and a pawn landing on the base plate is weighed
        again before the disc is still."""
        floor = self.tip_floor
        if floor is None or level[0] < floor[0]:
            self.tip_floor = level
            self.floor_peak = level[0]
            return None
        if judge.fallwatch.lost_reported <= 0.0 or judge.tipping.est is not None:
            return None
        if self.floor_peak - level[0] < judge.press_min_g:
            return None  # no finger pressed a pawn down (a hand lifting the low rim lets go without)
        d_f = level[0] - floor[0]
        size = judge.placing.match_size(d_f) if d_f > judge.zero_tol_g else None
        if size is None:
            return None
        d_x, d_y = level[1] - floor[1], level[2] - floor[2]
        if not judge.positional:
            return size, 0.0, 0.0, d_f
        x, y, _ = judge.locator.level(d_f, d_x, d_y, judge.tip_settle_n, rd.sigma_f, rd.sigma_m,
                                     judge.masses[size])
        return size, x, y, d_f


def _gained_pawn(judge: SegmentJudge, rd: Readings, t: int, d_f: float, d_x: float, d_y: float,
                 new_loss: float, events: list[dict]) -> list[dict]:
    """A tip episode ends with one pawn more on the disc than before, none lost and none
    placed: the decision is revised -- a pawn was set down (pressed too lightly to count as a
    press, the disc wobbling as it settled: read as a tip), and its ``placed`` (not confident)
    is reported now instead of being lost."""
    if judge.tipping.placed or judge.fallwatch.lost_reported > 0.0 or events or \
            -new_loss <= judge.zero_tol_g:
        return []
    size = judge.placing.match_size(d_f)
    if size is None:
        return []
    px, py = judge.pawn_position(rd, d_f, d_x, d_y, judge.tip_settle_n)
    ev = judge.placed_event(rd, t, size, d_f, px, py)
    ev["confident"] = False
    return [ev]
