"""The release watch: a tip right after a finger lets go is seen in tens of milliseconds."""

from __future__ import annotations

import math
import random

import pytest

from companion.sensing.release import ReleaseFollow, ReleaseLimits, ReleaseWatch

LIMITS = ReleaseLimits(skip_n=2, window_n=6, min_n=3, watch_n=20, aim_mm=8.0, floor_gmm=45.0,
                       sigmas=5.0, motion_floor_gmm=15.0, quiet_g=1.5)
BASE = (20.0, 600.0, -200.0)  # 20 g on the disc before the press, its moment
PRESS = (900.0, 120.0, 40.0)  # the finger pressed a pawn at (120, 40) mm
MASS = 7.9
STEPS = (1.5, 10.9)


def watch(levels: list[tuple[float, float, float]], noise_m: float = 0.0, seed: int = 1) -> list[float]:
    """Feed samples after a release; return the watch's answer for each."""
    rng = random.Random(seed)
    w = ReleaseWatch(LIMITS)
    out = []
    for f, x, y in levels:
        sample = (f, x + rng.gauss(0, noise_m), y + rng.gauss(0, noise_m))
        out.append(w.step(PRESS, BASE, sample, (0.0, 0.0), STEPS, 0.05, max(1.0, noise_m / 2.4)))
    return out


def expected(shift: float = 0.0) -> tuple[float, float, float]:
    """The level after the release, moved by ``shift`` g·mm along the expected moment."""
    ex, ey = BASE[1] + MASS * PRESS[1], BASE[2] + MASS * PRESS[2]
    n = math.hypot(ex, ey)
    return BASE[0] + MASS, ex + shift * ex / n, ey + shift * ey / n


def test_pawn_where_the_finger_pressed_is_no_tip() -> None:
    assert not any(watch([expected()] * 20, noise_m=20.0))


def test_finger_aim_error_of_a_few_mm_is_no_tip() -> None:
    assert not any(watch([expected(MASS * 5.0)] * 20))  # 5 mm off along the moment


def test_a_level_off_the_press_that_stays_put_is_not_a_tip() -> None:
    """A level disc whose pawn stands away from where the press's centre of pressure said (a
    steadying finger, a misread press, a wobble that came back) is still: a level 300 g·mm short
    of the expectation that does not move is no tip by itself (it used to be one at once; on the
    tuned families most such firings were placements)."""
    assert not any(watch([expected(-300.0)] * 20, noise_m=20.0))
    assert not any(watch([expected(+300.0)] * 20, noise_m=20.0))


def test_load_pinned_at_the_pedestal_edge_then_going_over_is_a_tip() -> None:
    # short at first (the load pinned at the pedestal's edge), then the disc's centre of mass
    # moves out as it rotates: the moment grows along the moment, which a pawn at rest never does
    levels = [expected(-300.0 + 15.0 * k) for k in range(20)]
    got = watch(levels, noise_m=10.0)
    first = next(i for i, v in enumerate(got) if v)
    assert got[first] > 0
    assert first <= LIMITS.skip_n + LIMITS.window_n + 2


def test_moment_moving_inwards_after_a_release_is_not_a_tip() -> None:
    # a disc going over moves its load outwards; the level moving back in is a disc righting
    # itself after a wobble (or a finger sliding off), not a tip
    levels = [expected(300.0 - 15.0 * k) for k in range(20)]
    assert not any(watch(levels, noise_m=10.0))


def test_no_level_disc_leaves_a_moment_beyond_the_disc_is_a_tip_at_once() -> None:
    # further from the expectation than the pawn could be anywhere on the disc (radius 150 mm)
    got = watch([expected(-MASS * 300.0)] * 20, noise_m=20.0)
    first = next(i for i, v in enumerate(got) if v)
    assert first <= LIMITS.skip_n + LIMITS.min_n + 1


def test_load_rolling_outwards_is_a_tip() -> None:
    # on a rounded pedestal the contact rolls outwards: the level creeps beyond the expectation
    levels = [expected(0.0 if k < 8 else 9.0 * (k - 8)) for k in range(20)]
    got = watch(levels, noise_m=4.0)
    assert any(v > 0 for v in got)
    assert not any(got[:9])


