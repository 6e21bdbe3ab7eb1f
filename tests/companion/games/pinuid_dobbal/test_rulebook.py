"""One test per rule of the Pinuid Dobbal rulebook (and per reading of its open points)."""

from __future__ import annotations

import pytest

from companion.games.base import IllegalAction
from companion.games.pinuid_dobbal import (
    Assign,
    Move,
    NewGame,
    PinuidDobbalRules,
    PutBack,
    Remove,
    Roll,
    apply,
    initial_state,
    legal_actions,
)

RULES = PinuidDobbalRules()


def start(**options):
    return initial_state(NewGame(players=("Anna", "Bob"), options=tuple(options.items())))


def rule_of(fn, *args) -> str:
    with pytest.raises(IllegalAction) as err:
        fn(*args)
    return err.value.rule


# ----------------------------------------------------------------- starting setup


def test_starting_setup_five_running_pins_each_on_the_back_line_and_the_play_pin_in_the_opening(h):
    s = start()
    assert h.pins(s, 0) == {"a1", "b1", "d1", "e1", "f1"}
    assert h.pins(s, 1) == {"a7", "b7", "c7", "e7", "f7"}  # the opening counted from Bob's own left
    assert s.to_json()["play_pin"] == "c1" and s.current == 0 and s.phase == "roll"


def test_starting_setup_follows_the_board_settings(h):
    s = start(width=8, height=9, opening=1)
    assert h.pins(s, 0) == {"c1", "d1", "e1", "f1", "g1"} and s.to_json()["play_pin"] == "b1"
    assert h.pins(s, 1) == {"b9", "c9", "d9", "e9", "f9"}  # g9 is Bob's opening


def test_two_players_only():
    assert rule_of(initial_state, NewGame(players=("A", "B", "C"))) == "two-players"


# ----------------------------------------------------------------- the turn in fixed order


def test_fixed_order_running_pin_then_play_pin_then_running_pin(h):
    s = h.roll(start(), 1, 2, 1)
    assert s.step == 1 and rule_of(h.move, s, "c1", "c2") == "running-pin-step"
    s = h.move(s, "b1", "b2")  # die 1 for the first running pin
    assert s.step == 2 and s.left == (2,)
    assert rule_of(h.move, s, "d1", "d2") == "play-pin-step"
    s = h.move(s, "c1", "c2")  # the play-pin, next to b2
    assert s.step == 3 and rule_of(h.move, s, "d1", "d2") == "exact-steps"  # only the 2 is left
    s = h.move(s, "d1", "d3")
    assert s.phase == "roll" and s.current == 1 and s.skips == ()


def test_either_running_die_may_be_used_first(h):
    s = h.roll(start(), 1, 3, 1)
    assert ("a1", "a2") in h.moves(s) and ("a1", "a4") in h.moves(s)
    s = h.move(s, "a1", "a4")
    assert s.left == (1,)


def test_exactly_the_number_of_steps(h):
    s = h.roll(start(), 2, 2, 1)
    assert rule_of(h.move, s, "a1", "a2") == "exact-steps"
    assert rule_of(h.move, s, "a1", "a4") == "exact-steps"


def test_straight_line_in_any_direction_diagonals_included(h):
    s = h.roll(h.position("c3 a1", "f7", "b2"), 2, 2, 1)
    assert {("c3", t) for t in ("a3", "e3", "c5", "c1", "a5", "e5", "e1")} <= h.moves(s)
    assert ("c3", "a1") not in h.moves(s)  # a1 is taken
    assert rule_of(h.move, s, "c3", "d5") == "straight-line"


def test_straight_line_without_diagonals_when_set(h):
    s = h.roll(h.position("c3", "f7", "d7", move_diagonals=False), 2, 2, 1)
    assert h.moves(s) == {("c3", "a3"), ("c3", "e3"), ("c3", "c5"), ("c3", "c1")}
    assert rule_of(h.move, s, "c3", "e5") == "straight-line"


