"""The Dingo Disc game state: an immutable value with an exact JSON round trip.

The state is a named tuple of plain values (ints, strings, tuples and small named tuples) so it is
immutable, compares, hashes and copies cheaply (copying a tuple is several times faster than copying
a dataclass, which the benchmark needs). ``to_json()`` adds ``expected`` (computed, see expected.py) and
derived fields (ranks, winner); :func:`state_from_json` ignores those and rebuilds the rest.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, NamedTuple

from companion.games.base import StateFormatError
from companion.games.dingo_disc.actions import COLOURS, SIZES, Counts, counts_to_json

PAWNS_PER_SIZE: dict[int, int] = {2: 8, 3: 6, 4: 5, 5: 4, 6: 3}
"""Rulebook table: pawns of each size per player, by number of players."""

PHASES: tuple[str, ...] = ("first_player", "colours", "roll", "penalty", "place", "review", "confirm_fall",
                           "ending", "over")
"""Every phase a game can be in."""

FLAG_KINDS: tuple[str, ...] = ("placement", "hand", "removed")
"""Kinds of flags the table may see."""

OPTION_VALUES: dict[str, tuple[str, ...]] = {
    "draw_window": ("round", "cycle"),
    "last_pawn_gift": ("keep", "give"),
    "placed_fell_default": ("if_size_fell", "no"),
    "tip_attempt": ("retry", "pass"),
}
"""Rule options of ``new_game`` and their allowed values (the first is the default)."""


class Options(NamedTuple):
    """Interpretations players may choose (see docs/rules.md)."""

    draw_window: str = "round"
    last_pawn_gift: str = "keep"
    placed_fell_default: str = "if_size_fell"
    tip_attempt: str = "retry"


class Window(NamedTuple):
    """An open fall window: falls go to ``seat`` until the next player takes the dice."""

    seat: int
    round: int
    turn: int
    attempt: int
    placed: bool


class DiscPawn(NamedTuple):
    """A pawn on the disc: size index, where it was placed (None when unknown) and by whom."""

    size: int
    zone: str | None
    number: int | None
    x_mm: float | None
    y_mm: float | None
    by: int


class Finish(NamedTuple):
    """A final finish: ``seat`` placed all pawns in ``round``; ``pos`` orders turns across rounds."""

    seat: int
    round: int
    pos: int


class Flag(NamedTuple):
    """An open flag for the table: ``kind`` is placement, hand or removed."""

    id: int
    kind: str
    player: int | None
    reason: str


class LastPlace(NamedTuple):
    """The pawn placed this turn (or in the open fall window), still on the disc (last in disc_pawns)."""

    seat: int
    size: int
    zone: str | None
    number: int | None


class Review(NamedTuple):
    """A placement waiting for accept/redo: its flag id and where it was sensed."""

    flag_id: int
    sensed_zone: str | None
    sensed_number: int | None


class PendingFall(NamedTuple):
    """An unconfident fall waiting for ``confirm_fall``; its pawns are "in hand"."""

    pawns: Counts
    tipped: bool
    placed_fell: bool | None


class LastFall(NamedTuple):
    """The latest (merged) fall and the state before it, so it can be corrected exactly."""

    pawns: Counts
    tipped: bool
    placed_fell: bool | None
    base: State


class ColourRoll(NamedTuple):
    """A version 2 colour-die roll; ``taken`` when the colour was already assigned (re-roll)."""

    seat: int
    colour: str
    taken: bool


class State(NamedTuple):
    """The whole game at one moment (immutable); build new ones with :meth:`evolve`."""

    version: int
    names: tuple[str, ...]
    options: Options
    supply: tuple[Counts, ...]
    colours: tuple[str | None, ...]
    phase: str
    current: int | None = None
    first: int | None = None
    round: int = 0
    turn: int = 0
    dice_colour: str | None = None
    dice_number: int | None = None
    dice_taken: bool = False
    attempt: int = 0
    window: Window | None = None
    disc: Counts = (0, 0, 0)
    disc_pawns: tuple[DiscPawn, ...] = ()
    in_hand: Counts = (0, 0, 0)
    givers: tuple[int, ...] = ()
    colour_rolls: tuple[ColourRoll, ...] = ()
    finishing: tuple[Finish, ...] = ()
    draw: bool = False
    flags: tuple[Flag, ...] = ()
    next_flag_id: int = 1
    last_place: LastPlace | None = None
    review: Review | None = None
    pending_fall: PendingFall | None = None
    last_fall: LastFall | None = None

    def evolve(self, **changes: Any) -> State:
        """A copy with ``changes`` applied (no validation)."""
        return self.with_changes(changes)

    def with_changes(self, changes: dict[str, Any]) -> State:
        """A copy with the ``{field: value}`` changes applied (no validation; hot paths use a draft list)."""
        values = [*self]
        index = _INDEX
        for name, value in changes.items():
            values[index[name]] = value
        return _tnew(State, values)

    @property
    def n(self) -> int:
        """Number of players."""
        return len(self.names)

    @property
    def start_counts(self) -> Counts:
        """Pawns of each size dealt to every player."""
        k = PAWNS_PER_SIZE[len(self.names)]
        return (k, k, k)

    @property
    def winner(self) -> int | None:
        """Seat of the first final finisher; None before that or on a draw."""
        if self.draw or not self.finishing:
            return None
        return self.finishing[0].seat

    def is_finished(self, seat: int) -> bool:
        """Whether ``seat`` has a final finish."""
        return any(f.seat == seat for f in self.finishing)

    def ranks(self) -> list[int | None]:
        """1-based rank per seat by finishing order (all 1 on a draw); None while unfinished."""
        out: list[int | None] = [None] * len(self.names)
        for i, f in enumerate(self.finishing):
            out[f.seat] = 1 if self.draw else i + 1
        return out

    def to_json(self) -> dict[str, Any]:
        """The JSON form (see docs/actions.md), including ``expected``."""
        from companion.games.dingo_disc.expected import expected

        return {**_core_json(self), "expected": expected(self)}


def _core_json(s: State) -> dict[str, Any]:
    ranks = s.ranks()
    finish_round = {f.seat: f.round for f in s.finishing}
    w = s.window
    lp = s.last_place
    lf = s.last_fall
    return {
        "game": "dingo-disc",
        "version": s.version,
        "options": s.options._asdict(),
        "players": [
            {"seat": i, "name": name, "colour": s.colours[i], "supply": counts_to_json(s.supply[i]),
             "left": sum(s.supply[i]), "finished": i in finish_round, "finish_round": finish_round.get(i),
             "rank": ranks[i]}
            for i, name in enumerate(s.names)],
        "phase": s.phase,
        "current": s.current,
        "first_player": s.first,
        "round": s.round,
        "turn": s.turn,
        "dice": {"colour": s.dice_colour, "number": s.dice_number, "taken": s.dice_taken},
        "attempt": s.attempt,
        "fall_window": None if w is None else w._asdict(),
        "disc": counts_to_json(s.disc),
        "disc_pawns": [{"size": SIZES[p.size], "zone": p.zone, "number": p.number, "x_mm": p.x_mm,
                        "y_mm": p.y_mm, "by": p.by} for p in s.disc_pawns],
        "in_hand": counts_to_json(s.in_hand),
        "givers": list(s.givers),
        "colour_rolls": [r._asdict() for r in s.colour_rolls],
        "finishing": [f._asdict() for f in s.finishing],
        "winner": s.winner,
        "draw": s.draw,
        "flags": [f._asdict() for f in s.flags],
        "next_flag_id": s.next_flag_id,
        "last_place": None if lp is None else {"seat": lp.seat, "size": SIZES[lp.size], "zone": lp.zone,
                                               "number": lp.number},
        "review": None if s.review is None else s.review._asdict(),
        "pending_fall": None if s.pending_fall is None else {
            "pawns": counts_to_json(s.pending_fall.pawns), "tipped": s.pending_fall.tipped,
            "placed_fell": s.pending_fall.placed_fell},
        "last_fall": None if lf is None else {
            "pawns": counts_to_json(lf.pawns), "tipped": lf.tipped, "placed_fell": lf.placed_fell,
            "base": _core_json(lf.base)},
    }


# ---------------------------------------------------------------- from JSON


def _get(d: Any, key: str, where: str) -> Any:
    if not isinstance(d, dict):
        raise StateFormatError(f"{where} must be an object")
    if key not in d:
        raise StateFormatError(f"{where}: missing field {key!r}")
    return d[key]


def _int(v: Any, where: str, nullable: bool = False) -> Any:
    if v is None and nullable:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise StateFormatError(f"{where} must be a whole number, got {v!r}")
    return v


def _bool(v: Any, where: str, nullable: bool = False) -> Any:
    if v is None and nullable:
        return None
    if not isinstance(v, bool):
        raise StateFormatError(f"{where} must be true or false, got {v!r}")
    return v


def _str(v: Any, where: str, choices: tuple[str, ...] | None = None, nullable: bool = False) -> Any:
    if v is None and nullable:
        return None
    if not isinstance(v, str) or (choices is not None and v not in choices):
        raise StateFormatError(f"{where} must be {'one of ' + ', '.join(choices) if choices else 'a string'},"
                               f" got {v!r}")
    return v


def _float(v: Any, where: str) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise StateFormatError(f"{where} must be a number, got {v!r}")
    return float(v)


def _counts(v: Any, where: str) -> Counts:
    if not isinstance(v, dict):
        raise StateFormatError(f"{where} must be a pawn-count object")
    vals = [_int(v.get(size, 0), f"{where}.{size}") for size in SIZES]
    if min(vals) < 0:
        raise StateFormatError(f"{where} has a negative count")
    return (vals[0], vals[1], vals[2])


def _list(v: Any, where: str) -> list[Any]:
    if not isinstance(v, list):
        raise StateFormatError(f"{where} must be a list")
    return v


def state_from_json(data: Any) -> State:
    """Rebuild a :class:`State` from ``to_json()`` output; raise StateFormatError naming the field."""
    g = _get
    if _get(data, "game", "state") != "dingo-disc":
        raise StateFormatError(f"state: game must be 'dingo-disc', got {data.get('game')!r}")
    opts = g(data, "options", "state")
    if not isinstance(opts, dict):
        raise StateFormatError("state.options must be an object")
    options = Options(**{k: _str(opts.get(k, vals[0]), f"state.options.{k}", vals)
                         for k, vals in OPTION_VALUES.items()})
    players = _list(g(data, "players", "state"), "state.players")
    if not 2 <= len(players) <= 6:
        raise StateFormatError("state.players must list 2 to 6 players")
    names = tuple(_str(g(p, "name", f"state.players[{i}]"), f"state.players[{i}].name")
                  for i, p in enumerate(players))
    colours = tuple(_str(g(p, "colour", f"state.players[{i}]"), f"state.players[{i}].colour", COLOURS, True)
                    for i, p in enumerate(players))
    supply = tuple(_counts(g(p, "supply", f"state.players[{i}]"), f"state.players[{i}].supply")
                   for i, p in enumerate(players))
    dice = g(data, "dice", "state")
    w = g(data, "fall_window", "state")
    window = None if w is None else Window(
        *(_int(g(w, k, "state.fall_window"), f"state.fall_window.{k}") for k in ("seat", "round", "turn",
                                                                                 "attempt")),
        _bool(g(w, "placed", "state.fall_window"), "state.fall_window.placed"))
    pawns = []
    for i, p in enumerate(_list(g(data, "disc_pawns", "state"), "state.disc_pawns")):
        where = f"state.disc_pawns[{i}]"
        pawns.append(DiscPawn(SIZES.index(_str(g(p, "size", where), where + ".size", SIZES)),
                              _str(g(p, "zone", where), where + ".zone", COLOURS, True),
                              _int(g(p, "number", where), where + ".number", True),
                              _float(g(p, "x_mm", where), where + ".x_mm"),
                              _float(g(p, "y_mm", where), where + ".y_mm"),
                              _int(g(p, "by", where), where + ".by")))
    rolls = tuple(ColourRoll(_int(g(r, "seat", "state.colour_rolls"), "state.colour_rolls.seat"),
                             _str(g(r, "colour", "state.colour_rolls"), "state.colour_rolls.colour", COLOURS),
                             _bool(g(r, "taken", "state.colour_rolls"), "state.colour_rolls.taken"))
                  for r in _list(g(data, "colour_rolls", "state"), "state.colour_rolls"))
    finishing = tuple(Finish(*(_int(g(f, k, "state.finishing"), f"state.finishing.{k}")
                               for k in ("seat", "round", "pos")))
                      for f in _list(g(data, "finishing", "state"), "state.finishing"))
    flags = tuple(Flag(_int(g(f, "id", "state.flags"), "state.flags.id"),
                       _str(g(f, "kind", "state.flags"), "state.flags.kind", FLAG_KINDS),
                       _int(g(f, "player", "state.flags"), "state.flags.player", True),
                       _str(g(f, "reason", "state.flags"), "state.flags.reason"))
                  for f in _list(g(data, "flags", "state"), "state.flags"))
    lp = g(data, "last_place", "state")
    last_place = None if lp is None else LastPlace(
        _int(g(lp, "seat", "state.last_place"), "state.last_place.seat"),
        SIZES.index(_str(g(lp, "size", "state.last_place"), "state.last_place.size", SIZES)),
        _str(g(lp, "zone", "state.last_place"), "state.last_place.zone", COLOURS, True),
        _int(g(lp, "number", "state.last_place"), "state.last_place.number", True))
    rv = g(data, "review", "state")
    review = None if rv is None else Review(
        _int(g(rv, "flag_id", "state.review"), "state.review.flag_id"),
        _str(g(rv, "sensed_zone", "state.review"), "state.review.sensed_zone", COLOURS, True),
        _int(g(rv, "sensed_number", "state.review"), "state.review.sensed_number", True))
    pf = g(data, "pending_fall", "state")
    pending = None if pf is None else PendingFall(
        _counts(g(pf, "pawns", "state.pending_fall"), "state.pending_fall.pawns"),
        _bool(g(pf, "tipped", "state.pending_fall"), "state.pending_fall.tipped"),
        _bool(g(pf, "placed_fell", "state.pending_fall"), "state.pending_fall.placed_fell", True))
    lf = g(data, "last_fall", "state")
    last_fall = None if lf is None else LastFall(
        _counts(g(lf, "pawns", "state.last_fall"), "state.last_fall.pawns"),
        _bool(g(lf, "tipped", "state.last_fall"), "state.last_fall.tipped"),
        _bool(g(lf, "placed_fell", "state.last_fall"), "state.last_fall.placed_fell", True),
        state_from_json(g(lf, "base", "state.last_fall")))
    version = _int(g(data, "version", "state"), "state.version")
    if version not in (1, 2):
        raise StateFormatError(f"state.version must be 1 or 2, got {version!r}")
    return State(
        version=version, names=names, options=options, supply=supply, colours=colours,
        phase=_str(g(data, "phase", "state"), "state.phase", PHASES),
        current=_int(g(data, "current", "state"), "state.current", True),
        first=_int(g(data, "first_player", "state"), "state.first_player", True),
        round=_int(g(data, "round", "state"), "state.round"),
        turn=_int(g(data, "turn", "state"), "state.turn"),
        dice_colour=_str(g(dice, "colour", "state.dice"), "state.dice.colour", COLOURS, True),
        dice_number=_int(g(dice, "number", "state.dice"), "state.dice.number", True),
        dice_taken=_bool(g(dice, "taken", "state.dice"), "state.dice.taken"),
        attempt=_int(g(data, "attempt", "state"), "state.attempt"),
        window=window,
        disc=_counts(g(data, "disc", "state"), "state.disc"),
        disc_pawns=tuple(pawns),
        in_hand=_counts(g(data, "in_hand", "state"), "state.in_hand"),
        givers=tuple(_int(x, "state.givers[]") for x in _list(g(data, "givers", "state"), "state.givers")),
        colour_rolls=rolls, finishing=finishing,
        draw=_bool(g(data, "draw", "state"), "state.draw"),
        flags=flags, next_flag_id=_int(g(data, "next_flag_id", "state"), "state.next_flag_id"),
        last_place=last_place, review=review, pending_fall=pending, last_fall=last_fall)


STATE_FIELDS: tuple[str, ...] = State._fields
"""Names of the state's fields, in declaration order."""

# Position of each field in the State tuple (same order as STATE_FIELDS; a test checks it). The hot
# paths copy a state into a list, the *draft* (``v = [*s]``: cheaper than ``list(s)``, which iterates
# a tuple subclass item by item), set fields by position (``v[PHASE] = "roll"``) and freeze it with
# ``_tnew(State, v)``: one list and one tuple per action, about twice as fast as a dict of changes
# given to :meth:`State.with_changes`. Such a copy of the 28 fields is still about 4,000 machine
# instructions (CPython 3.11), about a quarter of an average action through the core.
(VERSION, NAMES, OPTIONS, SUPPLY, COLOURS_AT, PHASE, CURRENT, FIRST, ROUND, TURN, DICE_COLOUR, DICE_NUMBER,
 DICE_TAKEN, ATTEMPT, WINDOW, DISC, DISC_PAWNS, IN_HAND, GIVERS, COLOUR_ROLLS, FINISHING, DRAW, FLAGS,
 NEXT_FLAG_ID, LAST_PLACE, REVIEW, PENDING_FALL, LAST_FALL) = range(28)

_INDEX: MappingProxyType[str, int] = MappingProxyType({name: i for i, name in enumerate(State._fields)})
_tnew = tuple.__new__
