"""The Dingo Disc actions: typed immutable values with a JSON form (see ``docs/actions.md``).

Every dice result, draw, choice and sensed event that matters to the rules is one of these.
Pawn counts are tuples ``(small, medium, large)`` in Python and ``{"small": n, ...}`` in JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from companion.games.actionjson import KINDS as BASIC_KINDS
from companion.games.actionjson import ActionTypes, Field, JsonAction, Kind, Schema, one_of
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


KINDS: Mapping[str, Kind] = MappingProxyType({
    **BASIC_KINDS, "size": one_of(SIZES), "colour": one_of(COLOURS),
    "counts": Kind(counts_from_json, counts_to_json)})
"""The field kinds of the Dingo Disc actions: the basic ones, pawn sizes, colours and pawn counts."""


@dataclass(frozen=True, slots=True)
class Action(JsonAction):
    """Base of every action; ``type`` is the JSON tag, ``schema`` maps field -> Field(kind, required,
    nullable)."""

    type: ClassVar[str] = ""
    schema: ClassVar[Schema] = {}
    kinds: ClassVar[Mapping[str, Kind]] = KINDS


@dataclass(frozen=True, slots=True)
class NewGame(Action):
    """Start a game: ``version`` 1 or 2, player names in seat order, rule ``options``."""

    type: ClassVar[str] = "new_game"
    schema: ClassVar[Schema] = {
        "game": Field("str"), "version": Field("int", required=True),
        "players": Field("names", required=True), "options": Field("options")}
    version: int = 1
    players: tuple[str, ...] = ()
    game: str = "dingo-disc"
    options: tuple[tuple[str, Any], ...] = field(default=())


@dataclass(frozen=True, slots=True)
class FirstPlayer(Action):
    """The first player: named by the host, or ``drawn`` by the companion (the draw is done outside)."""

    type: ClassVar[str] = "first_player"
    schema: ClassVar[Schema] = {"seat": Field("int", required=True), "drawn": Field("bool")}
    seat: int = 0
    drawn: bool = False


@dataclass(frozen=True, slots=True)
class RollColour(Action):
    """Version 2 colour assignment: the expected player rolled ``colour`` on the colour die."""

    type: ClassVar[str] = "roll_colour"
    schema: ClassVar[Schema] = {"colour": Field("colour", required=True)}
    colour: str = "red"


@dataclass(frozen=True, slots=True)
class TakeDice(Action):
    """The next player takes the dice: closes the previous player's fall window."""

    type: ClassVar[str] = "take_dice"


@dataclass(frozen=True, slots=True)
class Roll(Action):
    """The current player's roll: ``number`` 1..6 and (version 1 only) ``colour``."""

    type: ClassVar[str] = "roll"
    schema: ClassVar[Schema] = {
        "number": Field("int", required=True), "colour": Field("colour", nullable=True)}
    number: int = 2
    colour: str | None = None


@dataclass(frozen=True, slots=True)
class Give(Action):
    """Penalty: ``giver`` gives one pawn of ``size`` (their choice) to the penalised player."""

    type: ClassVar[str] = "give"
    schema: ClassVar[Schema] = {"giver": Field("int", required=True), "size": Field("size", required=True)}
    giver: int = 0
    size: str = "small"


@dataclass(frozen=True, slots=True)
class Place(Action):
    """The current player put a pawn of ``size`` on the disc (see docs/actions.md for zone/number)."""

    type: ClassVar[str] = "place"
    schema: ClassVar[Schema] = {
        "size": Field("size", required=True), "zone": Field("colour", nullable=True),
        "number": Field("int", nullable=True), "x_mm": Field("float", nullable=True),
        "y_mm": Field("float", nullable=True), "sensed": Field("bool")}
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
    schema: ClassVar[Schema] = {
        "pawns": Field("counts", required=True), "tipped": Field("bool"),
        "placed_fell": Field("bool", nullable=True), "confident": Field("bool")}
    pawns: Counts = (0, 0, 0)
    tipped: bool = False
    placed_fell: bool | None = None
    confident: bool = True


@dataclass(frozen=True, slots=True)
class ConfirmFall(Action):
    """The table confirms an unconfident fall, optionally correcting the pawns / placed_fell."""

    type: ClassVar[str] = "confirm_fall"
    schema: ClassVar[Schema] = {
        "pawns": Field("counts", nullable=True), "placed_fell": Field("bool", nullable=True)}
    pawns: Counts | None = None
    placed_fell: bool | None = None


@dataclass(frozen=True, slots=True)
class CorrectFall(Action):
    """The host corrects the last fall: what really fell (and whether the placed pawn did)."""

    type: ClassVar[str] = "correct_fall"
    schema: ClassVar[Schema] = {
        "pawns": Field("counts", required=True), "placed_fell": Field("bool", nullable=True)}
    pawns: Counts = (0, 0, 0)
    placed_fell: bool | None = None


@dataclass(frozen=True, slots=True)
class CorrectSize(Action):
    """The host corrects the size of the last placed pawn."""

    type: ClassVar[str] = "correct_size"
    schema: ClassVar[Schema] = {"size": Field("size", required=True)}
    size: str = "small"


@dataclass(frozen=True, slots=True)
class Hand(Action):
    """A hand held the disc for ``duration_ms`` (forbidden): flags the current player."""

    type: ClassVar[str] = "hand"
    schema: ClassVar[Schema] = {"duration_ms": Field("int")}
    duration_ms: int = 0


@dataclass(frozen=True, slots=True)
class DismissFlag(Action):
    """The host dismisses open flag ``id`` (hand or removed flags)."""

    type: ClassVar[str] = "dismiss_flag"
    schema: ClassVar[Schema] = {"id": Field("int", required=True)}
    id: int = 0


@dataclass(frozen=True, slots=True)
class Removed(Action):
    """A pawn of ``size`` was lifted off the disc by hand."""

    type: ClassVar[str] = "removed"
    schema: ClassVar[Schema] = {"size": Field("size", required=True)}
    size: str = "small"


@dataclass(frozen=True, slots=True)
class EndGame(Action):
    """Everyone has placed all pawns and the disc is still: the game is over."""

    type: ClassVar[str] = "end_game"


ACTION_TYPES: tuple[type[Action], ...] = (
    NewGame, FirstPlayer, RollColour, TakeDice, Roll, Give, Place, AcceptPlacement, RedoPlacement, Fall,
    ConfirmFall, CorrectFall, CorrectSize, Hand, DismissFlag, Removed, EndGame)
"""Every action class, in the order of docs/actions.md."""


ACTIONS = ActionTypes(ACTION_TYPES)
"""The parser of the Dingo Disc actions' JSON objects."""


def action_from_json(data: Any) -> Action:
    """Build a typed action from its JSON object; raise ActionFormatError naming the problem."""
    return ACTIONS.from_json(data)
