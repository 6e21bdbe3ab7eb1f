"""The judge's composed stages, each from explicit inputs (no pipeline, no judge).

``Placements`` (size, position, ``placed``, a disc lying tilted), ``TippingPawn`` (the pawn that
tipped the disc), ``LossReader`` (losses read as pawns, memoised, within a budget per sample),
``Doubts`` (what a fall reading's evidence may lack), ``StillWindow`` (is the load still) and
``BeforeTip`` (what stood on the disc just before a tip fired).
"""

from __future__ import annotations

import math

import pytest

from companion.sensing.beforetip import BeforeTip
from companion.sensing.decomposing import PICKS_PER_FEED, TILTED_ERR_G, LossReader
from companion.sensing.doubts import DOUBT_HOLDS, Doubts
from companion.sensing.falls import Decomposition, Pawn
from companion.sensing.fallwatch import FallWatch
from companion.sensing.massonly import MissedTip, Press, tip_after_release, tip_of
from companion.sensing.placing import PawnLocator, Placements
from companion.sensing.pressing import PressTracker
from companion.sensing.readings import Readings, SignalHistory
from companion.sensing.segfacts import SegmentFacts
from companion.sensing.settings import SensingSettings
from companion.sensing.stillwindow import StillWindow
from companion.sensing.tipping import TippingPawn

from .conftest import MASSES, Table, polar


def _placements(cells: int = 4, positional: bool = True) -> Placements:
    header = Table(cells=cells).header
    return Placements(SensingSettings(), dict(MASSES), header.layout, positional,
                      PawnLocator(header.cells, header.layout.radius_mm))


# ---------------------------------------------------------------- Placements
def test_a_step_fits_the_size_it_weighs_and_an_odd_step_only_the_nearest() -> None:
    pl = _placements()
    assert pl.match_size(2.2) == "small" and pl.match_size(4.5) == "medium" and pl.match_size(8.0) == "large"
    assert pl.match_size(3.4) is None  # between a small and a medium: no size ...
    assert pl.near_size(3.4) in ("small", "medium")  # ... but reported as the nearest
    assert pl.near_size(0.5) is None and pl.near_size(20.0) is None  # no pawn makes such a step


def test_a_level_beyond_the_rim_far_from_the_press_is_a_disc_lying_tilted() -> None:
    pl = _placements()
    r = pl.layout.radius_mm
    press = polar(100, 0)
    # 2.1 g standing where it was pressed: a pawn
    assert not pl.lies_tilted(press, 2.1, 2.1 * press[0], 2.1 * press[1], 500.0)
    # the moment puts it 3 radii out, far from the press: the disc lies tilted
    assert pl.lies_tilted(press, 2.1, 2.1 * 3 * r, 0.0, 500.0)
    # no press (None), or mass only: never
    assert not pl.lies_tilted(None, 2.1, 2.1 * 3 * r, 0.0, 500.0)
    assert not _placements(positional=False).lies_tilted(press, 2.1, 2.1 * 3 * r, 0.0, 500.0)


def test_a_level_the_force_came_down_into_began_as_a_finger_let_go() -> None:
    level = [2.1] * 10
    assert Placements.released_into([0.0] * 5 + [20.0, 22.0] + level, 2.1, 10, 0.5, 0.05, 12.5)
    # the force rose into the level: a light finger may rest on the pawn
    assert not Placements.released_into([0.0] * 5 + [1.0] + level, 2.1, 10, 0.5, 0.05, 12.5)
    assert not Placements.released_into(None, 2.1, 10, 0.5, 0.05, 12.5)


def test_the_placed_event_pulls_a_pawn_beyond_the_edge_back_onto_the_disc() -> None:
    pl = _placements()
    r = pl.layout.radius_mm
    ev, pawn = pl.placed_event(1000, "small", 2.1, r + 20.0, 0.0)
    assert ev["event"] == "placed" and ev["t_ms"] == 1000 and ev["size"] == "small"
    assert ev["x_mm"] < r and pawn.x_mm is not None and pawn.x_mm < r and pawn.size == "small"
    ev, pawn = _placements(positional=False).placed_event(5, "large", 7.9, 10.0, 10.0)
    assert ev["x_mm"] is None and pawn == Pawn("large", 7.9, None, None)


