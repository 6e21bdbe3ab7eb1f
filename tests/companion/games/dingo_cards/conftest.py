"""Helpers for the Dingo card game tests (fixtures only; no test here).

Seats: Ana 0, Ben 1, Cleo 2, Dev 3, clockwise; Ana deals first unless told otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest

from companion.games.dingo_cards import (
    Deal,
    Discard,
    Exchange,
    FirstDealer,
    NewGame,
    NoHeart,
    Pass,
    Play,
    State,
    apply,
    initial_state,
    legal_actions,
)
from companion.games.dingo_cards.cards import HUNT_RANKS, heart

NAMES = ("Ana", "Ben", "Cleo", "Dev")

QUIET_DISCARDS = tuple(suit + r for r in "23456789" for suit in "CS")
"""16 discards that leave the hunts 2..9 without wolves and every card of 10..A in the hands."""


class Helper:
    """Builds game states the way a host would enter them."""

    names = NAMES

    @staticmethod
    def new(options: dict[str, Any] | None = None) -> State:
        return initial_state(NewGame(players=NAMES, options=tuple(sorted((options or {}).items()))))

    def dealt(self, options: dict[str, Any] | None = None, dealer: int = 0) -> State:
        s = apply(self.new(options), FirstDealer(seat=dealer))
        return apply(s, Deal(seat=dealer))

    @staticmethod
    def exchange_all(s: State) -> State:
        """Every player gives their card, in the order the companion asks for."""
        while s.phase == "exchange":
            s = apply(s, next(la.action for la in legal_actions(s) if isinstance(la.action, Exchange)))
        return s

    def discards(self, s: State, cards: tuple[str, ...] = QUIET_DISCARDS) -> State:
        """The four discard rounds (seat k discards cards[4*round + k]) with the exchanges between them."""
        assert len(cards) == 16
        for r in range(4):
            for seat in range(4):
                s = apply(s, Discard(seat=seat, card=cards[4 * r + seat]))
            s = self.exchange_all(s)
        return s

    def hunts(self, options: dict[str, Any] | None = None, cards: tuple[str, ...] = QUIET_DISCARDS,
              dealer: int = 0) -> State:
        """A state at the start of the hunts (rank 2 announced)."""
        s = self.discards(self.dealt(options, dealer), cards)
        assert s.phase == "hunt" and s.rank == "2"
        return s

    @staticmethod
    def quiet_hunt(s: State, heart_seat: int | None = None) -> State:
        """Play the current rank: the heart by ``heart_seat`` (by default seats take turns: the 2 Ana,
        the 3 Ben...), or no heart if it was discarded; then everyone passes."""
        rank = s.rank
        if heart_seat is None:
            heart_seat = HUNT_RANKS.index(rank or "") % 4
        if heart(s.rank or "") in s.discards:
            return apply(s, NoHeart(seat=s.dealer or 0))
        s = apply(s, Play(seat=heart_seat, cards=(heart(s.rank or ""),)))
        while s.rank == rank and s.lap:
            s = apply(s, Pass(seat=s.lap[0]))
        return s

    def to_rank(self, s: State, rank: str, heart_seat: int | None = None) -> State:
        """Quiet hunts until ``rank`` ("A" for the ace hunt) is announced."""
        target = HUNT_RANKS.index(rank) if rank != "A" else len(HUNT_RANKS)
        while s.phase == "hunt" and HUNT_RANKS.index(s.rank or "") < target:
            s = self.quiet_hunt(s, heart_seat)
        return s


@pytest.fixture
def h() -> Helper:
    return Helper()
