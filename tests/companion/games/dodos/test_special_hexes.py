"""Special hexes as prompts with the rule's choices: flames, shortcuts (with their die), glass ramps."""

from __future__ import annotations

import pytest

from companion.games.base import CHANCE, IllegalAction
from companion.games.dodos.actions import Flame, GlassFail, GlassJump, Move, ShortcutRoll


def _race(h, track, p, speed, **extra):
    """Ana (seat 0) at ``p`` on the inner ``track`` plays Normal ``speed``; Ben and a Challenger play 0."""
    s = h.start(2, track=track, side="inner")
    s = h.edit(s, r0={"p": p}, **extra)
    return h.reveal(s, {0: ("normal", speed), 1: ("normal", 0)}, {2: ("normal", 0)})


# ----------------------------------------------------------------- Ignis Volcano: flames (6, 13, 21)


def test_flame_entered_only_by_an_exact_advance_asks_the_choice(h):
    s = _race(h, "ignis-volcano", 3, 3)
    assert h.prompt(s) == {"kind": "flame", "racer": 0}
    labels = [la.label for la in h.rules.legal_actions(s)]
    assert len(labels) == 3 and labels[0].startswith("Ashes") and labels[1].startswith("Fireballs")


def test_flame_passed_over_asks_nothing(h):
    s = _race(h, "ignis-volcano", 3, 4)
    assert h.prompt(s)["kind"] == "window" and h.pos(s)[0] == 7


def test_flame_ashes_takes_a_card_from_the_discard_pile(h):
    s = _race(h, "ignis-volcano", 3, 3, discard=2, deck=h.start(2).dict()["deck"] - 2)
    s = h.run(s, Flame("ashes"))
    assert h.hands(s)[0] == 6 and s.dict()["discard"] == 1


def test_flame_fireballs_one_damage_on_the_two_nearest_hexes(h):
    s = h.start(2, track="ignis-volcano", side="inner", challengers=2)
    s = h.edit(s, r0={"p": 3}, r1={"p": 8}, r2={"p": 4}, r3={"p": 20})
    s = h.reveal(s, {0: ("normal", 3), 1: ("normal", 0)}, {2: ("normal", 0), 3: ("normal", 0)})
    s = h.run(s, Flame("fireballs"))
    assert h.hands(s) == [5, 5 - 1, 5 - 1, 5]  # hexes 4 and 8 are nearest; 20 is not


def test_flame_fireballs_within_two_by_setting(h):
    s = h.start(2, track="ignis-volcano", side="inner", challengers=2, fireballs="within-two")
    s = h.edit(s, r0={"p": 3}, r1={"p": 9}, r2={"p": 4}, r3={"p": 7})
    s = h.reveal(s, {0: ("normal", 3), 1: ("normal", 0)}, {2: ("normal", 0), 3: ("normal", 0)})
    s = h.run(s, Flame("fireballs"))
    assert h.hands(s) == [5, 5, 5 - 1, 5 - 1]


def test_flame_ignore_takes_the_adjacent_hex(h):
    s = h.run(_race(h, "ignis-volcano", 3, 3), Flame("ignore"))
    assert h.pos(s)[0] == 6 and h.hands(s)[0] == 5 and h.prompt(s)["kind"] == "window"


def test_flame_not_entered_by_going_back(h):
    s = _race(h, "ignis-volcano", 0, 0)
    s = h.edit(s, r1={"p": 7})
    s = h.run(s, Move(1, -1))
    assert h.pos(s)[1] == 6 and h.prompt(s)["kind"] == "window"


def test_flame_choice_must_be_one_of_the_rules(h):
    with pytest.raises(IllegalAction) as err:
        h.run(_race(h, "ignis-volcano", 3, 3), Flame("lava"))
    assert err.value.rule == "flame-choice"


# ---------------------------------------------------- Polaria Iceberg: shortcut 7 -> 15 (3 hexes)


def test_shortcut_stepping_on_the_signal_rolls_a_die(h):
    s = _race(h, "polaria-iceberg", 5, 5)  # deep snow: 4 hexes; the signal at 7 is crossed
    assert h.prompt(s) == {"kind": "shortcut", "racer": 0}
    assert h.rules.to_move(s).seats == (CHANCE,)
    assert [la.probability for la in h.rules.legal_actions(s)] == [pytest.approx(1 / 6)] * 6


@pytest.mark.parametrize("value", [4, 5, 6])
def test_shortcut_success_four_to_six_continues_through_the_shortcut(h, value):
    s = h.run(_race(h, "polaria-iceberg", 5, 5), ShortcutRoll(value))
    g = s.dict()
    # 7 (signal), then 2 more hexes: shortcut hexes 1 and 2 of 3 (progress 15 - 4 + 2 = 13)
    assert g["racers"][0]["route"] == [0, 2] and g["racers"][0]["p"] == 13 and g["racers"][0]["hand"] == 5


