"""The Pinuid Dobbal actions: typed immutable values with a JSON form (see docs/rules-pinuid-dobbal.md).

Squares are named like chess squares (``"c1"``); see :mod:`companion.games.pinuid_dobbal.board`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from companion.games.base import ActionFormatError

GAME = "pinuid-dobbal"


@dataclass(frozen=True, slots=True)
class NewGame:
    """Start a game: two player names (the first starts and plays from row 1) and rule ``options``."""

    type: ClassVar[str] = "new_game"
    players: tuple[str, ...] = ()
    options: tuple[tuple[str, Any], ...] = field(default=())
    game: str = GAME

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "game": self.game, "players": list(self.players),
                "options": dict(self.options)}


@dataclass(frozen=True, slots=True)
class Roll:
    """The three dice (a chance outcome, rolled by the companion or entered): ``dice`` =
    (running die, running die, third die). With the coloured play-pin die the third is the play-pin's."""

    type: ClassVar[str] = "roll"
    dice: tuple[int, int, int] = (1, 1, 1)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "dice": list(self.dice)}


@dataclass(frozen=True, slots=True)
class Assign:
    """Option ``play_pin_die = "chosen"``: the player picks the value of the die that moves the play-pin."""

    type: ClassVar[str] = "assign"
    play: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "play": self.play}


@dataclass(frozen=True, slots=True)
class Move:
    """Move the pin on ``frm`` in a straight line to ``to`` (a running pin in steps 1 and 3, the play-pin
    in step 2)."""

    type: ClassVar[str] = "move"
    frm: str = "a1"
    to: str = "a2"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "from": self.frm, "to": self.to}


@dataclass(frozen=True, slots=True)
class Remove:
    """The double's alternative: take the opponent's running pin on ``at`` off the board (ends the turn)."""

    type: ClassVar[str] = "remove"
    at: str = "a1"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "at": self.at}


@dataclass(frozen=True, slots=True)
class PutBack:
    """The double's alternative: put one of your removed pins back on ``at``, a free square of your own
    back line (ends the turn)."""

    type: ClassVar[str] = "put_back"
    at: str = "a1"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "at": self.at}


Action = NewGame | Roll | Assign | Move | Remove | PutBack
ACTION_TYPES = (NewGame, Roll, Assign, Move, Remove, PutBack)


def _str(data: dict, key: str, tag: str) -> str:
    if key not in data:
        raise ActionFormatError(f"{tag}: missing field {key!r}")
    v = data[key]
    if not isinstance(v, str) or not v:
        raise ActionFormatError(f"{tag}.{key} must be a square name like 'c1', got {v!r}")
    return v


def _int(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ActionFormatError(f"{where} must be a whole number, got {v!r}")
    return v


_FIELDS: dict[str, tuple[str, ...]] = {"new_game": ("game", "players", "options"), "roll": ("dice",),
                                       "assign": ("play",), "move": ("from", "to"), "remove": ("at",),
                                       "put_back": ("at",)}


def action_from_json(data: Any) -> Action:
    """Build a typed action from its JSON object; raise ActionFormatError naming the bad field."""
    if not isinstance(data, dict):
        raise ActionFormatError(f"an action must be a JSON object, got {type(data).__name__}")
    tag = data.get("type")
    if tag not in _FIELDS:
        raise ActionFormatError(f"unknown action type {tag!r}; known: {', '.join(_FIELDS)}")
    for key in data:
        if key != "type" and key not in _FIELDS[tag]:
            raise ActionFormatError(f"{tag}: unknown field {key!r} (fields: {', '.join(_FIELDS[tag])})")
    if tag == "new_game":
        game = data.get("game", GAME)
        if not isinstance(game, str):
            raise ActionFormatError(f"new_game.game must be a string, got {game!r}")
        players = data.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ActionFormatError(f"new_game.players must be a list of names, got {players!r}")
        options = data.get("options", {})
        if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
            raise ActionFormatError(f"new_game.options must be an object, got {options!r}")
        return NewGame(players=tuple(players), options=tuple(sorted(options.items())), game=game)
    if tag == "roll":
        dice = data.get("dice")
        if not isinstance(dice, list) or len(dice) != 3:
            raise ActionFormatError(f"roll.dice must be a list of three numbers, got {dice!r}")
        a, b, c = (_int(d, f"roll.dice[{i}]") for i, d in enumerate(dice))
        return Roll((a, b, c))
    if tag == "assign":
        if "play" not in data:
            raise ActionFormatError("assign: missing field 'play'")
        return Assign(_int(data["play"], "assign.play"))
    if tag == "move":
        return Move(_str(data, "from", tag), _str(data, "to", tag))
    if tag == "remove":
        return Remove(_str(data, "at", tag))
    return PutBack(_str(data, "at", tag))
