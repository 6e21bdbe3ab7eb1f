"""The edge cases and interpretations of docs/rules.md: finishing, draws, attempts, corrections, flags."""

from __future__ import annotations

import pytest

from companion.games.base import IllegalAction
from companion.games.dingo_disc import (
    AcceptPlacement,
    ConfirmFall,
    CorrectFall,
    CorrectSize,
    DismissFlag,
    EndGame,
    Fall,
    Give,
    Hand,
    NewGame,
    Place,
    Removed,
    TakeDice,
    apply,
    initial_state,
)


def _with(h, version, supplies, first=0, **options):
    s = h.start(version, players=len(supplies), first=first, options=options)
    return s.evolve(supply=tuple(supplies))


# ----------------------------------------------------------------- finishing and the draw


def test_a_finished_player_whose_pawns_fall_back_before_the_next_player_takes_the_dice_plays_on(version, h):
    s = _with(h, version, [(1, 0, 0), (3, 0, 0), (3, 0, 0)])
    s = h.turn(s, "small")  # Anna placed her last pawn, Bob has not taken the dice
    s = h.turn(s, "small")  # ... now Bob did take them (roll) and placed: Anna's finish is final
    assert [f.seat for f in s.finishing] == [0]
    s = _with(h, version, [(2, 0, 0), (3, 0, 0), (3, 0, 0)])
    s = h.turn(h.turn(h.turn(s)))  # round 1: everyone placed one
    s = h.turn(s)  # Anna places her last pawn (round 2)
    s = apply(s, Fall(pawns=(1, 0, 0), placed_fell=False))  # another small falls: it is Anna's
    assert s.supply[0] == (1, 0, 0) and s.current == 1
    s = apply(s, TakeDice())
    assert s.finishing == ()  # she holds a pawn again: not finished
    assert not s.to_json()["players"][0]["finished"]


def test_a_finished_players_own_last_pawn_falling_gives_them_a_second_attempt(version, h):
    s = _with(h, version, [(1, 0, 0), (3, 0, 0)])
    s = h.turn(s)  # last pawn placed, the turn passed to Bob
    s = apply(s, Fall(pawns=(1, 0, 0)))  # it falls before Bob takes the dice
    assert (s.current, s.phase, s.attempt, s.supply[0]) == (0, "place", 2, (1, 0, 0))
    assert s.round == 1 and s.turn == 1  # back in Anna's turn


def test_a_finished_player_asked_for_a_penalty_pawn_gives_nothing(version, h):
    s = _with(h, version, [(1, 0, 0), (3, 0, 0), (3, 0, 0)])
    s = h.turn(s)  # Anna finishes
    s = h.run(s, h.roll(s, 1))  # Bob: penalty; Anna has no pawn, only Chloe gives
    assert [f.seat for f in s.finishing] == [0]
    assert s.givers == (2,)
    s = apply(s, Give(giver=2, size="small"))
    assert s.supply == ((0, 0, 0), (4, 0, 0), (2, 0, 0)) and s.current == 2


def test_the_last_two_players_finishing_in_one_round_are_ranked_in_order_not_a_draw(version, h):
    s = _with(h, version, [(1, 0, 0), (2, 0, 0), (2, 0, 0)])
    s = h.turn(h.turn(h.turn(s)))  # round 1: Anna finishes
    s = h.turn(h.turn(s))  # round 2: Bob then Chloe finish
    s = apply(s, EndGame())
    assert not s.draw and s.winner == 0
    assert [(f.seat, f.round) for f in s.finishing] == [(0, 1), (1, 2), (2, 2)]
    assert [p["rank"] for p in s.to_json()["players"]] == [1, 2, 3]