def test_a_pawn_set_down_is_placed_where_level_and_press_agree() -> None:
    pl = _placements()
    x, y = polar(90, 40)
    press = [(f, f * x, f * y) for f in (10.0, 22.1, 22.1, 12.0)]
    trail = [(0.0, 0.0, 0.0), *press] + [(2.1, 2.1 * x, 2.1 * y)] * 8
    px, py = pl.position(trail, 2.1, 2.1 * x, 2.1 * y, 8, 0.05, 10.0)
    assert math.hypot(px - x, py - y) < 2.0


# ---------------------------------------------------------------- TippingPawn
def test_the_tipping_pawn_is_estimated_after_the_press_and_weighed_on_the_quiet_level() -> None:
    pl = _placements()
    tp = TippingPawn(pl, 12.5)
    x, y = polar(120, 0)
    tp.at_tip((x, y), [4.7, 4.6, 4.5, 4.6, 4.6, 4.6], None, (0.0, 0.0, 0.0))
    assert tp.placed and tp.est == pytest.approx(4.6) and tp.at == (x, y)
    tp.at_tip((0.0, 0.0), [9.0] * 6, None, (0.0, 0.0, 0.0))  # estimated once per segment
    assert tp.est == pytest.approx(4.6)
    size, f, _px, _py, confident = tp.reading((4.55, 0.0, 0.0), (0.0, 0.0, 0.0), [], 0.05, 10.0)
    assert size == "medium" and f == pytest.approx(4.55) and confident
    assert tp.est is None  # used up
    tp.reset()
    assert not tp.placed and tp.est is None


def test_without_a_press_the_level_taken_for_a_pawn_is_the_tipping_pawn() -> None:
    tp = TippingPawn(_placements(), 12.5)
    tp.at_tip(None, [], (12.1, 200.0, 0.0), (10.0, 0.0, 0.0))
    assert tp.placed and tp.est == pytest.approx(2.1) and tp.at == pytest.approx((200.0 / 2.1, 0.0))
    tp = TippingPawn(_placements(), 12.5)
    tp.at_tip(None, [], None, (10.0, 0.0, 0.0))  # nothing set down
    assert not tp.placed


def test_the_tipping_pawn_waits_for_a_quiet_tilted_disc_then_goes_without() -> None:
    w = ([5.0, 5.1, 5.0], [0.0] * 3, [0.0] * 3, [1100, 1112, 1125])
    assert TippingPawn.quiet(w, 1125, 1000, 0.5) == (True, pytest.approx((5.0333, 0.0, 0.0), abs=1e-3))
    assert TippingPawn.quiet(([5.0, 7.0, 5.0], *w[1:]), 1125, 1000, 0.5) == (False, None)
    assert TippingPawn.quiet(w, 1125, 1100, 0.5) == (False, None)  # the window reaches back to the tip
    assert TippingPawn.quiet(None, 3000, 1000, 0.5) == (True, None)  # waited too long


def test_a_mass_no_pawn_has_is_no_tipping_pawn() -> None:
    tp = TippingPawn(_placements(), 12.5)
    tp.at_tip((0.0, 0.0), [30.0] * 6, None, (0.0, 0.0, 0.0))
    assert tp.reading(None, (0.0, 0.0, 0.0), [], 0.05, 10.0) is None


# ---------------------------------------------------------------- LossReader
def _pawns() -> list[Pawn]:
    return [Pawn("small", 2.1, *polar(120, 0)), Pawn("medium", 4.6, *polar(100, 90)),
            Pawn("large", 7.9, *polar(60, 200))]


def test_a_loss_is_read_as_the_pawns_its_mass_fits_and_remembered() -> None:
    lr = LossReader(dict(MASSES), 150.0, fall_n=20, step_n=5)
    pawns = _pawns()
    dec = lr.read(6.7, None, pawns, 0.05, False, None, 100)
    assert dec is not None and dec.counts == {"small": 1, "medium": 1, "large": 0}
    assert lr.read(6.7, None, pawns, 0.05, False, None, 100) is dec  # memoised
    lr.new_segment()
    assert lr.read(6.7, None, pawns, 0.05, False, None, 112) is not dec