@pytest.mark.parametrize("seed", range(5))
def test_roll_from_the_release_is_seen_by_its_drift_before_a_full_window(seed: int) -> None:
    """A disc that starts rolling over as the finger lets go: its level (pinned short of the
    expectation at first, then rolling out past it) stays inside the aim allowance for a while,
    but it moves steadily from the release on, which a pawn at rest never does. The drift is
    fitted on every sample, so it needs no full window to compare with."""
    levels = [expected(-50.0 + 10.0 * k) for k in range(LIMITS.skip_n + LIMITS.watch_n)]
    got = watch(levels, noise_m=4.0, seed=seed)
    first = next(i for i, v in enumerate(got) if v)
    assert got[first] > 0
    assert first < LIMITS.skip_n + LIMITS.window_n  # the window tests alone need ~11 samples


@pytest.mark.parametrize("seed", range(40))
def test_pawn_at_rest_has_no_drift(seed: int) -> None:
    assert not any(watch([expected()] * (LIMITS.skip_n + LIMITS.watch_n), noise_m=20.0, seed=seed))


def test_force_not_quiet_is_no_tip() -> None:
    # a bump shakes the force (and the moment): nothing is decided on it
    levels = [(f + (3.0 if k % 2 else -3.0), x - 300, y) for k, (f, x, y) in enumerate([expected()] * 20)]
    assert not any(watch(levels))


def test_the_light_tail_of_a_press_is_no_reference_for_the_level_after_it() -> None:
    """A finger pressing lightly (pawn and finger within a pawn's weight of the level: not a
    press by force alone) holds a quiet level of its own before it lets go. That level is no
    reference for the level after the release: when the other pawns' moment points away from
    the press, the finger letting go moves the disc's moment *outwards* along itself, as a disc
    rolling over would. The first window is taken again once the force has moved (kids-club,
    80 Hz: four false tips)."""
    base = (20.0, -1800.0, -600.0)  # the pawns already on the disc, across from the press
    finger = 10.0 - MASS
    tail = (base[0] + MASS + finger, base[1] + (MASS + finger) * PRESS[1],
            base[2] + (MASS + finger) * PRESS[2])
    after = (base[0] + MASS, base[1] + MASS * PRESS[1], base[2] + MASS * PRESS[2])
    w = ReleaseWatch(LIMITS)
    rng = random.Random(3)
    got = [w.step(PRESS, base, (f, x + rng.gauss(0, 5.0), y + rng.gauss(0, 5.0)), (0.0, 0.0),
                  STEPS, 0.05, 2.0)
           for f, x, y in [tail] * (LIMITS.window_n + 2) + [after] * 12]
    assert not any(got)


def test_a_bouncing_pawn_is_no_drift() -> None:
    """A pawn dropped from a few mm bounces before it stays: the moment swings by hundreds of
    g·mm from reading to reading while the force is nearly quiet, and a line fitted through the
    swings can have a significant slope (kids-club, 80 Hz: a false tip). A roll is smooth; these
    readings lie far off any line."""
    f, x, y = expected()
    swings = [0.0, 0.0, 380.0, -290.0, -120.0, 60.0, 150.0, 260.0]
    levels = [(f, x + s * 0.9, y + s * 0.44) for s in swings]
    assert not any(watch(levels, noise_m=5.0))
    roll = [(f, x + 20.0 * k * 0.9, y + 20.0 * k * 0.44) for k in range(8)]
    assert any(watch(roll, noise_m=5.0))  # the same readings in a smooth roll


def test_press_misread_sideways_is_no_tip() -> None:
    f, x, y = expected(-200.0)
    assert not any(watch([(f, x + 400.0 * 0.32, y - 400.0 * 0.95)] * 20))  # far off, across the moment


def test_not_one_pawn_heavier_is_no_tip() -> None:
    f, x, y = expected(-300.0)
    assert not any(watch([(f + 40.0, x, y)] * 20))  # a hand still resting on the disc


