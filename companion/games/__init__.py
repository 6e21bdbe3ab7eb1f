"""The rules cores of the games the companion referees (pure: no I/O, clock, randomness, threads).

``GAMES`` maps a game name to its rules object (a :class:`GameModule`); it is built by
:func:`games_registry` and is read-only. Adding a game = one line in ``modules`` below: the table,
the page, the session log, the exports, the CLI and the generic game test suite then take it up.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from companion.games.base import (
    CHANCE,
    ActionFormatError,
    GameModule,
    GameRules,
    IllegalAction,
    LegalAction,
    Outcome,
    SetupOption,
    SetupSpec,
    StateFormatError,
    ToMove,
)


def games_registry() -> Mapping[str, GameModule]:
    """Build the read-only registry ``{name: rules}`` of every available game."""
    from companion.games.dingo_cards import DingoCardsRules
    from companion.games.dingo_disc import DINGO_DISC
    from companion.games.dodos import DodosRules
    from companion.games.pinuid_dobbal import PinuidDobbalRules

    modules: list[GameModule] = [
        DINGO_DISC,
        DingoCardsRules(),
        PinuidDobbalRules(),
        DodosRules(),
    ]
    return MappingProxyType({m.name: m for m in modules})


GAMES: Mapping[str, GameModule] = games_registry()


def get_game(name: str) -> GameModule:
    """Return the rules of game ``name``; raise ``KeyError`` naming the known games if unknown."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}") from None


__all__ = ["CHANCE", "GAMES", "ActionFormatError", "GameModule", "GameRules", "IllegalAction", "LegalAction",
           "Outcome", "SetupOption", "SetupSpec", "StateFormatError", "ToMove", "games_registry", "get_game"]