def test_a_tilted_level_errs_like_a_plateau_and_steps_by_their_own_length() -> None:
    lr = LossReader(dict(MASSES), 150.0, fall_n=4, step_n=2)
    level = lr.sigma(0.2, False, False)
    assert level == pytest.approx(0.2 * math.sqrt(2.0 / 4))  # two levels of 4 readings
    assert lr.sigma(0.2, False, True) == pytest.approx(math.hypot(level, TILTED_ERR_G))
    assert lr.sigma(0.2, True, True) == pytest.approx(0.2)  # plateaus of 2 readings; no tilt term
    assert lr.sigma(0.01, False, False) == 0.1  # never below 0.1 g


def test_the_budget_of_picks_is_per_sample() -> None:
    lr = LossReader(dict(MASSES), 150.0, fall_n=20, step_n=5)
    assert lr.budget(10) == PICKS_PER_FEED
    lr.spend(Decomposition({}, (), True, 0.0, picks=PICKS_PER_FEED - 5))
    assert lr.budget(10) == 5
    lr.spend(Decomposition({}, (), True, 0.0, picks=50))
    assert lr.budget(10) == 0  # spent: the next readings of this sample get their likeliest pick
    assert lr.budget(22) == PICKS_PER_FEED  # a new sample


# ---------------------------------------------------------------- Doubts
def _doubts() -> Doubts:
    return Doubts(SensingSettings(), dict(MASSES), True, 150.0)


def test_a_fall_inside_a_tip_at_a_slow_rate_doubts_its_counts() -> None:
    dec = Decomposition({"small": 1}, (Pawn("small", 2.1, 140.0, 0.0),), True, 0.0, posterior=0.9)
    out = _doubts().of(dec, False, False, tipped=True, watch_dips=False, unsure_falls=True, landings=1)
    assert out == {k: DOUBT_HOLDS[k] for k in ("slow", "unweighed", "landings")}
    assert _doubts().of(dec, False, False, tipped=True, watch_dips=True, unsure_falls=False, landings=0) == {}


def test_a_level_disc_loses_a_pawn_by_itself_only_over_its_rim() -> None:
    rim = Decomposition({"small": 1}, (Pawn("small", 2.1, 140.0, 0.0),), True, 0.0)
    inside = Decomposition({"small": 1}, (Pawn("small", 2.1, 40.0, 0.0),), True, 0.0)
    kw = {"tipped": False, "watch_dips": True, "unsure_falls": False, "landings": 0}
    assert _doubts().of(rim, False, False, **kw) == {}
    assert _doubts().of(inside, False, False, **kw) == {"inside": DOUBT_HOLDS["inside"]}
    assert _doubts().of(inside, True, False, **kw) == {}  # a pinch lifted it
    assert _doubts().of(inside, False, True, **kw) == {"unseen": DOUBT_HOLDS["unseen"]}


def test_a_hand_on_the_table_during_a_tip_doubts_the_losses_read_after_it() -> None:
    dec = Decomposition({"small": 1}, (Pawn("small", 2.1, 140.0, 0.0),), True, 0.0)
    kw = {"watch_dips": True, "unsure_falls": False, "landings": 0}
    assert _doubts().of(dec, False, False, tipped=True, touched=frozenset({1}), **kw) == \
        {"pushed": DOUBT_HOLDS["pushed"]}
    assert _doubts().of(dec, False, False, tipped=True, touched=frozenset({-1, 1}), **kw) == \
        {"pushed": DOUBT_HOLDS["pushed"], "lifted": DOUBT_HOLDS["lifted"]}
    assert _doubts().of(dec, False, False, tipped=False, touched=frozenset({1}), **kw) == {}  # no tip


def test_a_pawn_weighed_as_no_size_doubts_the_reading() -> None:
    odd = Decomposition({"small": 1}, (Pawn("small", 3.2, 140.0, 0.0),), True, 0.0)
    out = _doubts().of(odd, False, False, tipped=True, watch_dips=True, unsure_falls=False, landings=0)
    assert out == {"size": DOUBT_HOLDS["size"]}


