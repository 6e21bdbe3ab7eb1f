"""The rules cores of the games the companion referees (pure: no I/O, clock, randomness, threads).

``GAMES`` maps a game name to its rules object; it is built by :func:`games_registry` and is
read-only.
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


def games_registry() -> Mapping[str, GameRules]:
    """Build the read-only registry ``{name: rules}`` of every available game."""
    from companion.games.dingo_disc import DingoDiscRules
    from companion.games.pinuid_dobbal import PinuidDobbalRules

    games = [DingoDiscRules(), PinuidDobbalRules()]
    return MappingProxyType({rules.name: rules for rules in games})


GAMES: Mapping[str, GameRules] = games_registry()


def get_game(name: str) -> GameRules:
    """Return the rules of game ``name``; raise ``KeyError`` naming the known games if unknown."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}") from None


__all__ = ["CHANCE", "GAMES", "ActionFormatError", "GameModule", "GameRules", "IllegalAction", "LegalAction",
           "Outcome", "SetupOption", "SetupSpec", "StateFormatError", "ToMove", "games_registry", "get_game"]