def test_only_watched_for_a_while_after_the_release() -> None:
    levels = [expected()] * (LIMITS.skip_n + LIMITS.watch_n) + [expected(-300.0)] * 10
    assert not any(watch(levels))


def test_new_press_restarts_the_watch() -> None:
    w = ReleaseWatch(LIMITS)
    args = ((0.0, 0.0), STEPS, 0.05, 1.0)
    for k in range(LIMITS.skip_n + LIMITS.watch_n + 1):
        w.step(PRESS, BASE, expected(20.0 * k), *args)
    other = (800.0, 120.0, 40.0)
    got = [w.step(other, BASE, expected(20.0 * k), *args) for k in range(10)]
    assert any(got)


# ---- in the pipeline, on the scripted table of conftest --------------------------------------


def pinned_after(release: float, deficit: float, x: float, y: float, rim_s: float,
                 out_gmm_s: float = 900.0):  # noqa: ANN201
    """From ``release`` the disc leans on its pedestal's edge: the moment falls ``deficit`` short
    (towards the pawn), then grows outwards by ``out_gmm_s`` per second as the disc rotates
    (its centre of mass moves towards the low rim) until the rim strikes ``rim_s`` later."""
    n = math.hypot(x, y)

    def load(s: float) -> tuple[float, float, float]:
        if s < release or s > release + rim_s:
            return 0.0, 0.0, 0.0
        m = -deficit + out_gmm_s * (s - release)
        return 0.0, m * x / n, m * y / n
    return load


@pytest.mark.parametrize("rate", [80.0, 40.0])
def test_release_that_tips_the_disc_is_reported_quickly(table, rate: float) -> None:
    tab = table(noise_g=0.15, rate_hz=rate)
    tab.place(2.0, "medium", 60.0, -30.0)
    release = tab.place(5.0, "large", 130.0, 20.0)
    tab.loads.append(pinned_after(release, 250.0, 130.0, 20.0, 0.7))
    events = tab.run(7.0)
    tips = [e for e in events if e["event"] == "tipped"]
    assert tips, events
    latency = tips[0]["t_ms"] - release * 1000
    assert 0 < latency <= 250  # the level must be seen moving out (40 Hz: ~225 ms, 80 Hz: less)
    placed = [e for e in events if e["event"] == "placed"]
    assert placed[-1]["size"] == "large" and placed[-1]["zone"] == "red" and placed[-1]["number"] == 6


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_ordinary_releases_are_no_tips(table, seed: int) -> None:
    tab = table(noise_g=0.25, seed=seed)
    rng = random.Random(seed)
    for i in range(8):
        r = rng.uniform(30, 140)
        a = rng.uniform(0, 2 * math.pi)
        tab.place(1.0 + 2.0 * i, rng.choice(["small", "medium", "large"]), r * math.cos(a), r * math.sin(a))
    events = tab.run(18.0)
    assert [e["event"] for e in events] == ["placed"] * 8


def test_tipping_pawn_read_while_the_disc_moves_is_not_confident(table) -> None:
    # 10 Hz: the pawn whose release tipped the disc falls before the tilted disc is ever quiet,
    # so its mass is only known from the readings right after the release: the table must ask
    tab = table(noise_g=0.1, rate_hz=10.0)
    tab.place(2.0, "small", -40.0, 30.0)
    release = tab.place(5.0, "large", 125.0, 10.0)
    tab.tip(release + 0.05, [("large", 125.0, 10.0)])
    events = tab.run(10.0)
    kinds = [e["event"] for e in events]
    assert "tipped" in kinds, events
    placed = [e for e in events if e["event"] == "placed"]
    assert len(placed) == 2 and placed[1]["t_ms"] > next(e["t_ms"] for e in events if e["event"] == "tipped")
    assert placed[1].get("confident") is False