def test_draw_same_round_in_two_players_needs_the_first_player_to_finish_first(version, h):
    # Bob (second in the round) finishing in the round Anna finished: draw.
    s = h.turn(h.turn(_with(h, version, [(1, 0, 0), (1, 0, 0)], first=0)))
    assert apply(s, EndGame()).draw
    # Bob is first player: Anna finishes after him in round 1 -> draw; but if Anna finishes first
    # (round 1) and Bob only in round 2, Anna wins.
    s = _with(h, version, [(2, 0, 0), (1, 0, 0)], first=1)
    s = h.turn(s)  # Bob, round 1: done
    s = h.turn(s)  # Anna, round 1: 1 left
    s = h.turn(s)  # Anna, round 2 (Bob skipped): done
    s = apply(s, EndGame())
    assert not s.draw and s.winner == 1


def test_draw_window_cycle_gives_everyone_one_more_turn_after_the_first_finish(version, h):
    # first player Bob; Anna (seat 0) finishes in round 1 as the last of the round, Bob in round 2.
    def play(**options):
        s = _with(h, version, [(1, 0, 0), (2, 0, 0)], first=1, **options)
        s = h.turn(s)  # Bob: 1 left
        s = h.turn(s)  # Anna: done (round 1)
        s = h.turn(s)  # Bob: done (round 2)
        return apply(s, EndGame())
    assert not play().draw  # same round: different rounds -> Anna wins
    assert play(draw_window="round").winner == 0
    cycle = play(draw_window="cycle")
    assert cycle.draw and cycle.winner is None


def test_the_game_ends_only_when_the_table_confirms_the_disc_is_still(version, h):
    s = h.turn(h.turn(_with(h, version, [(1, 0, 0), (0, 0, 1)])), "large")
    assert s.phase == "ending"
    s2 = apply(s, Fall(pawns=(1, 0, 0), placed_fell=False))  # Bob's window: the small is his
    assert s2.phase == "roll" and s2.current == 1 and s2.supply[1] == (1, 0, 0)
    assert [f.seat for f in s2.finishing] == [0]


# ----------------------------------------------------------------- penalty options


def test_a_giver_keeps_their_last_pawn_by_default(version, h):
    s = _with(h, version, [(3, 0, 0), (1, 0, 0), (0, 1, 1)])
    s = apply(s, h.roll(s, 1))
    assert s.givers == (2,)


def test_option_last_pawn_gift_give_makes_the_giver_give_it_and_finish(version, h):
    s = _with(h, version, [(3, 0, 0), (1, 0, 0), (0, 1, 1)], last_pawn_gift="give")
    s = apply(s, h.roll(s, 1))
    assert s.givers == (1, 2)
    s = apply(s, Give(giver=1, size="small"))
    assert [f.seat for f in s.finishing] == [1] and s.winner == 1


def test_unknown_option_and_bad_values_are_rejected():
    with pytest.raises(IllegalAction, match="unknown option 'colours'"):
        initial_state(NewGame(version=1, players=("a", "b"), options=(("colours", 3),)))
    with pytest.raises(IllegalAction, match="draw_window must be one of round, cycle"):
        initial_state(NewGame(version=1, players=("a", "b"), options=(("draw_window", "turn"),)))
    with pytest.raises(IllegalAction, match="distinct"):
        initial_state(NewGame(version=1, players=("a", "a")))
    with pytest.raises(IllegalAction, match="version must be 1 or 2"):
        initial_state(NewGame(version=3, players=("a", "b")))


# ----------------------------------------------------------------- attempts


def test_falls_of_other_pawns_only_do_not_cost_an_attempt(version, h):
    s = h.turn(h.turn(h.start(version), "large"), "medium")  # Anna large, Bob medium
    s = apply(s, Fall(pawns=(0, 0, 1)))  # Anna's large falls in Bob's window: not Bob's placed pawn
    assert s.current == 0 and s.phase == "roll" and s.supply[1] == (8, 7, 9)


def test_a_fall_before_placing_goes_to_the_player_and_costs_no_attempt(version, h):
    s = h.turn(h.start(version), "large")
    s = apply(s, h.roll(s, 3))
    s = apply(s, Fall(pawns=(0, 0, 1)))
    assert (s.phase, s.attempt, s.current, s.supply[1]) == ("place", 1, 1, (8, 8, 9))