@pytest.mark.parametrize("value", [1, 2, 3])
def test_shortcut_failure_one_to_three_one_damage_and_the_regular_path(h, value):
    s = h.run(_race(h, "polaria-iceberg", 5, 5), ShortcutRoll(value))
    g = s.dict()
    assert g["racers"][0]["route"] is None and g["racers"][0]["p"] == 9 and g["racers"][0]["hand"] == 4


def test_shortcut_is_the_faster_way_to_the_rejoin_hex(h):
    s = h.run(_race(h, "polaria-iceberg", 5, 8), ShortcutRoll(6))  # 7 hexes: 6, 7, s1, s2, s3, 15, 16
    g = s.dict()
    assert g["racers"][0]["route"] is None and g["racers"][0]["p"] == 16


def test_shortcut_going_back_follows_the_regular_path(h):
    s = h.run(_race(h, "polaria-iceberg", 5, 5), ShortcutRoll(6))  # on shortcut hex 2
    s = h.run(s, Move(0, -3))  # hex 1, the signal, then the regular path back
    g = s.dict()
    assert g["racers"][0]["route"] is None and g["racers"][0]["p"] == 6
    s = h.edit(s, r1={"p": 16})
    s = h.run(s, Move(1, -3))
    assert s.dict()["racers"][1]["p"] == 13 and s.dict()["racers"][1]["route"] is None


def test_shortcut_roll_kept_when_the_advance_ends_on_the_signal(h):
    s = h.run(_race(h, "polaria-iceberg", 5, 3), ShortcutRoll(5))  # 2 hexes: ends on the signal
    assert s.dict()["racers"][0]["route"] == [0, 0] and h.pos(s)[0] == 7
    s = h.run(s, Move(0, 1))  # next step goes into the shortcut, no new roll
    assert s.dict()["racers"][0]["route"] == [0, 1] and h.prompt(s)["kind"] == "window"


def test_shortcut_does_not_trigger_for_challengers(h):
    s = h.start(1, track="polaria-iceberg", side="inner")
    s = h.edit(s, r1={"p": 6})
    s = h.done(h.reveal(s, {0: ("normal", 0)}, {1: ("normal", 1), 2: ("normal", 0)}))
    assert h.prompt(s)["kind"] == "window" and h.pos(s)[1] == 9


# ---------------------------------------------------- Boreal Sky: ramp 10, landings 13-15 (paw 13)


def test_glass_ramp_arriving_asks_for_jumps(h):
    s = _race(h, "boreal-sky", 8, 4)  # 9, 10 (ramp): 2 movement left
    assert h.prompt(s) == {"kind": "glass", "racer": 0, "left": 2}
    assert h.rules.to_move(s).seats == (0,)
    assert [la.action.landing for la in h.rules.legal_actions(s)] == [13, 14, 15, None]


def test_glass_ramp_landing_costs_one_movement_and_continues(h):
    s = h.run(_race(h, "boreal-sky", 8, 4), GlassJump(14))  # 1 movement left after the jump
    assert h.pos(s)[0] == 15 and h.prompt(s)["kind"] == "window"


def test_glass_ramp_every_try_costs_one_movement(h):
    s = h.run(_race(h, "boreal-sky", 8, 4), GlassJump(None))
    assert h.prompt(s) == {"kind": "glass", "racer": 0, "left": 1}
    s = h.run(s, GlassJump(None))
    assert h.prompt(s) == {"kind": "glass_fail", "racer": 0}


def test_glass_ramp_failed_take_two_damage_to_the_smallest_paw(h):
    s = h.run(_race(h, "boreal-sky", 8, 3), GlassJump(None), GlassFail("damage"))
    assert h.pos(s)[0] == 13 and h.hands(s)[0] == 3


def test_glass_ramp_failed_or_finish_the_turn_on_the_ramp(h):
    s = h.run(_race(h, "boreal-sky", 8, 3), GlassJump(None), GlassFail("stay"))
    assert h.pos(s)[0] == 10 and h.hands(s)[0] == 5 and h.prompt(s)["kind"] == "window"


def test_glass_ramp_landing_must_be_a_landing_hex(h):
    with pytest.raises(IllegalAction) as err:
        h.run(_race(h, "boreal-sky", 8, 4), GlassJump(12))
    assert err.value.rule == "glass-landing"


def test_glass_ramp_arriving_with_no_movement_left_stops_on_the_ramp(h):
    s = _race(h, "boreal-sky", 8, 2)
    assert h.pos(s)[0] == 10 and h.prompt(s)["kind"] == "window"


def test_glass_ramp_going_back_jumps_from_the_landing_to_the_ramp(h):
    s = h.run(_race(h, "boreal-sky", 8, 4), GlassJump(14))
    s = h.run(s, Move(0, -3))  # 15 -> 14 -> 13 (the first landing) -> across the sky to the ramp
    assert h.pos(s)[0] == 10