def steadied(tab, t: float, release: float, force: float, x: float, y: float) -> None:  # noqa: ANN001
    """The placing hand's other fingers rest on the disc at (x, y) from 0.2 s before the pawn
    touches down at ``t`` until the finger lets go at ``release``."""
    tab.loads.append(lambda s: tab._point(s, t - 0.2, release, 0.02, force, x, y))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_steadied_placement_is_not_a_tip(table, seed: int) -> None:
    """The press's centre of pressure mixes the finger and the steadying fingers on the far side,
    so the level after the release lies beyond where the press said: a level disc, no tip."""
    tab = table(noise_g=0.25, seed=seed)
    tab.place(1.0, "medium", -40.0, 30.0)
    release = tab.place(3.0, "large", 110.0, -30.0, press_g=25.0)
    steadied(tab, 3.0, release, 20.0, -120.0, 40.0)
    events = tab.run(7.0)
    assert [e["event"] for e in events] == ["placed", "placed"], events


LIGHT_LIMITS = ReleaseLimits(skip_n=2, window_n=6, min_n=3, watch_n=80, aim_mm=8.0, floor_gmm=45.0,
                             sigmas=5.0, motion_floor_gmm=15.0, quiet_g=1.0, pawn_masses=(3.1, 6.6, 11.0))


def light(forces: list[float], outward: list[float], noise_m: float = 0.0, seed: int = 1) -> list[float]:
    """Feed a segment with no press (a pawn set down lightly) to ``step_light``: the force above
    BASE and the moment's shift outwards along BASE's moment, per sample."""
    rng = random.Random(seed)
    w = ReleaseWatch(LIGHT_LIMITS)
    n = math.hypot(BASE[1], BASE[2])
    out = []
    for f, s in zip(forces, outward, strict=True):
        x = BASE[1] + s * BASE[1] / n + rng.gauss(0, noise_m)
        y = BASE[2] + s * BASE[2] / n + rng.gauss(0, noise_m)
        out.append(w.step_light(BASE, (BASE[0] + f, x, y), (0.0, 0.0), STEPS, 0.05, 3.0))
    return out


def _set_down(roll_gmm_per_sample: float, n: int = 60) -> tuple[list[float], list[float]]:
    """A small pawn (3.1 g) set down by a light finger (4.7 g more, under the press threshold),
    let go after 15 samples; the moment then moves outwards by ``roll_gmm_per_sample``."""
    forces = [7.8] * 15 + [3.1] * (n - 15)
    outward = [0.0] * 15 + [roll_gmm_per_sample * k for k in range(n - 15)]
    return forces, outward


@pytest.mark.parametrize("seed", range(5))
def test_a_light_set_down_that_rolls_the_disc_over_is_a_tip(seed: int) -> None:
    """A pawn set down with the finger under the press threshold, and the disc rolling outwards
    from the release (living-room, a pivot with a weak spring: the tip was read only at the rim
    strike, 535 ms after its onset). No press says where the pawn is, but a pawn at rest does not
    move: the steady outward drift at a pawn's weight is the disc going over."""
    forces, outward = _set_down(10.0)
    got = light(forces, outward, noise_m=4.0, seed=seed)
    first = next(i for i, v in enumerate(got) if v)
    assert got[first] > 0
    assert first < 15 + 20  # within 250 ms of the finger letting go


@pytest.mark.parametrize("seed", range(20))
def test_a_light_set_down_at_rest_is_no_tip(seed: int) -> None:
    forces, outward = _set_down(0.0)
    assert not any(light(forces, outward, noise_m=12.0, seed=seed))


def test_a_light_finger_still_on_the_pawn_is_no_tip() -> None:
    """The finger never lets go (the force never comes down from its peak): its moment moving
    is the finger sliding, whatever the force weighs (here the small pawn and the finger weigh
    the large pawn's mass)."""
    forces = [11.0] * 60
    outward = [10.0 * k for k in range(60)]
    assert not any(light(forces, outward))


def test_a_light_finger_easing_off_is_no_tip() -> None:
    """A finger easing off slowly moves the force with the moment: a drift the force's own
    change explains (the finger anywhere on the disc) is no roll."""
    forces = [12.0] * 10 + [11.0 - 0.02 * k for k in range(50)]  # after its peak, 1 g in 50 samples
    outward = [0.0] * 10 + [-3.0 * k for k in range(50)]  # ... its moment moving with it
    assert not any(light(forces, [-v for v in outward]))