def test_unknown_placed_fell_is_assumed_when_a_pawn_of_its_size_fell(version, h):
    s = h.turn(h.turn(h.start(version), "small"), "small")
    s = apply(s, Fall(pawns=(1, 0, 0)))  # could be either small: assumed Bob's placed one
    assert (s.current, s.attempt) == (1, 2)
    s2 = h.turn(h.turn(h.start(version, options={"placed_fell_default": "no"}), "small"), "small")
    s2 = apply(s2, Fall(pawns=(1, 0, 0)))
    assert s2.current == 0 and s2.supply[1] == (8, 8, 8)


def test_placed_fell_must_agree_with_the_sizes_that_fell(version, h):
    s = h.turn(h.start(version), "small")
    with pytest.raises(IllegalAction, match="must be among them"):
        apply(s, Fall(pawns=(1, 0, 0), placed_fell=False))  # the only small on the disc
    s = h.turn(h.turn(h.start(version), "medium"), "small")
    with pytest.raises(IllegalAction, match="no small pawn fell"):
        apply(s, Fall(pawns=(0, 1, 0), placed_fell=True))


def test_the_placed_pawn_falling_during_review_is_a_failed_attempt(version, h):
    s = h.start(version)
    s = apply(s, h.roll(s, 4))
    s = apply(s, Place(size="small", zone=None, number=None, sensed=True))
    s = apply(s, Fall(pawns=(1, 0, 0)))
    assert (s.phase, s.attempt, s.flags) == ("place", 2, ())


# ----------------------------------------------------------------- corrections and confirmation


def test_an_unconfident_fall_waits_for_confirmation_with_the_pawns_in_hand(version, h):
    s = h.turn(h.turn(h.start(version), "large"), "medium")
    s = apply(s, Fall(pawns=(0, 1, 0), confident=False))
    assert s.phase == "confirm_fall" and s.in_hand == (0, 1, 0) and s.disc == (0, 0, 1)
    assert s.to_json()["expected"]["kind"] == "confirm_fall"
    with pytest.raises(IllegalAction, match="confirm what fell first"):
        apply(s, TakeDice())
    fixed = apply(s, ConfirmFall(pawns=(0, 0, 1), placed_fell=False))  # it was the large, not the medium
    right = h.turn(h.turn(h.start(version), "large"), "medium")
    right = apply(right, Fall(pawns=(0, 0, 1), placed_fell=False))
    assert fixed.evolve(last_fall=None) == right.evolve(last_fall=None)
    assert fixed.in_hand == (0, 0, 0)


def test_correct_fall_gives_the_state_a_right_sensing_would_have_given(version, h):
    base = h.turn(h.turn(h.start(version), "large"), "medium")
    wrong = apply(base, Fall(pawns=(0, 1, 0)))  # sensed: Bob's medium (attempt failed)
    assert wrong.current == 1
    fixed = apply(wrong, CorrectFall(pawns=(0, 0, 1), placed_fell=False))  # really Anna's large
    right = apply(base, Fall(pawns=(0, 0, 1), placed_fell=False))
    assert fixed.evolve(last_fall=None) == right.evolve(last_fall=None)
    assert fixed.current == 0 and fixed.supply[1] == (8, 7, 9)


def test_several_falls_after_one_tip_add_up_and_are_corrected_together(version, h):
    base = h.turn(h.turn(h.turn(h.start(version), "large"), "medium"), "small")
    s = h.run(base, Fall(pawns=(0, 0, 1), tipped=True, placed_fell=False), Hand(duration_ms=300),
              Fall(pawns=(0, 1, 0)))
    assert s.last_fall is not None and s.last_fall.pawns == (0, 1, 1)
    assert s.supply[0] == (7, 9, 8) and len(s.flags) == 1  # both go to Anna; the hand flag survives
    s = apply(s, CorrectFall(pawns=(0, 0, 0)))  # nothing fell at all
    assert s.disc == base.disc and s.supply == base.supply and len(s.flags) == 1