# ---------------------------------------------------------------- StillWindow
class _History(SignalHistory):
    """The signal history over a list of readings (force, moments; one per ms), counting its
    reads of the moments."""

    def __init__(self, rows: list[tuple[float, float, float]]) -> None:
        super().__init__(64)
        self.moment_reads = 0
        self.count = 0
        self.add(rows)

    def add(self, rows: list[tuple[float, float, float]]) -> None:
        pf, px, py, pt = self.push
        for f, x, y in rows:
            pf(f)
            px(x)
            py(y)
            pt(self.count)
            self.count += 1

    def window(self, n: int) -> tuple[list[float], list[float], list[float], list[int]] | None:
        self.moment_reads += 1
        return super().window(n)


def test_a_window_is_still_when_force_and_moments_are() -> None:
    sw = StillWindow(SensingSettings(), True)
    h = _History([(2.0, 100.0, 0.0)] * 10)
    w = sw.window(h, h.count, 10.0, 8, 0.5)
    assert w is not None and len(w[0]) == 8
    moved = _History([(2.0, 100.0, 0.0)] * 5 + [(2.0, 900.0, 0.0)] * 5)
    assert sw.window(moved, moved.count, 10.0, 8, 0.5) is None
    assert StillWindow(SensingSettings(), False).window(moved, moved.count, 10.0, 8, 0.5) is not None


def test_a_reading_that_broke_stillness_is_not_tested_again_while_in_the_window() -> None:
    sw = StillWindow(SensingSettings(), True)
    h = _History([(0.0, 0.0, 0.0)] * 5 + [(9.0, 0.0, 0.0)] + [(2.0, 0.0, 0.0)] * 4)
    assert sw.window(h, h.count, 10.0, 8, 0.5) is None
    assert sw.unstill is not None and sw.unstill[0] == 6  # the 9 g reading (sample 6) and 2 g after it
    h.add([(2.0, 0.0, 0.0)])
    assert sw.window(h, h.count, 10.0, 8, 0.5) is None and h.moment_reads == 0
    sw.reset()
    assert sw.unstill is None


# ---------------------------------------------------------------- BeforeTip
def _rows(fs: list[float], x: float = 0.0, y: float = 0.0, t0: int = 0, dt: int = 12):
    return (fs, [f * x for f in fs], [f * y for f in fs], [t0 + i * dt for i in range(len(fs))])


def test_the_load_before_a_tip_pressed_where_its_moment_says_and_not_beyond_the_rim() -> None:
    bt = BeforeTip(dict(MASSES), 150.0, 12.5)
    x, y = polar(100, 30)
    w = _rows([0.0, 20.0, 22.0, 22.0, 22.0, 90.0, 90.0, 90.0], x, y)  # the last readings: the tip itself
    px, py = bt.load_point(w, (0.0, 0.0, 0.0))
    assert math.hypot(px - x, py - y) < 1e-6
    far = bt.load_point(_rows([0.0, 20.0, 20.0, 20.0, 20.0, 0.0, 0.0, 0.0], 400.0, 0.0), (0.0, 0.0, 0.0))
    assert far == pytest.approx((145.0, 0.0))  # pulled back inside the rim
    assert bt.load_point(None, (0.0, 0.0, 0.0)) == (0.0, 0.0)


def test_a_pawn_that_stood_steady_before_the_tip_is_weighed_a_finger_is_not() -> None:
    bt = BeforeTip(dict(MASSES), 150.0, 12.5)
    steady = _rows([0.0] * 10 + [4.6] * 20 + [9.0] * 4)
    rose, pawn = bt.rose(steady, 0.0, -1, 0.05)
    assert rose and pawn == pytest.approx(4.6)
    trembling = _rows([0.0] * 10 + [4.0, 6.0, 3.5, 7.0, 4.2, 6.5] * 3 + [9.0] * 4)
    rose, pawn = bt.rose(trembling, 0.0, -1, 0.05)
    assert rose and pawn is None  # a load stood (a finger pressing), but none steady like a pawn
    rose, pawn = bt.rose(steady, 0.0, 10_000, 0.05)  # all on an older base
    assert not rose and pawn is None