def test_blocking_a_pin_stops_only_on_a_free_square(h):
    s = h.roll(h.position("c3", "c5", "f1"), 2, 2, 1)
    assert ("c3", "c5") not in h.moves(s)
    assert rule_of(h.move, s, "c3", "c5") == "blocked"


def test_no_jumping_over_any_pin(h):
    # Bob's pin on c4, Anna's own on d4 and the play-pin on e3 all stand in the way
    s = h.roll(h.position("c3 d4", "c4", "e3"), 3, 3, 1)
    assert rule_of(h.move, s, "c3", "c6") == "no-jumping"
    assert rule_of(h.move, s, "c3", "f6") == "no-jumping"
    assert rule_of(h.move, s, "c3", "f3") == "no-jumping"
    assert all(t not in ("c6", "f6") for f, t in h.moves(s) if f == "c3")


def test_only_your_own_running_pins_move_in_steps_one_and_three(h):
    s = h.roll(start(), 1, 2, 1)
    assert rule_of(h.move, s, "a7", "a6") == "not-your-pin"


# ----------------------------------------------------------------- the play-pin


def test_play_pin_adjacency_it_moves_only_next_to_your_own_running_pin(h):
    s = h.roll(h.position("a1 f1", "c5", "c3"), 1, 1, 1)
    s = h.move(s, "a1", "a2")  # nothing of Anna's is next to c3 (Bob's c5 is not hers)
    assert s.step == 3 and s.skips == ((2, "play-pin-not-next-to-own-pin", 1),)
    assert "not next to" in s.to_json()["skips"][0]["reason"]


def test_play_pin_adjacency_includes_the_diagonal_neighbours(h):
    s = h.roll(h.position("b2 f1", "f7", "c3"), 1, 2, 1)
    s = h.move(s, "f1", "f2")
    assert s.step == 2  # b2 touches c3 diagonally
    t = h.roll(h.position("b2 f1", "f7", "c3", adjacent_diagonals=False), 1, 2, 1)
    t = h.move(t, "f1", "f2")
    assert t.step == 3 and t.skips[0][1] == "play-pin-not-next-to-own-pin"


def test_play_pin_adjacency_counts_after_the_first_move(h):
    s = h.roll(h.position("a1 f1", "f7", "c3"), 1, 1, 2)
    s = h.move(s, "a1", "b2")  # now next to the play-pin
    assert s.step == 2 and ("c3", "c5") in h.moves(s)


def test_play_pin_needs_room_for_all_its_steps(h):
    # the play-pin on a1 in a corner, boxed in: no straight line of 3 free squares
    s = h.roll(h.position("b1 f3", "a2 b2", "a1"), 2, 2, 3)
    s = h.move(s, "f3", "f5")
    assert s.step == 3 and s.skips == ((2, "play-pin-no-room", 3),)


def test_play_pin_refused_when_not_next_to_own_pin(h):
    s = h.roll(h.position("a1 f1", "f7", "c3"), 1, 1, 1)
    s = h.move(s, "a1", "a2")
    assert s.step == 3
    assert rule_of(h.move, s, "c3", "c4") == "running-pin-step"


def test_play_pin_may_stop_on_a_back_line_square(h):
    s = h.roll(h.position("b2 f1", "f7", "c2"), 1, 1, 1)
    s = h.move(s, "f1", "f2")
    assert ("c2", "c1") in h.moves(s)  # own back line, free
    t = h.roll(h.position("b2 f1", "f7", "c2", play_pin_own_back_line=False), 1, 1, 1)
    t = h.move(t, "f1", "f2")
    assert ("c2", "c1") not in h.moves(t) and ("c2", "c3") in h.moves(t)
    assert rule_of(h.move, t, "c2", "c1") == "play-pin-back-line"


# ----------------------------------------------------------------- forced moves and skips


