"""The Dingo Disc actions: typed immutable values with a JSON form (see ``docs/actions.md``).

Every dice result, draw, choice and sensed event that matters to the rules is one of these.
Pawn counts are tuples ``(small, medium, large)`` in Python and ``{"small": n, ...}`` in JSON.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, ClassVar

from companion.games.base import ActionFormatError

SIZES: tuple[str, ...] = ("small", "medium", "large")
"""Pawn sizes, in the order used by every count tuple."""

COLOURS: tuple[str, ...] = ("red", "yellow", "green", "blue", "purple", "orange")
"""The colour die's faces, which are also the disc zones (same order as the disc layout)."""

Counts = tuple[int, int, int]


def counts_to_json(counts: Counts) -> dict[str, int]:
    """``(s, m, l)`` -> ``{"small": s, "medium": m, "large": l}``."""
    return {"small": counts[0], "medium": counts[1], "large": counts[2]}


def counts_from_json(data: Any, where: str) -> Counts:
    """Parse a pawn-count object (missing sizes are 0); raise ActionFormatError naming ``where``."""
    if not isinstance(data, dict):
        raise ActionFormatError(f"{where} must be an object like {{\"small\": 1}}, got {data!r}")
    for key in data:
        if key not in SIZES:
            raise ActionFormatError(f"{where}: unknown size {key!r} (sizes: small, medium, large)")
    out = []
    for size in SIZES:
        n = data.get(size, 0)
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ActionFormatError(f"{where}.{size} must be a whole number >= 0, got {n!r}")
        out.append(n)
    return (out[0], out[1], out[2])


# Field kinds understood by the generic JSON parser.
_KINDS = ("int", "str", "bool", "size", "colour", "counts", "names", "options", "float")


def _check(kind: str, value: Any, where: str, nullable: bool) -> Any:
    if value is None:
        if nullable:
            return None
        raise ActionFormatError(f"{where} must not be null")
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ActionFormatError(f"{where} must be a whole number, got {value!r}")
        return value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ActionFormatError(f"{where} must be a finite number, got {value!r}")
        return float(value)
    if kind == "str":
        if not isinstance(value, str):
            raise ActionFormatError(f"{where} must be a string, got {value!r}")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise ActionFormatError(f"{where} must be true or false, got {value!r}")
        return value
    if kind == "size":
        if value not in SIZES:
            raise ActionFormatError(f"{where} must be one of small, medium, large, got {value!r}")
        return value
    if kind == "colour":
        if value not in COLOURS:
            raise ActionFormatError(f"{where} must be one of {', '.join(COLOURS)}, got {value!r}")
        return value
    if kind == "counts":
        return counts_from_json(value, where)
    if kind == "names":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ActionFormatError(f"{where} must be a list of names, got {value!r}")
        return tuple(value)
    if kind == "options":
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise ActionFormatError(f"{where} must be an object, got {value!r}")
        return tuple(sorted(value.items()))
    raise AssertionError(kind)  # pragma: no cover


@dataclass(frozen=True, slots=True)
class Action:
    """Base of every action; ``type`` is the JSON tag."""

    type: ClassVar[str] = ""
    # name -> (kind, required, nullable)
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {}

    def to_json(self) -> dict[str, Any]:
        """The JSON object of this action (``type`` first)."""
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            value = getattr(self, f.name)
            kind = self.schema[f.name][0]
            if value is None:
                out[f.name] = None
            elif kind == "counts":
                out[f.name] = counts_to_json(value)
            elif kind == "names":
                out[f.name] = list(value)
            elif kind == "options":
                out[f.name] = dict(value)
            else:
                out[f.name] = value
        return out


@dataclass(frozen=True, slots=True)
class NewGame(Action):
    """Start a game: ``version`` 1 or 2, player names in seat order, rule ``options``."""

    type: ClassVar[str] = "new_game"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {
        "game": ("str", False, False), "version": ("int", True, False),
        "players": ("names", True, False), "options": ("options", False, False)}
    version: int = 1
    players: tuple[str, ...] = ()
    game: str = "dingo-disc"
    options: tuple[tuple[str, Any], ...] = field(default=())


@dataclass(frozen=True, slots=True)
class FirstPlayer(Action):
    """The first player: named by the host, or ``drawn`` by the companion (the draw is done outside)."""

    type: ClassVar[str] = "first_player"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"seat": ("int", True, False),
                                                           "drawn": ("bool", False, False)}
    seat: int = 0
    drawn: bool = False


@dataclass(frozen=True, slots=True)
class RollColour(Action):
    """Version 2 colour assignment: the expected player rolled ``colour`` on the colour die."""

    type: ClassVar[str] = "roll_colour"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"colour": ("colour", True, False)}
    colour: str = "red"


@dataclass(frozen=True, slots=True)
class TakeDice(Action):
    """The next player takes the dice: closes the previous player's fall window."""

    type: ClassVar[str] = "take_dice"


@dataclass(frozen=True, slots=True)
class Roll(Action):
    """The current player's roll: ``number`` 1..6 and (version 1 only) ``colour``."""

    type: ClassVar[str] = "roll"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"number": ("int", True, False),
                                                           "colour": ("colour", False, True)}
    number: int = 2
    colour: str | None = None


