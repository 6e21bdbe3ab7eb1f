"""``HandRuns``, the judge's hand-like runs, from explicit inputs (force samples, the base force)."""

from __future__ import annotations

import pytest

from companion.sensing.handruns import RETURN_MS, HandRuns
from companion.sensing.settings import SensingSettings

DT = 12  # ms between samples (about 80 Hz)
BASE = 20.0  # the segment's base force (g)


def _feed(h: HandRuns, t: int, forces: list[float], base_f: float = BASE) -> int:
    """Feed ``forces`` from ``t`` on, one every ``DT``; returns the time after the last."""
    for f in forces:
        h.observe(t, f, base_f)
        t += DT
    return t


def test_a_push_that_comes_back_is_a_hand_with_its_duration() -> None:
    h = HandRuns(SensingSettings())
    h.reset(1000)
    t = _feed(h, 1000, [BASE] * 3 + [BASE + 15.0] * 40 + [BASE] * 5)  # 480 ms, 15 g
    assert h.peak_hi == pytest.approx(15.0) and h.peak_lo == 0.0
    assert h.longest_run == 40 * DT and h.first_dev == 1036 and h.last_dev == 1036 + 40 * DT
    assert h.events(t) == [{"event": "hand", "t_ms": t, "duration_ms": 40 * DT},
                           {"event": "settled", "t_ms": t}]
    assert h.touched == frozenset()  # no tip: nothing is ``touched``


def test_a_short_or_light_disturbance_is_a_bump_and_a_step_no_hand() -> None:
    h = HandRuns(SensingSettings())
    h.reset(0)
    t = _feed(h, 0, [BASE, BASE + 15.0, BASE - 15.0] * 8 + [BASE] * 3)  # a knock's ringing
    assert h.longest_run < 0.6 * SensingSettings().hand_min_ms and h.events(t) == []
    h.reset(t)
    t = _feed(h, t, [BASE + 8.0] * 50 + [BASE] * 3)  # long, but lighter than a hand
    assert h.longest_run == 50 * DT and h.events(t) == []
    h.reset(t)
    t = _feed(h, t, [BASE + 15.0] * 50)  # a step that never comes back (a load set down)
    assert h.first_dev is None and h.events(t) == []


def test_after_a_tip_runs_are_read_from_the_tilted_discs_quiet_level() -> None:
    h = HandRuns(SensingSettings())
    h.reset(0)
    _feed(h, 0, [BASE + 15.0] * 10)
    h.tipped()
    assert h.after_tip and h.run_sign == 0 and h.peak_hi == 0.0 and h.longest_run == 0
    _feed(h, 200, [BASE + 30.0] * 10)  # no quiet level of the tilted disc yet: nothing is read
    assert h.peak_hi == 0.0 and h.run_sign == 0
    h.new_level(BASE - 5.0)  # the tilted disc is quiet, a pawn lighter
    t = _feed(h, 400, [BASE - 5.0] * 3 + [BASE + 10.0] * 10)  # a push from that level
    assert h.run_sign == 1 and h.peak_hi == pytest.approx(15.0)
    t = _feed(h, t, [BASE - 5.0])  # back for one reading ...
    assert h.back_t == t - DT and h.touched == frozenset()
    t = _feed(h, t, [BASE + 10.0])  # ... and across again (a knock swung it): the run goes on
    assert h.back_t is None and h.run_sign == 1 and h.touched == frozenset()
    n_back = int(RETURN_MS // DT) + 2
    t = _feed(h, t, [BASE - 5.0] * n_back)  # back, and it stays back: a push came back
    assert h.touched == frozenset({1}) and h.run_sign == 0
    assert h.longest_run == 12 * DT


def test_a_new_quiet_level_makes_an_open_run_a_step_and_reset_forgets() -> None:
    h = HandRuns(SensingSettings())
    h.reset(0)
    h.tipped()
    h.new_level(BASE)
    t = _feed(h, 0, [BASE] * 2 + [BASE - 6.0] * 20)  # a pawn fell: a step down, not a lift
    assert h.run_sign == -1
    h.new_level(BASE - 6.0)  # the fall watch reads the new quiet level
    assert h.ref == BASE - 6.0 and h.run_sign == 0 and h.back_t is None
    t = _feed(h, t, [BASE - 6.0] * 10)
    assert h.touched == frozenset() and h.first_dev is None and h.events(t) == []
    h.reset(t)
    assert not h.after_tip and h.ref is None and h.run_start == t and h.peak_lo == 0.0