def test_correct_fall_needs_a_fall_just_before(version, h):
    s = h.turn(h.start(version))
    with pytest.raises(IllegalAction, match="no just-settled fall"):
        apply(s, CorrectFall(pawns=(1, 0, 0)))
    s = h.run(s, Fall(pawns=(1, 0, 0)), Place(size="small"))
    with pytest.raises(IllegalAction, match="no just-settled fall"):
        apply(s, CorrectFall(pawns=(1, 0, 0)))


def test_correct_size_moves_the_pawn_between_supply_and_disc(version, h):
    s = h.turn(h.start(version), "small")
    s = apply(s, CorrectSize(size="large"))
    assert s.supply[0] == (8, 8, 7) and s.disc == (0, 0, 1) and s.disc_pawns[-1].size == 2
    s = h.turn(s)  # Bob rolled: Anna's window is closed, nothing to correct for her
    s = apply(s, CorrectSize(size="medium"))  # corrects Bob's pawn
    assert s.supply[1] == (8, 7, 8)
    with pytest.raises(IllegalAction, match="already medium"):
        apply(s, CorrectSize(size="medium"))


def test_removed_during_review_is_a_redo_and_otherwise_flagged(version, h):
    s = h.start(version)
    s = h.run(s, h.roll(s, 4), Place(size="medium", zone=None, number=None, sensed=True))
    redo = apply(s, Removed(size="medium"))
    assert redo.phase == "place" and redo.supply[0] == (8, 8, 8) and not redo.flags
    s = h.turn(h.start(version), "large")
    s = apply(s, Removed(size="large"))
    assert s.supply[0] == (8, 8, 8) and s.flags[0].kind == "removed" and s.last_place is None
    s = apply(s, DismissFlag(id=s.flags[0].id))
    assert not s.flags
    with pytest.raises(IllegalAction, match="no large pawn on the disc"):
        apply(s, Removed(size="large"))


def test_a_placement_flag_is_not_dismissed_but_accepted_or_redone(version, h):
    s = h.start(version)
    s = h.run(s, h.roll(s, 4), Place(size="small", zone=None, number=None, sensed=True))
    with pytest.raises(IllegalAction, match="accept_placement or redo_placement"):
        apply(s, DismissFlag(id=s.flags[0].id))
    with pytest.raises(IllegalAction, match="no open flag 99"):
        apply(s, DismissFlag(id=99))
    assert apply(s, AcceptPlacement()).phase == "roll"


# ----------------------------------------------------------------- illegal actions


def test_an_illegal_action_names_the_action_and_the_rule_and_changes_nothing(version, h):
    s = h.start(version)
    snapshot = s.to_json()
    with pytest.raises(IllegalAction) as err:
        apply(s, Place(size="small"))
    assert str(err.value).startswith("place: ") and "(rule: wrong-phase)" in str(err.value)
    assert "roll" in err.value.reason and err.value.rule == "wrong-phase"
    assert s.to_json() == snapshot
    with pytest.raises(IllegalAction, match="wrong-phase"):
        apply(s, Give(giver=1, size="small"))
    with pytest.raises(IllegalAction, match="1 to 6"):
        apply(s, h.roll(s, 7))
    with pytest.raises(IllegalAction, match="already started"):
        apply(s, NewGame(version=1, players=("a", "b")))


def test_nothing_is_legal_once_the_game_is_over(version, h):
    s = apply(h.turn(h.turn(_with(h, version, [(1, 0, 0), (1, 0, 0)]))), EndGame())
    for action in (TakeDice(), Hand(duration_ms=1), EndGame()):
        with pytest.raises(IllegalAction, match="game is over"):
            apply(s, action)
