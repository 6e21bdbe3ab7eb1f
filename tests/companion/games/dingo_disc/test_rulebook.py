"""One test per rule of the Dingo Disc rulebook, for both versions (``[v1]`` / ``[v2]``)."""

from __future__ import annotations

import pytest

from companion.games.base import IllegalAction
from companion.games.dingo_disc import (
    COLOURS,
    AcceptPlacement,
    EndGame,
    Fall,
    FirstPlayer,
    Give,
    Hand,
    NewGame,
    Place,
    RedoPlacement,
    Roll,
    RollColour,
    TakeDice,
    apply,
    initial_state,
)

NAMES = ("Anna", "Bob", "Chloe", "Dev", "Emma", "Farid")


# ----------------------------------------------------------------- 1. Allocation of pawns


@pytest.mark.parametrize(("players", "each"), [(2, 8), (3, 6), (4, 5), (5, 4), (6, 3)])
def test_allocation_of_pawns_follows_the_table(version, players, each):
    s = initial_state(NewGame(version=version, players=NAMES[:players]))
    assert s.supply == ((each, each, each),) * players
    js = s.to_json()
    assert [p["supply"] for p in js["players"]] == [{"small": each, "medium": each, "large": each}] * players


@pytest.mark.parametrize("players", [0, 1, 7])
def test_allocation_of_pawns_needs_2_to_6_players(version, players):
    with pytest.raises(IllegalAction, match="2 to 6 players"):
        initial_state(NewGame(version=version, players=NAMES[:players] + ("X",) * max(0, players - 6)))


# ----------------------------------------------------------------- 2. Rolling the dice: first player


def test_the_first_player_rolls_first(version, h):
    s = h.start(version, players=4, first=2)
    assert s.current == 2 and s.phase == "roll"
    assert s.to_json()["expected"]["kind"] == "roll" and s.to_json()["expected"]["player"] == 2


def test_the_first_player_may_be_drawn_by_the_companion(version):
    s = initial_state(NewGame(version=version, players=NAMES[:3]))
    assert s.to_json()["expected"]["kind"] == "first_player"
    s = apply(s, FirstPlayer(seat=1, drawn=True))
    assert s.first == 1 and s.current == 1


def test_nobody_rolls_before_the_first_player_is_known(version):
    s = initial_state(NewGame(version=version, players=NAMES[:2]))
    with pytest.raises(IllegalAction, match="wrong-phase"):
        apply(s, Roll(number=3, colour="red" if version == 1 else None))


# ----------------------------------------------------------------- 3. Result of the roll


def test_v1_colour_die_gives_the_zone_and_number_die_the_position(h):
    s = h.run(h.start(1), Roll(number=5, colour="green"))
    e = s.to_json()["expected"]
    assert (e["kind"], e["zone"], e["number"]) == ("place", "green", 5)
    assert e["prompt"] == "Anna: place a pawn of your choice in GREEN 5"


def test_v1_a_roll_needs_both_dice(h):
    with pytest.raises(IllegalAction, match="both dice"):
        apply(h.start(1), Roll(number=3))


def test_v2_the_number_die_gives_the_position_in_the_players_own_colour_zone(h):
    s = h.start(2)  # Anna holds red, Bob yellow
    s = apply(s, Roll(number=3))
    e = s.to_json()["expected"]
    assert (e["zone"], e["number"]) == ("red", 3)
    s = apply(s, Place(size="small"))
    s = apply(s, Roll(number=6))
    assert (s.dice_colour, s.dice_number) == ("yellow", 6)


def test_v2_a_roll_in_another_colour_is_illegal(h):
    with pytest.raises(IllegalAction, match="own colour"):
        apply(h.start(2), Roll(number=3, colour="blue"))


def test_the_player_places_one_pawn_of_the_size_of_their_choice(version, h):
    for size, idx in (("small", 0), ("medium", 1), ("large", 2)):
        s = h.turn(h.start(version), size=size)
        assert s.supply[0][idx] == 7 and sum(s.supply[0]) == 23
        assert s.disc[idx] == 1 and sum(s.disc) == 1


