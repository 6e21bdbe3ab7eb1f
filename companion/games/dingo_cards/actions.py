"""The actions of the Dingo card game: typed immutable values with a JSON form.

The cards are hidden, so the host enters what the table does: who deals, each face-up discard,
each face-down pass (no card: nobody sees it), each card played in a hunt, each "pass".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from companion.games.actionjson import KINDS as BASIC_KINDS
from companion.games.actionjson import ActionTypes, Field, JsonAction, Kind, Schema
from companion.games.base import ActionFormatError
from companion.games.dingo_cards.cards import ALL_CARDS


def _seat(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ActionFormatError(f"{where} must be a whole number (a seat 0..3), got {value!r}")
    return value


def _card(value: Any, where: str) -> str:
    if not isinstance(value, str) or value not in ALL_CARDS:
        raise ActionFormatError(f"{where} must be a card like 'H7', 'C10', 'SQ' or 'DA', got {value!r}")
    return value


def _cards(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ActionFormatError(f"{where} must be a non-empty list of cards, got {value!r}")
    return tuple(_card(c, f"{where}[{i}]") for i, c in enumerate(value))


KINDS: Mapping[str, Kind] = MappingProxyType({
    **BASIC_KINDS, "seat": Kind(_seat), "card": Kind(_card), "cards": Kind(_cards, list)})
"""The field kinds of the card game's actions: the basic ones, a seat, a card and a list of cards."""

SEAT = Field("seat", required=True)


@dataclass(frozen=True)
class Action(JsonAction):
    """Base of every action; ``type`` is the JSON tag, ``schema`` the field specs. Seats are 0..3,
    clockwise."""

    type: ClassVar[str] = ""
    schema: ClassVar[Schema] = {}
    kinds: ClassVar[Mapping[str, Kind]] = KINDS


@dataclass(frozen=True)
class NewGame(Action):
    """Start a game: four player names in clockwise seat order and the rule options."""

    type: ClassVar[str] = "new_game"
    schema: ClassVar[Schema] = {
        "players": Field("names", required=True), "game": Field("str"), "options": Field("options")}
    players: tuple[str, ...] = ()
    game: str = "dingo-cards"
    options: tuple[tuple[str, Any], ...] = field(default=())


@dataclass(frozen=True)
class FirstDealer(Action):
    """The first dealer, chosen at the table by any means (rock-paper-scissors...)."""

    type: ClassVar[str] = "first_dealer"
    schema: ClassVar[Schema] = {"seat": SEAT}
    seat: int = 0


@dataclass(frozen=True)
class Deal(Action):
    """The dealer laid out the diamond stack and dealt the other 40 cards, 10 each."""

    type: ClassVar[str] = "deal"
    schema: ClassVar[Schema] = {"seat": SEAT}
    seat: int = 0


@dataclass(frozen=True)
class FourAces(Action):
    """A player holding all four aces shows them: 19 points, the aces to their points pile."""

    type: ClassVar[str] = "four_aces"
    schema: ClassVar[Schema] = {"seat": SEAT}
    seat: int = 0


@dataclass(frozen=True)
class Discard(Action):
    """A player discarded ``card`` face up (never an ace)."""

    type: ClassVar[str] = "discard"
    schema: ClassVar[Schema] = {"seat": SEAT, "card": Field("card", required=True)}
    seat: int = 0
    card: str = "H2"


@dataclass(frozen=True)
class Exchange(Action):
    """A player gave one card face down to the player the exchange names (the card stays hidden)."""

    type: ClassVar[str] = "exchange"
    schema: ClassVar[Schema] = {"seat": SEAT}
    seat: int = 0


@dataclass(frozen=True)
class Play(Action):
    """A player played ``cards`` in the current hunt, in this order (one card, or several)."""

    type: ClassVar[str] = "play"
    schema: ClassVar[Schema] = {"seat": SEAT, "cards": Field("cards", required=True)}
    seat: int = 0
    cards: tuple[str, ...] = ()


@dataclass(frozen=True)
class Pass(Action):
    """A player whose turn it is in a hunt plays nothing."""

    type: ClassVar[str] = "pass"
    schema: ClassVar[Schema] = {"seat": SEAT}
    seat: int = 0


@dataclass(frozen=True)
class NoHeart(Action):
    """The hunted heart was discarded: nobody plays, the dealer discards the stack's top card."""

    type: ClassVar[str] = "no_heart"
    schema: ClassVar[Schema] = {"seat": SEAT}
    seat: int = 0


@dataclass(frozen=True)
class ShowDiamondAce(Action):
    """The holder of the unplayed diamond ace shows it: a penalty of 3 for them."""

    type: ClassVar[str] = "show_diamond_ace"
    schema: ClassVar[Schema] = {"seat": SEAT}
    seat: int = 0


ACTION_TYPES: dict[str, type[Action]] = {cls.type: cls for cls in (
    NewGame, FirstDealer, Deal, FourAces, Discard, Exchange, Play, Pass, NoHeart, ShowDiamondAce)}


ACTIONS = ActionTypes(ACTION_TYPES.values())
"""The parser of the card game's actions' JSON objects."""


def action_from_json(data: Any) -> Action:
    """Build a typed action from its JSON object; raise ActionFormatError naming the bad field."""
    return ACTIONS.from_json(data)
