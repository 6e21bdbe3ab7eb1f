"""The state of a Dingo card game: an immutable value with a JSON form.

What the companion knows: the stack, the discard pile, each player's points and penalty piles,
the cards on the table in the current hunt, and how many cards each hand holds. Every other
card is hidden in a hand. ``cards_in_hands()`` is derived, never stored.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from companion.games.base import StateFormatError
from companion.games.dingo_cards.cards import ALL_CARDS, penalty_value, point_value
from companion.games.dingo_cards.options import DEFAULTS, PLAYERS

Piles = tuple[tuple[str, ...], ...]

PHASES = ("first_dealer", "deal", "discard", "exchange", "hunt", "aces", "diamond_ace", "over")


@dataclass(frozen=True)
class State:
    """The game between two actions. Seats are 0..3 clockwise; "left" is the next seat clockwise."""

    names: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    phase: str = "first_dealer"
    dealer: int | None = None
    first_dealer: int | None = None
    deal_no: int = 0
    """Deals dealt so far (the current deal's number once it is dealt)."""
    round: int = 0
    """Discard round 1..4 or exchange 1..3 in those phases, else 0."""
    done: tuple[int, ...] = ()
    """Seats that have discarded / given a card in the current round, in order."""
    hands: tuple[int, ...] = (0, 0, 0, 0)
    stack: tuple[str, ...] = ()
    """The rabbits still on the stack, top first."""
    discards: tuple[str, ...] = ()
    """The discard pile, bottom first (the last is the top card)."""
    points: Piles = ((), (), (), ())
    penalties: Piles = ((), (), (), ())
    table: tuple[tuple[int, str], ...] = ()
    """(seat, card) played in the current hunt, in order."""
    rank: str | None = None
    heart_seat: int | None = None
    lap: tuple[int, ...] = ()
    """Seats still to act in the current hunt after the heart, in turn order."""
    four_aces: int | None = None
    deal_scores: tuple[tuple[int, ...], ...] = ()
    """Each finished deal's score per seat (points minus penalties)."""

    # ------------------------------------------------------------------ derived
    def option(self, name: str) -> Any:
        return dict(self.options)[name]

    def evolve(self, **changes: Any) -> State:
        return replace(self, **changes)

    @property
    def current_scores(self) -> tuple[int, ...]:
        """This deal's score so far per seat (points minus penalties on the piles)."""
        return tuple(sum(map(point_value, self.points[i])) - sum(map(penalty_value, self.penalties[i]))
                     for i in range(PLAYERS))

    @property
    def totals(self) -> tuple[int, ...]:
        """The game's score per seat: the sum of the finished deals."""
        return tuple(sum(d[i] for d in self.deal_scores) for i in range(PLAYERS))

    @property
    def deal_open(self) -> bool:
        """True while a dealt deal is being played (its piles are not yet in ``deal_scores``)."""
        return self.phase in ("discard", "exchange", "hunt", "aces", "diamond_ace")

    def seen(self) -> dict[str, str]:
        """Every card whose place is known -> that place ("stack", "discards", "table", "points:1"...)."""
        where: dict[str, str] = {c: "stack" for c in self.stack}
        where.update({c: "discards" for c in self.discards})
        where.update({c: "table" for _, c in self.table})
        for i in range(PLAYERS):
            where.update({c: f"points:{i}" for c in self.points[i]})
            where.update({c: f"penalties:{i}" for c in self.penalties[i]})
        return where

    def cards_in_hands(self) -> tuple[str, ...]:
        """The cards hidden in the hands (every card not seen elsewhere), once a deal is dealt."""
        if self.deal_no == 0:
            return ()
        seen = self.seen()
        return tuple(c for c in ALL_CARDS if c not in seen)

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        opts = dict(self.options)
        out: dict[str, Any] = {
            "game": "dingo-cards", "players": list(self.names), "options": opts, "phase": self.phase,
            "dealer": self.dealer, "first_dealer": self.first_dealer, "deal_no": self.deal_no,
            "deals": opts["deals"], "round": self.round, "done": list(self.done), "hands": list(self.hands),
            "stack": list(self.stack), "discards": list(self.discards),
            "points": [list(p) for p in self.points], "penalties": [list(p) for p in self.penalties],
            "table": [[s, c] for s, c in self.table], "rank": self.rank, "heart_seat": self.heart_seat,
            "lap": list(self.lap), "four_aces": self.four_aces,
            "deal_scores": [list(d) for d in self.deal_scores],
            # derived, for views (ignored when reading back)
            "stack_top": self.stack[0] if self.stack else None,
            "discard_top": self.discards[-1] if self.discards else None,
            "current_scores": list(self.current_scores), "totals": list(self.totals),
            "deal_open": self.deal_open,
            "running_totals": [t + (c if self.deal_open else 0)
                               for t, c in zip(self.totals, self.current_scores, strict=True)],
        }
        return out


def _seat_or_none(v: Any, where: str) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < PLAYERS:
        raise StateFormatError(f"{where} must be a seat 0..3 or null, got {v!r}")
    return v


def _ints(v: Any, where: str) -> tuple[int, ...]:
    if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise StateFormatError(f"{where} must be a list of whole numbers, got {v!r}")
    return tuple(v)


def _cards(v: Any, where: str) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(c, str) and c in ALL_CARDS for c in v):
        raise StateFormatError(f"{where} must be a list of cards, got {v!r}")
    return tuple(v)