def test_a_player_cannot_place_a_size_they_do_not_hold(version, h):
    s = h.start(version).evolve(supply=((0, 8, 8), (8, 8, 8)))
    s = apply(s, h.roll(s, 4))
    with pytest.raises(IllegalAction, match="no small pawn"):
        apply(s, Place(size="small"))


def test_face_1_penalty_each_other_player_gives_one_pawn_of_their_choice(version, h):
    s = h.start(version, players=4)
    s = apply(s, h.roll(s, 1))
    assert s.phase == "penalty" and s.givers == (1, 2, 3)
    e = s.to_json()["expected"]
    assert (e["kind"], e["player"], e["receiver"]) == ("give", 1, 0)
    s = h.run(s, Give(giver=1, size="large"), Give(giver=2, size="small"), Give(giver=3, size="large"))
    assert s.supply == ((6, 5, 7), (5, 5, 4), (4, 5, 5), (5, 5, 4))
    assert sum(s.disc) == 0  # the player passes without placing
    assert s.current == 1 and s.phase == "roll"


def test_face_1_penalty_givers_go_in_seat_order_from_the_players_left(version, h):
    s = h.start(version, players=3, first=1)
    s = apply(s, h.roll(s, 1))
    assert s.givers == (2, 0)
    with pytest.raises(IllegalAction, match="Chloe gives now"):
        apply(s, Give(giver=0, size="small"))


def test_face_1_penalty_a_giver_must_give_a_size_they_hold(version, h):
    s = h.start(version, players=2).evolve(supply=((8, 8, 8), (0, 3, 0)))
    s = apply(s, h.roll(s, 1))
    assert s.to_json()["expected"]["sizes"] == ["medium"]
    with pytest.raises(IllegalAction, match="Bob has no small pawn") as err:
        apply(s, Give(giver=1, size="small"))
    assert err.value.rule == "penalty-giver-chooses-a-size-they-hold"


def test_face_1_penalty_a_giver_with_no_pawn_gives_nothing(version, h):
    s = h.start(version, players=3).evolve(supply=((8, 8, 8), (0, 0, 0), (2, 0, 0)))
    s = apply(s, h.roll(s, 1))
    assert s.givers == (2,)
    s = apply(s, Give(giver=2, size="small"))
    assert s.supply == ((9, 8, 8), (0, 0, 0), (1, 0, 0))


def test_if_the_pawn_stays_the_game_continues_with_the_next_player(version, h):
    s = h.turn(h.start(version, players=3))
    assert s.current == 1 and s.phase == "roll"
    assert s.window is not None and s.window.seat == 0
    s = h.turn(s)
    assert s.current == 2


def test_if_the_disc_tips_the_player_picks_up_the_fallen_pawns_and_the_others_stay(version, h):
    s = h.start(version, players=2)
    s = h.turn(s, "large")   # Anna
    s = h.turn(s, "medium")  # Bob
    s = h.turn(s, "small")   # Anna
    s = h.turn(s, "large")   # Bob places; then the disc tips
    s = apply(s, Fall(pawns=(1, 1, 0), tipped=True, placed_fell=False))
    assert s.supply[1] == (8 + 1, 7 + 1, 7)  # Bob (fall window) picks up a small and a medium
    assert s.disc == (0, 0, 2)  # the pawns that did not fall stay
    assert s.current == 0  # the game continues with the next player


# ----------------------------------------------------------------- 4. End of the game


def _nearly_done(h, version, supplies, first=0):
    return h.start(version, players=len(supplies), first=first).evolve(supply=tuple(supplies))


def test_the_winner_is_the_first_to_place_all_their_pawns(version, h):
    s = _nearly_done(h, version, [(1, 0, 0), (2, 0, 0), (3, 0, 0)])
    s = h.turn(s)  # Anna places her last pawn
    assert s.finishing == ()  # not final while her fall window is open
    s = apply(s, TakeDice())
    assert [f.seat for f in s.finishing] == [0] and s.winner == 0
    assert s.to_json()["players"][0]["rank"] == 1