def test_forced_moves_you_must_move_even_to_your_own_disadvantage(h):
    # Anna's only move takes her pin onto a4, next to nothing she needs; she may not pass
    s = h.roll(h.position("a3", "a2 b2 b4 a5 c1", "b3"), 2, 1, 1)
    acts = legal_actions(s)
    assert acts == [Move("a3", "a4")]  # no pass, no other choice
    assert not any(a.type == "pass" for a in acts)
    assert rule_of(h.move, s, "a3", "a1") == "no-jumping"


def test_forced_skip_when_no_running_pin_can_move(h):
    # Anna's pin on a1 is walled in: step 1 is skipped, the play-pin still moves (to c2)
    s = h.roll(h.position("a1", "a2 b2 c1", "b1"), 1, 2, 1)
    assert s.step == 2 and s.skips == ((1, "no-running-move", 1), (1, "no-running-move", 2))
    assert h.moves(s) == {("b1", "c2")}
    assert s.to_json()["skips"][0]["reason"] == "no running pin can move 1 in a straight line without jumping"
    assert RULES.describe_next(s).startswith("Anna: move the play-pin 1 (step 2 of 3). Step 1 skipped: ")


def test_forced_skip_of_the_whole_turn_passes_to_the_opponent(h):
    s = h.roll(h.position("a1", "a2 b2 b1", "f7"), 1, 2, 1)
    assert s.phase == "roll" and s.current == 1
    assert [k[:2] for k in s.skips] == [(1, "no-running-move"), (1, "no-running-move"),
                                        (2, "play-pin-not-next-to-own-pin"), (3, "no-running-move"),
                                        (3, "no-running-move")]
    assert RULES.describe_next(s).startswith("Bob: roll the three dice. Anna's step 1 skipped: no running")


def test_step_three_may_use_either_die_when_step_one_was_skipped(h):
    # step 1 impossible for both dice (a1 walled in); the play-pin moves away and frees b1 and c1
    s = h.roll(h.position("a1", "a2 b2", "b1"), 1, 2, 1)
    assert s.step == 2 and [k[1] for k in s.skips] == ["no-running-move", "no-running-move"]
    s = h.move(s, "b1", "c2")
    assert s.step == 3 and s.left == (1, 2)
    assert h.moves(s) == {("a1", "b1"), ("a1", "c1")}


# ----------------------------------------------------------------- the double


def test_the_double_remove_an_opponent_pin_instead_of_the_turn(h):
    s = h.roll(start(), 2, 2, 3)
    assert s.double and Remove("a7") in legal_actions(s) and Move("a1", "a3") in legal_actions(s)
    t = apply(s, Remove("a7"))
    assert "a7" not in h.pins(t, 1) and t.removed == (1, 0)
    assert t.phase == "roll" and t.current == 1  # the turn ends at once
    assert t.to_json()["off_board"] == [0, 1]


def test_the_double_put_back_a_removed_pin_on_a_free_square_of_your_own_back_line(h):
    s = h.roll(h.position("b3 c3 d3 e3", "a7 b7 c7 e7 f7", "c4", removed=(0, 1)), 3, 3, 1)
    backs = {a.at for a in legal_actions(s) if isinstance(a, PutBack)}
    assert backs == {"a1", "b1", "c1", "d1", "e1", "f1"}
    t = apply(s, PutBack("a1"))
    assert "a1" in h.pins(t, 0) and t.put_back == (1, 0) and t.phase == "roll" and t.current == 1
    assert rule_of(apply, s, PutBack("a7")) == "put-back-own-back-line"


def test_the_double_put_back_needs_a_removed_pin_and_a_free_square(h):
    s = h.roll(start(), 1, 1, 2)
    assert not any(isinstance(a, PutBack) for a in legal_actions(s))
    assert rule_of(apply, s, PutBack("c1")) == "put-back-removed-pin"
    t = h.roll(h.position("b3 c3 d3 e3", "a7 b7 c7 e7 f7", "c4", removed=(0, 1)), 3, 3, 1)
    t2 = t._replace(pins=(t.pins[0], t.pins[1] | 1))  # Bob's pin on a1: taken
    assert rule_of(apply, t2, PutBack("a1")) == "put-back-free-square"


