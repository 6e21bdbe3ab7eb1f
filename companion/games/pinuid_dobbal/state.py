"""The Pinuid Dobbal state (an immutable named tuple) and the rule options (the open readings).

Every open point of the rulebook is an option of ``new_game`` with the most natural reading as default;
docs/rules-pinuid-dobbal.md gives each reading and its reason.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from companion.games.base import SetupOption, StateFormatError
from companion.games.pinuid_dobbal.actions import GAME
from companion.games.pinuid_dobbal.board import Board, board, squares_of

PINS = 5
"""Running pins per player."""

PHASES = ("roll", "assign", "move", "over")

SEAT_PLAYERS = ("person", "computer-random", "computer-greedy", "computer-mcts")
"""Who plays a seat: a person at the table, or the companion at one of the strengths of :mod:`.ai`
(a table setting, not a rule: the rules core never reads it; the table controller does)."""

OPTIONS: tuple[SetupOption, ...] = (
    SetupOption("width", 6, (6, 7, 8, 9),
                "squares across (the back line holds 5 running pins and the opening)"),
    SetupOption("height", 7, tuple(range(5, 13)), "squares from one back line to the other, both included"),
    SetupOption("opening", 3, (1, 2, 3, 4, 5, 6),
                "the opening is the Nth of the six starting squares, counted from each player's own left"),
    SetupOption("dice", "1-3", ("1-3", "1-6"), "the dice faces: 1 to 3 (each twice) or 1 to 6"),
    SetupOption("play_pin_die", "coloured", ("coloured", "chosen"),
                "coloured: one die of another colour moves the play-pin; "
                "chosen: the player picks it after the roll"),
    SetupOption("move_diagonals", True, (True, False), "'all directions' includes the diagonals"),
    SetupOption("adjacent_diagonals", True, (True, False), "'next to' includes the diagonal neighbours"),
    SetupOption("play_pin_own_back_line", True, (True, False),
                "the play-pin may stop on the mover's own back line"),
    SetupOption("double_normal_turn", True, (True, False), "a double may still be played as a normal turn"),
    SetupOption("removal_limit", "3-each", ("3-each", "3-total", "3-off-at-once"),
                "3-each: each player removes at most 3 pins in a game; 3-total: 3 in the game for both; "
                "3-off-at-once: at most 3 of a player's pins are off the board at a time"),
    SetupOption("win_needs_all_moves", True, (True, False),
                "a turn wins only if all three moves were made "
                "(a skipped move or the double's action cannot win)"),
    SetupOption("seat_1", "person", SEAT_PLAYERS,
                "who plays the first seat: a person, or the companion at a strength (random, greedy, or a "
                "Monte-Carlo search of about a second); the dice stay real: the computer waits for the roll"),
    SetupOption("seat_2", "person", SEAT_PLAYERS, "who plays the second seat (as seat 1)"),
)
OPTION_BY_NAME = {o.name: o for o in OPTIONS}


class Options(NamedTuple):
    """The readings of the open points (see :data:`OPTIONS`)."""

    width: int = 6
    height: int = 7
    opening: int = 3
    dice: str = "1-3"
    play_pin_die: str = "coloured"
    move_diagonals: bool = True
    adjacent_diagonals: bool = True
    play_pin_own_back_line: bool = True
    double_normal_turn: bool = True
    removal_limit: str = "3-each"
    win_needs_all_moves: bool = True
    seat_1: str = "person"
    seat_2: str = "person"

    def computer(self, seat: int) -> str | None:
        """The strength of the computer playing ``seat`` (0 or 1), or None for a person."""
        who = self.seat_1 if seat == 0 else self.seat_2
        return who.removeprefix("computer-") if who.startswith("computer-") else None

    @property
    def faces(self) -> int:
        return 3 if self.dice == "1-3" else 6

    def board(self) -> Board:
        b = _BOARDS.get(self)
        if b is None:
            b = _BOARDS[self] = board(self.width, self.height, self.move_diagonals, self.adjacent_diagonals,
                                      self.faces)
        return b


_BOARDS: dict[Options, Board] = {}


SKIP_REASONS = {
    "no-running-move": "no running pin can move {d} in a straight line without jumping",
    "play-pin-not-next-to-own-pin": "the play-pin is not next to one of {name}'s running pins",
    "play-pin-no-room": "the play-pin has no room for {d} steps in a straight line",
}


class State(NamedTuple):
    """A position: pins as bit masks by seat, the play-pin's square, the turn's dice and step."""

    options: Options
    names: tuple[str, str]
    pins: tuple[int, int]
    play: int
    current: int = 0
    phase: str = "roll"
    dice: tuple[int, ...] = ()  # (running, running, play-pin) once rolled (and assigned)
    step: int = 0  # 1 running pin, 2 play-pin, 3 running pin; 0 between turns
    left: tuple[int, ...] = ()  # running dice not used yet this turn
    double: bool = False  # the double's alternative (remove / put back) is open now
    skips: tuple[tuple[int, str, int], ...] = ()  # (step, rule, die) skipped this turn (kept until next roll)
    removed: tuple[int, int] = (0, 0)  # pins each seat removed from the opponent in this game
    put_back: tuple[int, int] = (0, 0)  # pins each seat put back
    turn: int = 0
    winner: int | None = None

    @property
    def board(self) -> Board:
        return self.options.board()

    def off_board(self, seat: int) -> int:
        return self.removed[1 - seat] - self.put_back[seat]

    def to_json(self) -> dict[str, Any]:
        b = self.board
        names = b.names
        return {
            "game": GAME,
            "players": list(self.names),
            "phase": self.phase,
            "options": self.options._asdict(),
            "board": {"width": b.width, "height": b.height,
                      "back_lines": [[names[q] for q in squares_of(m)] for m in b.back_line]},
            "pins": [[names[q] for q in squares_of(m)] for m in self.pins],
            "play_pin": names[self.play],
            "current": self.current,
            "turn": self.turn,
            "dice": list(self.dice),
            "step": self.step,
            "running_dice_left": list(self.left),
            "double_choice": self.double,
            "skips": [{"step": st, "rule": rule, "die": d,
                       "reason": SKIP_REASONS[rule].format(d=d, name=self.names[self.current])}
                      for st, rule, d in self.skips],
            "removed": list(self.removed),
            "put_back": list(self.put_back),
            "off_board": [self.off_board(0), self.off_board(1)],
            "winner": self.winner,
        }


def _get(data: Any, key: str) -> Any:
    if not isinstance(data, dict) or key not in data:
        raise StateFormatError(f"state: missing field {key!r}")
    return data[key]


def _int(v: Any, where: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise StateFormatError(f"state.{where} must be a whole number {lo}..{hi}, got {v!r}")
    return v


def _ints(v: Any, where: str, n: int | None, lo: int, hi: int) -> tuple[int, ...]:
    if not isinstance(v, list) or (n is not None and len(v) != n):
        raise StateFormatError(f"state.{where} must be a list{'' if n is None else f' of {n}'}, got {v!r}")
    return tuple(_int(x, f"{where}[{i}]", lo, hi) for i, x in enumerate(v))


def options_from(values: dict[str, Any], where: str, error: type[Exception]) -> Options:
    """Options from a name -> value mapping (missing = default); raise ``error`` naming a bad one."""
    for key, value in values.items():
        spec = OPTION_BY_NAME.get(key)
        if spec is None:
            raise error(f"{where}: unknown option {key!r} (options: {', '.join(OPTION_BY_NAME)})")
        if value not in spec.choices or type(value) is not type(spec.default):
            choices = ", ".join(str(c) for c in spec.choices)
            raise error(f"{where}: option {key} must be one of {choices}, got {value!r}")
    return Options(**values)


def state_from_json(data: Any) -> State:
    """Rebuild a :class:`State` from ``to_json()``; raise StateFormatError naming the bad field."""
    if _get(data, "game") != GAME:
        raise StateFormatError(f"state: game must be {GAME!r}, got {data.get('game')!r}")
    opts = _get(data, "options")
    if not isinstance(opts, dict):
        raise StateFormatError("state.options must be an object")
    options = options_from(opts, "state.options", StateFormatError)
    b = options.board()
    players = _get(data, "players")
    if not isinstance(players, list) or len(players) != 2 or not all(isinstance(p, str) for p in players):
        raise StateFormatError(f"state.players must be two names, got {players!r}")

    def square(v: Any, where: str) -> int:
        if v not in b.index:
            raise StateFormatError(f"state.{where} must be a square of the board, got {v!r}")
        return b.index[v]

    pins_json = _get(data, "pins")
    if not isinstance(pins_json, list) or len(pins_json) != 2:
        raise StateFormatError("state.pins must be two lists of squares")
    masks = []
    for seat, lst in enumerate(pins_json):
        if not isinstance(lst, list):
            raise StateFormatError(f"state.pins[{seat}] must be a list of squares")
        m = 0
        for i, nm in enumerate(lst):
            m |= 1 << square(nm, f"pins[{seat}][{i}]")
        masks.append(m)
    phase = _get(data, "phase")
    if phase not in PHASES:
        raise StateFormatError(f"state.phase must be one of {', '.join(PHASES)}, got {phase!r}")
    skips = []
    sk = _get(data, "skips")
    if not isinstance(sk, list):
        raise StateFormatError("state.skips must be a list")
    for i, item in enumerate(sk):
        rule = _get(item, "rule")
        if rule not in SKIP_REASONS:
            raise StateFormatError(f"state.skips[{i}].rule is unknown: {rule!r}")
        skips.append((_int(_get(item, "step"), f"skips[{i}].step", 1, 3), rule,
                      _int(_get(item, "die"), f"skips[{i}].die", 1, 6)))
    winner = _get(data, "winner")
    double = _get(data, "double_choice")
    if not isinstance(double, bool):
        raise StateFormatError("state.double_choice must be true or false")
    return State(
        options=options, names=(players[0], players[1]), pins=(masks[0], masks[1]),
        play=square(_get(data, "play_pin"), "play_pin"),
        current=_int(_get(data, "current"), "current", 0, 1), phase=phase,
        dice=_ints(_get(data, "dice"), "dice", None, 1, 6), step=_int(_get(data, "step"), "step", 0, 3),
        left=_ints(_get(data, "running_dice_left"), "running_dice_left", None, 1, 6), double=double,
        skips=tuple(skips), removed=_ints(_get(data, "removed"), "removed", 2, 0, 10**9),  # type: ignore[arg-type]
        put_back=_ints(_get(data, "put_back"), "put_back", 2, 0, 10**9),  # type: ignore[arg-type]
        turn=_int(_get(data, "turn"), "turn", 0, 10**9),
        winner=None if winner is None else _int(winner, "winner", 0, 1))