# ---------------------------------------------------------------- FallWatch
def _facts(**kw: object) -> SegmentFacts:
    """The segment a ``FallWatch`` is told of (``SegmentFacts``): a disc tipped at 1 s, righted."""
    facts = SegmentFacts(tip_t=1000, base=(20.0, 0.0, 1500.0), drifted=(20.0, 0.0, 1500.0), righted=True,
                         exc_max=5000.0, seg_exc_max=0.0, placed_t=-10**9, press_at_tip=False,
                         unsure_falls=False, touched=frozenset(), tipping_est=None, tipping_placed=False)
    return facts._replace(**kw)


class _QuietHistory:
    """The signal history of a quiet tilted disc at ``level`` from 1.5 s on."""

    def __init__(self, level: float) -> None:
        self.level = level
        self.n = 400

    def window(self, n: int) -> tuple[list[float], list[float], list[float], list[int]]:
        return [self.level] * n, [0.0] * n, [0.0] * n, [1500 + 12 * i for i in range(n)]

    def window_f(self, n: int) -> list[float]:
        return [self.level] * n


def _readings(level: float, pawns: list[Pawn]) -> Readings:
    """What the judge reads of the pipeline: a quiet window at ``level``, the tracked pawns."""
    return Readings(_QuietHistory(level), 0.05, 10.0, 500.0, (0.0, 0.0, 0.0), pawns, [])  # type: ignore[arg-type]


def _watch() -> FallWatch:
    header = Table().header
    return FallWatch(SensingSettings(), dict(MASSES), header.layout, True, 12.5, 20, 5,
                     0.45 * MASSES["small"])


def test_a_quiet_level_of_the_tilted_disc_a_pawn_lighter_is_that_pawn_fallen() -> None:
    falls = _watch()
    pawns = _pawns()
    rd = _readings(20.0 - 4.6, list(pawns))
    level = falls.quiet_level(rd)
    assert level == pytest.approx(15.4)  # (the judge makes it the hand runs' reference)
    events = falls.check_falls(rd, 1800, level, _facts())
    assert events is not None and [e["event"] for e in events] == ["fell"]
    assert events[0]["pawns"] == {"small": 0, "medium": 1, "large": 0}
    assert falls.lost_reported == pytest.approx(4.6) and falls.last_loss_t == 1800
    assert pawns[1] not in rd.pawns  # the pawn list is updated
    assert falls.check_falls(rd, 1812, level, _facts()) is None  # read already


def test_the_falls_of_a_tip_are_unsure_when_the_judge_says_so() -> None:
    """What the falls' readings know of the segment is what the facts say: a pawn possibly gone
    unweighed (``unsure_falls``) and a hand on the table during the tip (``touched``) are doubts."""
    events = _watch().check_falls(_readings(20.0 - 4.6, _pawns()), 1800, 15.4,
                                  _facts(unsure_falls=True, touched=frozenset({1})))
    assert events is not None and events[0]["confident"] is False
    assert {"pushed"} <= set(events[0]["doubts"])


def test_a_new_segment_forgets_the_falls_of_the_last() -> None:
    falls = _watch()
    falls.check_falls(_readings(20.0 - 4.6, _pawns()), 1800, 15.4, _facts())
    falls.reset()
    assert falls.lost_reported == 0.0 and falls.on_base == [] and falls.tip_moment is None
    assert falls.last_loss_t == -1 and falls.losses.memo == {}