def test_a_light_set_down_moving_inwards_is_no_tip() -> None:
    forces, outward = _set_down(-10.0)
    assert not any(light(forces, outward, noise_m=4.0))


def _follow() -> ReleaseFollow:
    return ReleaseFollow(ReleaseWatch(LIGHT_LIMITS), STEPS)


def test_the_watch_goes_on_after_its_segment_and_reads_a_slow_roll() -> None:
    """The segment ended on a still level 10 samples after the release (a slow roll looks still
    to the level test); the disc then rolls out by 12 g*mm a sample: the still samples that
    follow are watched to the end of the watch, and the roll is a tip."""
    f = _follow()
    press = (PRESS[0], 120.0, 40.0)
    for _ in range(10):
        assert f.step(press, BASE, expected(), (0.0, 0.0), 0.05, 3.0) == 0.0
    assert f.rolling
    got = [f.roll_after(*expected(12.0 * k)) for k in range(40)]
    assert any(got)
    assert f.take_fired() and not f.take_fired()  # told once
    assert not f.rolling


def test_after_the_segment_a_level_that_stays_put_is_no_tip_however_far_off() -> None:
    """After the segment only motion decides. The segment ended before the force was quiet (no
    level was tested in it); the still level then lies beyond what any level disc could leave,
    but it stays put: tested again on every still sample, the static departure would only test
    its noise (a kids-club placement was read as a tip that way), so it is not tested there."""
    f = _follow()
    press = (PRESS[0], 120.0, 40.0)
    for k in range(10):
        f_, x, y = expected()
        f.step(press, BASE, (f_ + (3.0 if k % 2 else -3.0), x, y), (0.0, 0.0), 0.05, 3.0)
    rng = random.Random(3)
    for _ in range(70):
        f_, x, y = expected(-MASS * 300.0)
        assert not f.roll_after(f_, x + rng.gauss(0, 4.0), y + rng.gauss(0, 4.0))


def test_the_watch_after_its_segment_stops_when_no_pawn_was_set_down() -> None:
    """A segment that set no pawn down (the still level weighs what it did before): the still
    samples stop being watched once a full window says so."""
    f = _follow()
    press = (PRESS[0], 120.0, 40.0)
    for _ in range(10):
        f.step(press, BASE, BASE, (0.0, 0.0), 0.05, 3.0)
    for _ in range(LIGHT_LIMITS.window_n + 2):
        f.roll_after(*BASE)
    assert not f.rolling


def test_a_new_segment_ends_the_watch_after_the_last_one() -> None:
    f = _follow()
    f.step((PRESS[0], 120.0, 40.0), BASE, expected(), (0.0, 0.0), 0.05, 3.0)
    f.begin_segment()
    assert not f.rolling and not f.roll_after(*expected(500.0))


@pytest.mark.parametrize("seed", range(5))
def test_a_compliant_top_leaning_into_its_creep_is_no_tip(seed: int) -> None:
    """A compliant top leans under the pawn just set down: the moment creeps out by 40 g*mm over
    most of a second, settling. Over so long a run a line through the readings is significant,
    but slow noise and a lean wander that far: a long drift must also move as far as the level
    between two windows can by noise (creep-felt tables read such leans as tips, 300-600 ms
    before the disc went over, and the tip itself was then lost in that episode)."""
    rng = random.Random(seed)
    w = ReleaseWatch(LIGHT_LIMITS)
    got = []
    for k in range(LIGHT_LIMITS.skip_n + LIGHT_LIMITS.watch_n):
        f, x, y = expected(40.0 * (1.0 - math.exp(-k / 40.0)))
        got.append(w.step(PRESS, BASE, (f, x + rng.gauss(0, 8.0), y + rng.gauss(0, 8.0)), (0.0, 0.0),
                          STEPS, 0.05, 5.0))
    assert not any(v > 0 for v in got)
