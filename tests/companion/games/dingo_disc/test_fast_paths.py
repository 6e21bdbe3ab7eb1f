"""The speed-ups of the rules core keep its behaviour: field positions, seat order, fall bookkeeping."""

from __future__ import annotations

import random

import pytest

from companion.bench.rules import _HELD, _PLACE_CHOICES, TABLE_CHAOS, Chaos, next_action, random_game
from companion.games.dingo_disc import apply, initial_state
from companion.games.dingo_disc import state as state_module
from companion.games.dingo_disc.actions import SIZES
from companion.games.dingo_disc.falls import _remove_positions
from companion.games.dingo_disc.state import PAWNS_PER_SIZE, STATE_FIELDS, State
from companion.games.dingo_disc.turns import SEATS_AFTER


def test_field_positions_name_the_state_fields_in_order():
    for i, name in enumerate(STATE_FIELDS):
        constant = "COLOURS_AT" if name == "colours" else name.upper()
        assert getattr(state_module, constant) == i, name
    assert len(STATE_FIELDS) == len(State._fields) == 28


@pytest.mark.parametrize("n", range(2, 7))
def test_seats_after_go_left_and_end_with_the_seat_itself(n):
    for seat in range(n):
        assert SEATS_AFTER[n][seat] == tuple((seat + i) % n for i in range(1, n + 1))


def _remove_positions_reference(s: State, pawns, placed_fell: bool) -> tuple:
    """The first (slower) implementation: per size, the k highest (number, position) entries go."""
    items = list(s.disc_pawns)
    todo = list(pawns)
    if placed_fell:
        gone = items.pop()
        todo[gone.size] -= 1
    keep_last = s.last_place is not None and not placed_fell
    for idx in range(3):
        k = todo[idx]
        if not k:
            continue
        limit = len(items) - 1 if keep_last else len(items)
        cands = sorted((i for i in range(limit) if items[i].size == idx),
                       key=lambda i: (items[i].number or 0, i), reverse=True)[:k]
        for i in sorted(cands, reverse=True):
            del items[i]
    return tuple(items)


def test_fallen_pawns_leave_the_same_positions_as_the_reference():
    rng = random.Random(7)
    checked = 0
    for game in range(12):
        _, actions = random_game(rng, 2 + game % 5, 1 + game % 2, chaos=Chaos())
        s = initial_state(actions[0])
        for action in actions[1:]:
            if sum(s.disc) and s.phase != "over":
                pawns = tuple(rng.randint(0, min(s.disc[i], 3)) for i in range(3))
                choices = [False] if s.last_place is None or not pawns[s.last_place.size] else [False, True]
                for placed_fell in choices:
                    assert _remove_positions(s, pawns, placed_fell) == \
                        _remove_positions_reference(s, pawns, placed_fell)
                    checked += 1
            s = apply(s, action)
    assert checked > 500


def test_random_game_stops_at_max_actions_only_when_the_game_is_not_over():
    final, actions = random_game(random.Random(3), 3, 2, chaos=TABLE_CHAOS)
    played = len(actions) - 1  # new_game is not played by the random player
    again, same = random_game(random.Random(3), 3, 2, chaos=TABLE_CHAOS, max_actions=played)
    assert again == final and same == actions
    with pytest.raises(RuntimeError, match=f"game did not end within {played - 1} actions"):
        random_game(random.Random(3), 3, 2, chaos=TABLE_CHAOS, max_actions=played - 1)


def test_chaos_derives_its_disruption_probability():
    assert Chaos().any_ == pytest.approx(0.3 + 0.02 + 2 * 0.05 + 0.12)
    assert Chaos(fall=0.9, hand=0.5).any_ == 1.0
    assert Chaos(fall=0.1) == Chaos(fall=0.1) and "any_" not in repr(Chaos())


@pytest.mark.parametrize("seed", range(4))
def test_next_action_is_one_step_of_the_random_game_loop(seed):
    chaos = Chaos(budget=60)  # calm actions too
    players = 2 + seed % 5
    _, actions = random_game(random.Random(seed), players, 1 + seed % 2, chaos=chaos)
    rng = random.Random(seed)  # the same draws, one action at a time
    s = initial_state(actions[0])
    for count, action in enumerate(actions[1:], start=1):
        assert next_action(rng, s, chaos, count > chaos.budget) == action
        s = apply(s, action)
    assert s.phase == "over" and len(actions) > chaos.budget
    with pytest.raises(RuntimeError, match="no action possible in phase over"):
        next_action(rng, s, chaos, False)


def test_held_size_tables_cover_every_supply_a_player_can_hold():
    most = max(n * k for n, k in PAWNS_PER_SIZE.items())  # every pawn of one size in the game
    assert len(_HELD) == len(_PLACE_CHOICES) == (most + 1) ** 3
    for counts, sizes in _HELD.items():
        assert sizes == tuple(i for i in range(3) if counts[i] > 0)
        assert [p.size for p in _PLACE_CHOICES[counts]] == [SIZES[i] for i in sizes]