# ---------------------------------------------------------------- massonly: the weight that left
def test_a_pawn_set_down_whose_weight_then_left_with_more_is_a_missed_tip() -> None:
    pl = _placements()
    x, y = polar(120, 0)
    press = Press((x, y), 1, [4.6] * 20, 5000.0)
    tip = tip_after_release(press, pl, 12.5, -8.0, 1.3 * MASSES["large"])  # 4.6 + 8 g gone
    assert tip == MissedTip(pytest.approx(12.6), ("medium", 4.6, x, y))
    assert tip_after_release(press, pl, 12.5, -2.0, 1.3 * MASSES["large"]) is None  # too little gone
    twice = Press((x, y), 2, [4.6] * 20, 5000.0)
    assert tip_after_release(twice, pl, 12.5, -8.0, 1.3 * MASSES["large"]) is None  # a second press: a pinch
    brief = Press((x, y), 1, [4.6] * 5 + [0.0] * 15, 5000.0)
    assert tip_after_release(brief, pl, 12.5, -8.0, 1.3 * MASSES["large"]) is None  # lifted at once


def test_on_one_cell_a_loss_soon_after_a_placement_is_a_tip() -> None:
    pl = _placements(cells=1, positional=False)
    assert tip_of(Press(None, 0, [], 800.0), pl, 12.5, -4.6) == MissedTip(4.6, None)
    assert tip_of(Press(None, 0, [], 4000.0), pl, 12.5, -4.6) is None  # long after: no reading
    assert tip_of(Press(None, 0, [], 800.0), _placements(), 12.5, -4.6) is None  # tables that locate loads


# ---------------------------------------------------------------- PressTracker
def _tracker() -> PressTracker:
    return PressTracker(SensingSettings(), 11.85, 12.5, 150.0)


def test_the_strongest_finger_press_is_kept_and_the_pawn_read_after_it() -> None:
    pr = _tracker()
    base = (10.0, 0.0, 0.0)
    x, y = polar(90, 0)
    assert pr.point() is None
    for f in [0.0] * 3 + [20.0] * 8 + [2.1] * 5:  # a 100 ms press, then the pawn alone
        kept = pr.sample(base[0] + f, f * x, f * y, base)
    assert kept and pr.presses == 1 and pr.point() == pytest.approx((x, y))
    assert pr.post_press == pytest.approx([2.1] * 5) and len(pr.trail) == 16
    assert pr.cur_ep is None


def test_a_short_pulse_at_the_rim_is_a_strike_not_a_press_and_presses_apart_count_twice() -> None:
    pr = _tracker()
    base = (0.0, 0.0, 0.0)
    rim = 150.0
    for f in [0.0, 30.0, 0.0, 0.0]:  # one reading at the rim: a strike
        pr.sample(f, f * rim, 0.0, base)
    assert pr.presses == 0 and pr.point() is None
    for f in [20.0] * 8 + [2.1] * 30 + [20.0] * 8 + [4.2] * 3:  # two presses 375 ms apart
        pr.sample(f, f * 50.0, 0.0, base)
    assert pr.presses == 2
    pr.reset([(1.0, 0.0, 0.0)])
    assert pr.presses == 0 and pr.trail == [(1.0, 0.0, 0.0)] and pr.post_press == []


def test_a_pick_up_just_inside_the_edge_that_no_disc_pawn_explains_is_off_the_base_plate() -> None:
    """A light pawn lying on the base plate just outside the rim is picked up; its noisy place
    reads 1 mm inside the disc's edge. No small pawn stands anywhere near there on the disc (the
    only one is on the far side), so it is that pawn lifted off the base plate: not a ``removed``
    of the far pawn (the no-fall helper's case on the simulated table)."""
    falls = _watch()
    far, on_base = Pawn("small", 2.1, *polar(100, 180)), Pawn("small", 2.1, *polar(160, 0))
    rd = Readings(_QuietHistory(10.0), 0.05, 10.0, 500.0, (0.0, 0.0, 0.0), [far], [on_base])  # type: ignore[arg-type]
    x, y = polar(149.0, 0)
    assert falls.base_pickup(rd, 2.1, (2.1 * x, 2.1 * y)) == (on_base,)
    # ... but where a small pawn stands on the disc at that place, it was lifted off the disc
    near = Pawn("small", 2.1, *polar(140, 5))
    rd = Readings(_QuietHistory(10.0), 0.05, 10.0, 500.0, (0.0, 0.0, 0.0), [far, near], [on_base])  # type: ignore[arg-type]
    assert falls.base_pickup(rd, 2.1, (2.1 * x, 2.1 * y)) is None