def _piles(v: Any, where: str) -> Piles:
    if not isinstance(v, list) or len(v) != PLAYERS:
        raise StateFormatError(f"{where} must be a list of {PLAYERS} piles, got {v!r}")
    return tuple(_cards(p, f"{where}[{i}]") for i, p in enumerate(v))


def state_from_json(data: Any) -> State:
    """Rebuild a state from ``State.to_json()``; raise StateFormatError naming the bad field."""
    if not isinstance(data, dict):
        raise StateFormatError(f"a state must be a JSON object, got {data!r}")
    if data.get("game") != "dingo-cards":
        raise StateFormatError(f"game must be 'dingo-cards', got {data.get('game')!r}")
    names = data.get("players")
    if not isinstance(names, list) or len(names) != PLAYERS or not all(isinstance(n, str) for n in names):
        raise StateFormatError(f"players must be a list of {PLAYERS} names, got {names!r}")
    opts = data.get("options")
    if not isinstance(opts, dict) or set(opts) != set(DEFAULTS):
        raise StateFormatError(f"options must name exactly {', '.join(DEFAULTS)}, got {opts!r}")
    phase = data.get("phase")
    if phase not in PHASES:
        raise StateFormatError(f"phase must be one of {', '.join(PHASES)}, got {phase!r}")
    table = data.get("table")
    if not isinstance(table, list) or not all(
            isinstance(t, list) and len(t) == 2 and _seat_or_none(t[0], "table seat") is not None
            and isinstance(t[1], str) and t[1] in ALL_CARDS for t in table):
        raise StateFormatError(f"table must be a list of [seat, card], got {table!r}")
    rank = data.get("rank")
    if rank is not None and not isinstance(rank, str):
        raise StateFormatError(f"rank must be a rank or null, got {rank!r}")
    for key in ("deal_no", "round"):
        if isinstance(data.get(key), bool) or not isinstance(data.get(key), int):
            raise StateFormatError(f"{key} must be a whole number, got {data.get(key)!r}")
    scores = data.get("deal_scores")
    if not isinstance(scores, list):
        raise StateFormatError(f"deal_scores must be a list, got {scores!r}")
    if len(data.get("hands") or []) != PLAYERS:
        raise StateFormatError(f"hands must hold {PLAYERS} hand sizes, got {data.get('hands')!r}")
    state = State(
        names=tuple(names), options=tuple(sorted(opts.items())), phase=phase,
        dealer=_seat_or_none(data.get("dealer"), "dealer"),
        first_dealer=_seat_or_none(data.get("first_dealer"), "first_dealer"),
        deal_no=data["deal_no"], round=data["round"], done=_ints(data.get("done"), "done"),
        hands=_ints(data.get("hands"), "hands"), stack=_cards(data.get("stack"), "stack"),
        discards=_cards(data.get("discards"), "discards"), points=_piles(data.get("points"), "points"),
        penalties=_piles(data.get("penalties"), "penalties"),
        table=tuple((t[0], t[1]) for t in table), rank=rank,
        heart_seat=_seat_or_none(data.get("heart_seat"), "heart_seat"), lap=_ints(data.get("lap"), "lap"),
        four_aces=_seat_or_none(data.get("four_aces"), "four_aces"),
        deal_scores=tuple(_ints(d, "deal_scores[]") for d in scores),
    )
    return state


STATE_FIELDS = tuple(f.name for f in fields(State))