def test_the_double_counts_only_the_two_running_dice(h):
    s = h.roll(start(), 1, 2, 2)
    assert not s.double
    assert rule_of(apply, s, Remove("a7")) == "double"
    s = h.roll(start(), 3, 3, 1)
    assert s.double


def test_the_double_choice_is_gone_once_a_pin_moved(h):
    s = h.move(h.roll(start(), 1, 1, 1), "b1", "b2")
    assert not s.double and rule_of(apply, s, Remove("a7")) == "double"


def test_the_double_may_still_be_played_as_a_normal_turn(h):
    s = h.roll(start(), 1, 1, 1)
    assert Move("b1", "b2") in legal_actions(s)
    t = h.roll(start(double_normal_turn=False), 1, 1, 1)
    assert all(a.type == "remove" for a in legal_actions(t))
    assert rule_of(h.move, t, "b1", "b2") == "double-alternative"


def test_the_double_the_play_pin_is_not_an_opponent_pin(h):
    s = h.roll(start(), 2, 2, 1)
    assert rule_of(apply, s, Remove("c1")) == "remove-opponent-pin"


# ----------------------------------------------------------------- the 3-pin limit


def test_three_pin_limit_each_player_removes_at_most_three_in_a_game(h):
    s = h.roll(h.position("a1 b1 d1 e1 f1", "a7 b7", "c1", removed=(3, 0)), 2, 2, 1)
    assert not any(isinstance(a, Remove) for a in legal_actions(s))
    assert rule_of(apply, s, Remove("a7")) == "double-limit"
    # the limit counts removals, not pins off the board: putting back gives no new removal
    s = h.roll(h.position("a1 b1 d1 e1 f1", "a7 b7 c7", "c1", removed=(3, 0), put_back=(0, 1)), 2, 2, 1)
    assert not any(isinstance(a, Remove) for a in legal_actions(s))


def test_three_pin_limit_other_player_still_may_remove(h):
    s = h.roll(h.position("a1 b1", "a7 b7 c7 e7 f7", "c1", current=1, removed=(3, 0)), 2, 2, 1)
    assert any(isinstance(a, Remove) for a in legal_actions(s))


def test_three_pin_limit_in_total_for_the_game(h):
    s = h.roll(h.position("a1 b1 d1", "a7 b7 c7 e7", "c1", removed=(1, 2), removal_limit="3-total"), 2, 2, 1)
    assert not any(isinstance(a, Remove) for a in legal_actions(s))


def test_three_pin_limit_off_the_board_at_once(h):
    opts = {"removal_limit": "3-off-at-once"}
    s = h.position("a1 b1 d1 e1 f1", "a7 b7 c7", "c1", removed=(3, 0), put_back=(0, 1), **opts)
    s = h.roll(s, 2, 2, 1)
    assert any(isinstance(a, Remove) for a in legal_actions(s))  # only 2 of Bob's pins are off now
    s = h.roll(h.position("a1 b1 d1 e1 f1", "a7 b7", "c1", removed=(3, 0), **opts), 2, 2, 1)
    assert not any(isinstance(a, Remove) for a in legal_actions(s))


def test_three_pin_limit_end_to_end_fourth_removal_refused(h):
    s = start()
    for k in range(3):
        target = sorted(h.pins(s, 1))[-1]
        s = apply(h.roll(s, 1, 1, 1), Remove(target))  # Anna removes
        s = h.roll(s, 1, 2, 3)  # Bob plays some turn
        while s.phase == "move":
            s = apply(s, legal_actions(s)[0])
        assert s.removed == (k + 1, 0)
    s = h.roll(s, 1, 1, 1)
    assert rule_of(apply, s, Remove(sorted(h.pins(s, 1))[0])) == "double-limit"


