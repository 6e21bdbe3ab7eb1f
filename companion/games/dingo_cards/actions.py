"""The actions of the Dingo card game: typed immutable values with a JSON form.

The cards are hidden, so the host enters what the table does: who deals, each face-up discard,
each face-down pass (no card: nobody sees it), each card played in a hunt, each "pass".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from companion.games.base import ActionFormatError
from companion.games.dingo_cards.cards import ALL_CARDS


@dataclass(frozen=True)
class Action:
    """Base of every action; ``type`` is the JSON tag. Seats are 0..3, clockwise."""

    type: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) and name != "options" else value
        if "options" in out:
            out["options"] = dict(self.options)  # type: ignore[attr-defined]
        return out


@dataclass(frozen=True)
class NewGame(Action):
    """Start a game: four player names in clockwise seat order and the rule options."""

    type: ClassVar[str] = "new_game"
    players: tuple[str, ...] = ()
    game: str = "dingo-cards"
    options: tuple[tuple[str, Any], ...] = field(default=())


@dataclass(frozen=True)
class FirstDealer(Action):
    """The first dealer, chosen at the table by any means (rock-paper-scissors...)."""

    type: ClassVar[str] = "first_dealer"
    seat: int = 0


@dataclass(frozen=True)
class Deal(Action):
    """The dealer laid out the diamond stack and dealt the other 40 cards, 10 each."""

    type: ClassVar[str] = "deal"
    seat: int = 0


@dataclass(frozen=True)
class FourAces(Action):
    """A player holding all four aces shows them: 19 points, the aces to their points pile."""

    type: ClassVar[str] = "four_aces"
    seat: int = 0


@dataclass(frozen=True)
class Discard(Action):
    """A player discarded ``card`` face up (never an ace)."""

    type: ClassVar[str] = "discard"
    seat: int = 0
    card: str = "H2"


@dataclass(frozen=True)
class Exchange(Action):
    """A player gave one card face down to the player the exchange names (the card stays hidden)."""

    type: ClassVar[str] = "exchange"
    seat: int = 0


@dataclass(frozen=True)
class Play(Action):
    """A player played ``cards`` in the current hunt, in this order (one card, or several)."""

    type: ClassVar[str] = "play"
    seat: int = 0
    cards: tuple[str, ...] = ()


@dataclass(frozen=True)
class Pass(Action):
    """A player whose turn it is in a hunt plays nothing."""

    type: ClassVar[str] = "pass"
    seat: int = 0


@dataclass(frozen=True)
class NoHeart(Action):
    """The hunted heart was discarded: nobody plays, the dealer discards the stack's top card."""

    type: ClassVar[str] = "no_heart"
    seat: int = 0


@dataclass(frozen=True)
class ShowDiamondAce(Action):
    """The holder of the unplayed diamond ace shows it: a penalty of 3 for them."""

    type: ClassVar[str] = "show_diamond_ace"
    seat: int = 0


ACTION_TYPES: dict[str, type[Action]] = {cls.type: cls for cls in (
    NewGame, FirstDealer, Deal, FourAces, Discard, Exchange, Play, Pass, NoHeart, ShowDiamondAce)}


def _int(data: dict[str, Any], key: str, kind: str) -> int:
    if key not in data:
        raise ActionFormatError(f"{kind}: missing field {key!r}")
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ActionFormatError(f"{kind}.{key} must be a whole number (a seat 0..3), got {value!r}")
    return value


def _card(value: Any, where: str) -> str:
    if not isinstance(value, str) or value not in ALL_CARDS:
        raise ActionFormatError(f"{where} must be a card like 'H7', 'C10', 'SQ' or 'DA', got {value!r}")
    return value


def action_from_json(data: Any) -> Action:
    """Build a typed action from its JSON object; raise ActionFormatError naming the bad field."""
    if not isinstance(data, dict):
        raise ActionFormatError(f"an action must be a JSON object, got {data!r}")
    kind = data.get("type")
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ActionFormatError(f"unknown action type {kind!r}; known: {', '.join(ACTION_TYPES)}")
    allowed = {"type", *cls.__dataclass_fields__}
    extra = sorted(set(data) - allowed)
    if extra:
        raise ActionFormatError(f"{kind}: unknown field {extra[0]!r}")
    if cls is NewGame:
        players = data.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ActionFormatError(f"new_game.players must be a list of names, got {players!r}")
        game = data.get("game", "dingo-cards")
        if not isinstance(game, str):
            raise ActionFormatError(f"new_game.game must be a string, got {game!r}")
        options = data.get("options", {})
        if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
            raise ActionFormatError(f"new_game.options must be an object, got {options!r}")
        return NewGame(players=tuple(players), game=game, options=tuple(sorted(options.items())))
    seat = _int(data, "seat", kind)
    if cls is Discard:
        if "card" not in data:
            raise ActionFormatError("discard: missing field 'card'")
        return Discard(seat=seat, card=_card(data["card"], "discard.card"))
    if cls is Play:
        cards = data.get("cards")
        if not isinstance(cards, list) or not cards:
            raise ActionFormatError(f"play.cards must be a non-empty list of cards, got {cards!r}")
        return Play(seat=seat, cards=tuple(_card(c, f"play.cards[{i}]") for i, c in enumerate(cards)))
    return cls(seat=seat)  # type: ignore[call-arg]
