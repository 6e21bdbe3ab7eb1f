"""Helpers for the Dingo Disc rules tests (fixtures only; no test here)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from companion.games.dingo_disc import (
    COLOURS,
    FirstPlayer,
    Match,
    NewGame,
    Place,
    Roll,
    RollColour,
    State,
    apply,
    initial_state,
)

NAMES = ("Anna", "Bob", "Chloe", "Dev", "Emma", "Farid")


def start(version: int = 1, players: int = 2, first: int = 0, options: dict[str, Any] | None = None) -> State:
    """A state ready for the first roll; in version 2 seat i holds colour COLOURS[i]."""
    s = initial_state(NewGame(version=version, players=NAMES[:players],
                              options=tuple(sorted((options or {}).items()))))
    s = apply(s, FirstPlayer(seat=first))
    if version == 2:
        for i in range(players):
            seat = (first + i) % players
            s = apply(s, RollColour(colour=COLOURS[seat]))
    return s


def run(s: State, *actions: Any) -> State:
    """Apply ``actions`` in order."""
    for a in actions:
        s = apply(s, a)
    return s


def roll(s: State, number: int, colour: str = "blue") -> Roll:
    """The roll action for the current player (v2 ignores ``colour``)."""
    return Roll(number=number, colour=colour if s.version == 1 else None)


def turn(s: State, size: str = "small", number: int = 4, colour: str = "blue") -> State:
    """The current player rolls ``number`` and places a ``size`` pawn where rolled."""
    s = apply(s, roll(s, number, colour))
    return apply(s, Place(size=size))


def new_match(version: int = 1, players: int = 2, first: int = 0) -> Match:
    """A Match at the first roll (same setup as :func:`start`)."""
    m = Match(NewGame(version=version, players=NAMES[:players]))
    m.apply(FirstPlayer(seat=first))
    if version == 2:
        for i in range(players):
            m.apply(RollColour(colour=COLOURS[(first + i) % players]))
    return m


@pytest.fixture(params=[1, 2], ids=["v1", "v2"])
def version(request: pytest.FixtureRequest) -> int:
    """Both versions of the rulebook."""
    return request.param


@pytest.fixture
def h() -> Callable[..., Any]:
    """The helpers as one namespace."""
    class H:
        start = staticmethod(start)
        run = staticmethod(run)
        roll = staticmethod(roll)
        turn = staticmethod(turn)
        new_match = staticmethod(new_match)
    return H  # type: ignore[return-value]