@dataclass(frozen=True, slots=True)
class Give(Action):
    """Penalty: ``giver`` gives one pawn of ``size`` (their choice) to the penalised player."""

    type: ClassVar[str] = "give"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"giver": ("int", True, False),
                                                           "size": ("size", True, False)}
    giver: int = 0
    size: str = "small"


@dataclass(frozen=True, slots=True)
class Place(Action):
    """The current player put a pawn of ``size`` on the disc (see docs/actions.md for zone/number)."""

    type: ClassVar[str] = "place"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {
        "size": ("size", True, False), "zone": ("colour", False, True), "number": ("int", False, True),
        "x_mm": ("float", False, True), "y_mm": ("float", False, True), "sensed": ("bool", False, False)}
    size: str = "small"
    zone: str | None = None
    number: int | None = None
    x_mm: float | None = None
    y_mm: float | None = None
    sensed: bool = False


@dataclass(frozen=True, slots=True)
class AcceptPlacement(Action):
    """The table accepts a flagged placement as it stands."""

    type: ClassVar[str] = "accept_placement"


@dataclass(frozen=True, slots=True)
class RedoPlacement(Action):
    """The flagged pawn was picked up; the player places again (same attempt)."""

    type: ClassVar[str] = "redo_placement"


@dataclass(frozen=True, slots=True)
class Fall(Action):
    """Pawns fell off the disc; ``placed_fell`` None = unknown; ``confident`` False asks to confirm."""

    type: ClassVar[str] = "fall"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {
        "pawns": ("counts", True, False), "tipped": ("bool", False, False),
        "placed_fell": ("bool", False, True), "confident": ("bool", False, False)}
    pawns: Counts = (0, 0, 0)
    tipped: bool = False
    placed_fell: bool | None = None
    confident: bool = True


@dataclass(frozen=True, slots=True)
class ConfirmFall(Action):
    """The table confirms an unconfident fall, optionally correcting the pawns / placed_fell."""

    type: ClassVar[str] = "confirm_fall"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"pawns": ("counts", False, True),
                                                           "placed_fell": ("bool", False, True)}
    pawns: Counts | None = None
    placed_fell: bool | None = None


@dataclass(frozen=True, slots=True)
class CorrectFall(Action):
    """The host corrects the last fall: what really fell (and whether the placed pawn did)."""

    type: ClassVar[str] = "correct_fall"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"pawns": ("counts", True, False),
                                                           "placed_fell": ("bool", False, True)}
    pawns: Counts = (0, 0, 0)
    placed_fell: bool | None = None


@dataclass(frozen=True, slots=True)
class CorrectSize(Action):
    """The host corrects the size of the last placed pawn."""

    type: ClassVar[str] = "correct_size"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"size": ("size", True, False)}
    size: str = "small"


@dataclass(frozen=True, slots=True)
class Hand(Action):
    """A hand held the disc for ``duration_ms`` (forbidden): flags the current player."""

    type: ClassVar[str] = "hand"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"duration_ms": ("int", False, False)}
    duration_ms: int = 0


@dataclass(frozen=True, slots=True)
class DismissFlag(Action):
    """The host dismisses open flag ``id`` (hand or removed flags)."""

    type: ClassVar[str] = "dismiss_flag"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"id": ("int", True, False)}
    id: int = 0


@dataclass(frozen=True, slots=True)
class Removed(Action):
    """A pawn of ``size`` was lifted off the disc by hand."""

    type: ClassVar[str] = "removed"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"size": ("size", True, False)}
    size: str = "small"


@dataclass(frozen=True, slots=True)
class EndGame(Action):
    """Everyone has placed all pawns and the disc is still: the game is over."""

    type: ClassVar[str] = "end_game"


ACTION_TYPES: tuple[type[Action], ...] = (
    NewGame, FirstPlayer, RollColour, TakeDice, Roll, Give, Place, AcceptPlacement, RedoPlacement, Fall,
    ConfirmFall, CorrectFall, CorrectSize, Hand, DismissFlag, Removed, EndGame)
"""Every action class, in the order of docs/actions.md."""


def action_from_json(data: Any) -> Action:
    """Build a typed action from its JSON object; raise ActionFormatError naming the problem."""
    if not isinstance(data, dict):
        raise ActionFormatError(f"an action must be a JSON object, got {type(data).__name__}")
    tag = data.get("type")
    cls = _BY_TYPE.get(tag) if isinstance(tag, str) else None
    if cls is None:
        raise ActionFormatError(f"unknown action type {tag!r}; known: {', '.join(_BY_TYPE)}")
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        if key == "type":
            continue
        spec = cls.schema.get(key)
        if spec is None:
            known = ", ".join(cls.schema) or "none"
            raise ActionFormatError(f"{tag}: unknown field {key!r} (fields: {known})")
        kwargs[key] = _check(spec[0], value, f"{tag}.{key}", spec[2])
    for key, (_kind, required, _nullable) in cls.schema.items():
        if required and key not in kwargs:
            raise ActionFormatError(f"{tag}: missing field {key!r}")
    return cls(**kwargs)


_BY_TYPE: MappingProxyType[str, type[Action]] = MappingProxyType({cls.type: cls for cls in ACTION_TYPES})