def test_the_others_continue_until_they_have_used_all_their_pawns(version, h):
    s = _nearly_done(h, version, [(1, 0, 0), (2, 0, 0), (1, 0, 0)])
    s = h.turn(s)  # Anna done (round 1)
    s = h.turn(s)  # Bob 1 left
    assert s.current == 2
    s = h.turn(s)  # Chloe done
    assert s.current == 1  # finished Anna is skipped
    s = h.turn(s)  # Bob done: every pawn placed
    assert s.phase == "ending" and s.to_json()["expected"]["kind"] == "end_game"
    s = apply(s, EndGame())
    assert s.phase == "over" and not s.draw
    assert [f.seat for f in s.finishing] == [0, 2, 1]
    assert [p["rank"] for p in s.to_json()["players"]] == [1, 3, 2]
    assert s.to_json()["expected"]["prompt"] == "Game over: Anna wins"


def test_if_all_players_place_all_their_pawns_in_the_same_turn_it_is_a_draw(version, h):
    s = _nearly_done(h, version, [(1, 0, 0), (0, 1, 0), (0, 0, 1)])
    s = h.turn(s, "small")
    s = h.turn(s, "medium")
    s = h.turn(s, "large")
    s = apply(s, EndGame())
    assert s.draw and s.winner is None
    assert [p["rank"] for p in s.to_json()["players"]] == [1, 1, 1]
    assert "draw" in s.to_json()["expected"]["prompt"]


def test_no_draw_when_the_finishes_span_two_rounds(version, h):
    s = _nearly_done(h, version, [(1, 0, 0), (2, 0, 0)], first=0)
    s = h.turn(s)  # Anna done in round 1
    s = h.turn(s)  # Bob, round 1: 1 left
    s = h.turn(s)  # Bob again in round 2 (Anna skipped): done
    s = apply(s, EndGame())
    assert not s.draw and s.winner == 0


# ----------------------------------------------------------------- 5. Recommendations


def test_it_is_forbidden_to_hold_the_disc_with_your_hands(version, h):
    s = h.run(h.start(version), h.roll(h.start(version), 4))
    s = apply(s, Hand(duration_ms=1500))
    flag = s.flags[0]
    assert (flag.kind, flag.player) == ("hand", 0)
    assert "forbidden to hold the disc" in flag.reason
    assert s.phase == "place"  # no automatic penalty: the host dismisses it or the table redoes


def test_do_not_place_pawns_straddling_the_lines(version, h):
    s = h.start(version)
    s = apply(s, h.roll(s, 4))
    s = apply(s, Place(size="small", zone=None, number=None, x_mm=0.0, y_mm=60.0, sensed=True))
    assert s.phase == "review"
    e = s.to_json()["expected"]
    assert e["kind"] == "review_placement" and "a line" in e["prompt"]
    redo = apply(s, RedoPlacement())
    assert redo.phase == "place" and redo.supply[0] == (8, 8, 8) and sum(redo.disc) == 0 and not redo.flags
    accepted = apply(s, AcceptPlacement())
    assert accepted.current == 1 and not accepted.flags and accepted.disc == (1, 0, 0)


def test_a_placement_sensed_in_the_wrong_position_is_flagged(version, h):
    s = h.start(version)
    s = apply(s, h.roll(s, 4))
    zone = s.dice_colour
    other = next(c for c in COLOURS if c != zone)
    s = apply(s, Place(size="small", zone=other, number=4, sensed=True))
    assert s.phase == "review" and s.flags[0].kind == "placement"
    assert f"{other.upper()} 4" in s.flags[0].reason


def test_after_2_attempts_the_player_keeps_the_pawn_and_passes(version, h):
    s = h.start(version)
    s = h.turn(s, "large")
    s = apply(s, Fall(pawns=(0, 0, 1)))  # attempt 1 fell: Anna places again, same dice
    assert (s.current, s.phase, s.attempt) == (0, "place", 2)
    assert s.to_json()["expected"]["prompt"].endswith("(attempt 2)")
    s = apply(s, Place(size="large"))
    s = apply(s, Fall(pawns=(0, 0, 1)))  # attempt 2 fell: she keeps it and passes
    assert s.current == 1 and s.phase == "roll"
    assert s.supply[0] == (8, 8, 8) and sum(s.disc) == 0


