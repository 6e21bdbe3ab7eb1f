"""Helpers: positions built from square names, dice rolls and moves by name."""

from __future__ import annotations

import pytest

from companion.games.pinuid_dobbal import Move, Roll, apply
from companion.games.pinuid_dobbal.state import Options, State


class Helper:
    """Build positions (pins by square name) and play actions by name."""

    @staticmethod
    def position(mine: str, theirs: str, play: str, current: int = 0, removed=(0, 0), put_back=(0, 0),
                 **options) -> State:
        """A position waiting for ``current``'s roll; ``mine`` = seat 0's pins, ``theirs`` = seat 1's."""
        o = Options(**options)
        b = o.board()
        mask = [sum(1 << b.index[q] for q in group.split()) for group in (mine, theirs)]
        return State(options=o, names=("Anna", "Bob"), pins=(mask[0], mask[1]), play=b.index[play],
                     current=current, removed=removed, put_back=put_back)

    @staticmethod
    def roll(s: State, *dice: int) -> State:
        return apply(s, Roll(tuple(dice)))

    @staticmethod
    def move(s: State, frm: str, to: str) -> State:
        return apply(s, Move(frm, to))

    @staticmethod
    def pins(s: State, seat: int) -> set[str]:
        return set(s.to_json()["pins"][seat])

    @staticmethod
    def moves(s: State) -> set[tuple[str, str]]:
        from companion.games.pinuid_dobbal import legal_actions

        return {(a.frm, a.to) for a in legal_actions(s) if isinstance(a, Move)}


@pytest.fixture
def h() -> Helper:
    return Helper()
