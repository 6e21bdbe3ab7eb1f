"""The 52 cards of the Dingo card game, their names and values (rulebook tweet 03).

A card is a short string: suit letter + rank, e.g. ``"H7"`` (heart 7), ``"C10"``, ``"SQ"``, ``"DA"``.
Diamonds are rabbits, hearts dingoes, clubs and spades wolves.
"""

from __future__ import annotations

SUITS: tuple[str, ...] = ("H", "C", "S", "D")
SUIT_NAMES = {"H": "heart", "C": "club", "S": "spade", "D": "diamond"}
SUIT_SYMBOLS = {"H": "♥", "C": "♣", "S": "♠", "D": "♦"}
HUNT_RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
"""The ranks hunted in order, 2 to K (then the ace hunt)."""
RANKS: tuple[str, ...] = HUNT_RANKS + ("A",)
RANK_NAMES = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}

ALL_CARDS: tuple[str, ...] = tuple(s + r for s in SUITS for r in RANKS)
STACK: tuple[str, ...] = tuple("D" + r for r in HUNT_RANKS)
"""The rabbit stack as laid out at the deal, top first (the diamond 2 on top)."""
HAND_CARDS: tuple[str, ...] = tuple(c for c in ALL_CARDS if c not in STACK)
"""The 40 cards dealt, 10 to each player."""
ACES: tuple[str, ...] = ("HA", "CA", "SA", "DA")
BLACK_ACES: tuple[str, ...] = ("CA", "SA")
HEART_ACE = "HA"
DIAMOND_ACE = "DA"


def suit(card: str) -> str:
    return card[0]


def rank(card: str) -> str:
    return card[1:]


def is_card(value: object) -> bool:
    return isinstance(value, str) and value in ALL_CARDS


def heart(r: str) -> str:
    return "H" + r


def wolves(r: str) -> tuple[str, str]:
    """The two wolves (club, spade) of rank ``r``."""
    return ("C" + r, "S" + r)


def rabbit(r: str) -> str:
    return "D" + r


_NAMES = {c: f"{SUIT_NAMES[c[0]]} {RANK_NAMES.get(c[1:], c[1:])}" for c in ALL_CARDS}


def card_name(card: str) -> str:
    """``"H7"`` -> ``"heart 7"``, ``"SQ"`` -> ``"spade queen"``, ``"DA"`` -> ``"diamond ace"``."""
    return _NAMES[card]


def point_value(card: str) -> int:
    """The card's value on a points pile: 2-9 -> 1, 10-K -> 2, aces 3, the diamond ace 10."""
    r = rank(card)
    if r == "A":
        return 10 if card == DIAMOND_ACE else 3
    return 2 if r in ("10", "J", "Q", "K") else 1


def penalty_value(card: str) -> int:
    """The card's value on a penalty pile (subtracted): like points, but the diamond ace is 3."""
    return 3 if card == DIAMOND_ACE else point_value(card)