def test_as_long_as_the_next_player_has_not_taken_the_dice_fallen_pawns_are_for_the_previous_player(
        version, h):
    s = h.turn(h.turn(h.start(version), "large"), "medium")  # Anna then Bob placed
    before = apply(s, Fall(pawns=(0, 0, 1)))  # Anna has not taken the dice: Bob's window
    assert before.supply[1] == (8, 7, 9) and before.supply[0] == (8, 8, 7)
    after = h.run(s, TakeDice(), Fall(pawns=(0, 0, 1)))  # Anna took the dice: hers now
    assert after.supply[0] == (8, 8, 8) and after.supply[1] == (8, 7, 8)


def test_rolling_the_dice_is_taking_the_dice(version, h):
    s = h.turn(h.start(version), "large")
    s = apply(s, h.roll(s, 3))
    assert s.window is None
    s = apply(s, Fall(pawns=(0, 0, 1)))
    assert s.supply[1] == (8, 8, 9)


# ----------------------------------------------------------------- Version 2: colour assignment


def test_v2_each_player_in_turn_rolls_the_colour_die(h):
    s = apply(initial_state(NewGame(version=2, players=NAMES[:3])), FirstPlayer(seat=1))
    assert s.to_json()["expected"]["kind"] == "roll_colour" and s.current == 1
    s = apply(s, RollColour(colour="blue"))
    assert s.current == 2
    s = apply(s, RollColour(colour="red"))
    s = apply(s, RollColour(colour="green"))
    assert s.colours == ("green", "blue", "red") and s.phase == "roll" and s.current == 1


def test_v2_only_one_player_per_colour_a_taken_colour_is_rolled_again(h):
    s = apply(initial_state(NewGame(version=2, players=NAMES[:2])), FirstPlayer(seat=0))
    s = apply(s, RollColour(colour="blue"))
    s = apply(s, RollColour(colour="blue"))  # taken: logged, Bob rolls again
    assert s.current == 1 and s.colours == ("blue", None)
    e = s.to_json()["expected"]
    assert e["retry"] and e["taken"] == ["blue"] and "BLUE is taken" in e["prompt"]
    s = apply(s, RollColour(colour="orange"))
    assert s.colours == ("blue", "orange") and [r.taken for r in s.colour_rolls] == [False, True, False]


def test_v1_has_no_colour_assignment(h):
    s = apply(initial_state(NewGame(version=1, players=NAMES[:2])), FirstPlayer(seat=0))
    with pytest.raises(IllegalAction, match="wrong-phase"):
        apply(s, RollColour(colour="red"))


# ----------------------------------------------------------------- Tips and the attempt (docs/rules.md)


def test_a_tip_taking_the_placed_pawn_is_a_failed_attempt_by_default(version, h):
    s = h.turn(h.start(version), "large")
    s = apply(s, Fall(pawns=(0, 0, 1), tipped=True))
    assert (s.current, s.phase, s.attempt) == (0, "place", 2)


def test_option_tip_attempt_pass_a_tip_passes_the_turn_with_the_fallen_pawns_back(version, h):
    s = h.turn(h.start(version, options={"tip_attempt": "pass"}), "large")
    s = apply(s, Fall(pawns=(0, 0, 1), tipped=True))
    assert s.current == 1 and s.phase == "roll"
    assert s.supply[0] == (8, 8, 8) and sum(s.disc) == 0


def test_option_tip_attempt_pass_keeps_the_retry_when_the_placed_pawn_falls_alone(version, h):
    s = h.turn(h.start(version, options={"tip_attempt": "pass"}), "large")
    s = apply(s, Fall(pawns=(0, 0, 1), tipped=False))
    assert (s.current, s.phase, s.attempt) == (0, "place", 2)