# ----------------------------------------------------------------- the win


def win_position(h, **opts):
    # Anna's pin on b6 and the play-pin on c6: one step from Bob's back line (row 7, a7 free)
    return h.position("b6 f1", "e7 f7 d5", "c6", **opts)


def test_win_play_pin_and_own_running_pin_side_by_side_on_the_opponents_back_line(h):
    s = h.roll(win_position(h), 1, 1, 1)
    s = h.move(s, "b6", "b7")
    s = h.move(s, "c6", "c7")
    assert s.phase == "move"  # not yet: the third move is still to do
    s = h.move(s, "f1", "f2")
    assert s.phase == "over" and s.winner == 0
    assert RULES.outcome(s).winners == (0,)
    assert legal_actions(s) == [] and RULES.to_move(s).seats == ()
    assert rule_of(h.roll, s, 1, 1, 1) == "game-over"


def test_win_only_after_the_whole_turn_a_skipped_third_move_wins_nothing(h):
    # after b7 and c7 no pin of Anna's can move 3 (walled in by Bob): the win does not count
    s = h.roll(h.position("b6 f1", "e1 e2 f2 b5 d5", "c6"), 1, 3, 1)
    s = h.move(s, "b6", "b7")
    s = h.move(s, "c6", "c7")
    assert s.phase == "roll" and s.winner is None and s.current == 1
    assert s.skips == ((3, "no-running-move", 3),)


def test_win_only_after_the_whole_turn_counts_a_skipped_move_when_set(h):
    s = h.roll(h.position("b6 f1", "e1 e2 f2 b5 d5", "c6", win_needs_all_moves=False), 1, 3, 1)
    s = h.move(s, "b6", "b7")
    s = h.move(s, "c6", "c7")
    assert s.phase == "over" and s.winner == 0


def test_win_not_when_the_pins_are_not_side_by_side(h):
    s = h.roll(h.position("a6 b5 f1", "e7 f7 d5", "c6"), 1, 1, 1)
    s = h.move(s, "a6", "a7")
    s = h.move(s, "c6", "c7")
    s = h.move(s, "f1", "f2")
    assert s.phase == "roll" and s.winner is None


def test_win_is_checked_for_the_player_whose_turn_ended_only(h):
    # Anna ends her turn with the play-pin beside Bob's pin on her own back line: Bob has not won yet
    s = h.roll(h.position("b3 f4", "a1 e7", "b2"), 1, 1, 1)
    s = h.move(s, "f4", "f5")
    s = h.move(s, "b2", "b1")
    s = h.move(s, "f5", "f6")
    assert s.phase == "roll" and s.winner is None and s.current == 1


# ----------------------------------------------------------------- dice


def test_dice_faces_one_to_three_by_default():
    s = start()
    assert len(legal_actions(s)) == 27 and all(max(a.dice) <= 3 for a in legal_actions(s))
    assert rule_of(apply, s, Roll((4, 1, 1))) == "dice-faces"
    assert len(legal_actions(start(dice="1-6"))) == 216
    assert all(la.chance and abs(la.probability - 1 / 27) < 1e-12 for la in RULES.legal_actions(s))


def test_the_play_pin_die_chosen_by_the_player_when_set(h):
    s = h.roll(start(play_pin_die="chosen"), 1, 3, 2)
    assert s.phase == "assign" and legal_actions(s) == [Assign(1), Assign(2), Assign(3)]
    assert rule_of(apply, s, Assign(5)) == "play-pin-die"
    t = apply(s, Assign(3))
    assert t.dice == (1, 2, 3) and t.left == (1, 2) and t.step == 1
    u = h.roll(start(play_pin_die="chosen"), 2, 2, 2)
    assert u.phase == "move" and u.double


def test_wrong_phase_names_what_comes_next(h):
    s = start()
    with pytest.raises(IllegalAction, match="roll the three dice") as err:
        h.move(s, "a1", "a2")
    assert err.value.rule == "wrong-phase"
