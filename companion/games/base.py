"""The game-module protocol shared by every game the companion can referee.

A game module is pure: no I/O, no clock, no randomness, no threads. Its state and actions are
immutable values; :meth:`GameRules.apply` returns a new state or raises :class:`IllegalAction`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any, Protocol


class ActionFormatError(ValueError):
    """An action's JSON form is malformed (unknown type, missing or bad field); names the field."""


class StateFormatError(ValueError):
    """A state's JSON form is malformed; names the field."""


class OptionError(ValueError):
    """A setup option is unknown or has a value not among its choices; the message names it (a game
    raises it again as :class:`IllegalAction` with its own rule id)."""


class IllegalAction(Exception):
    """An action breaks a rule; the state it was applied to is unchanged.

    ``action`` is the offending action, ``rule`` a short stable rule id (e.g. ``not-your-turn``)
    and ``reason`` a human sentence. ``str(err)`` names the action type, the reason and the rule.
    """

    def __init__(self, action: Any, rule: str, reason: str) -> None:
        self.action = action
        self.rule = rule
        self.reason = reason
        kind = getattr(action, "type", type(action).__name__)
        super().__init__(f"{kind}: {reason} (rule: {rule})")


class GameRules(Protocol):
    """What a game module offers: a pure state machine over typed, JSON-serialisable actions."""

    name: str

    def initial_state(self, setup: Any) -> Any:
        """Return the state right after the setup action (``new_game``)."""
        ...

    def apply(self, state: Any, action: Any) -> Any:
        """Return the state after ``action``; raise :class:`IllegalAction` and change nothing if illegal."""
        ...

    def action_from_json(self, data: Any) -> Any:
        """Build a typed action from its JSON form; raise :class:`ActionFormatError` if malformed."""
        ...

    def state_from_json(self, data: Any) -> Any:
        """Build a state from ``state.to_json()``; raise :class:`StateFormatError` if malformed."""
        ...


# --- the complete protocol (issue 17): what every registered game module offers -------------------

CHANCE = -1
"""The pseudo-seat of chance in :attr:`ToMove.seats` (dice, draws, deals)."""


@dataclass(frozen=True)
class SetupOption:
    """One option of a game's setup: ``choices`` (allowed values) and the ``default``; ``help`` a sentence."""

    name: str
    default: Any
    choices: tuple[Any, ...]
    help: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "default": self.default, "choices": list(self.choices), "help": self.help}


@dataclass(frozen=True)
class SetupSpec:
    """What a game's setup asks: the player count range and the options (each a :class:`SetupOption`)."""

    min_players: int
    max_players: int
    options: tuple[SetupOption, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"min_players": self.min_players, "max_players": self.max_players,
                "options": [o.to_json() for o in self.options]}

    def resolve_options(self, given: Iterable[tuple[str, Any]], free: Collection[str] = ()) -> dict[str, Any]:
        """Every option's value: the defaults, replaced by the ``given`` (name, value) pairs.

        Raises :class:`OptionError` for an unknown name, or a value that is not one of the option's
        choices or not of its default's type (``true`` for 1, ``4.0`` for 4); options named in ``free``
        take any value (the game checks them itself).
        """
        by_name = {o.name: o for o in self.options}
        opts = {o.name: o.default for o in self.options}
        for key, value in given:
            o = by_name.get(key)
            if o is None:
                raise OptionError(f"unknown option {key!r} (options: {', '.join(by_name)})")
            if key not in free and (type(value) is not type(o.default) or value not in o.choices):
                shown = ", ".join(str(c) for c in o.choices)
                raise OptionError(f"option {key} must be one of {shown}, got {value!r}")
            opts[key] = value
        return opts


@dataclass(frozen=True)
class LegalAction:
    """One legal action: the typed ``action``, whether it is a ``chance`` outcome (dice, draw, deal),
    its ``probability`` if chance (None otherwise) and a short button ``label``."""

    action: Any
    chance: bool = False
    probability: float | None = None
    label: str = ""


@dataclass(frozen=True)
class ToMove:
    """Who acts now: the seats that may act (one, several, or ``(CHANCE,)`` for chance); empty if over."""

    seats: tuple[int, ...]

    @property
    def chance(self) -> bool:
        return CHANCE in self.seats

    def to_json(self) -> dict[str, Any]:
        return {"seats": [s for s in self.seats if s != CHANCE], "chance": self.chance}


@dataclass(frozen=True)
class Outcome:
    """A finished game: ``winners`` (seats; several = shared win; empty with ``draw``), ``ranking``
    (groups of tied seats, best first), ``scores`` per seat (None if the game keeps no score)."""

    winners: tuple[int, ...]
    ranking: tuple[tuple[int, ...], ...]
    scores: tuple[float, ...] | None = None
    draw: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "ranking": [list(g) for g in self.ranking],
                "scores": None if self.scores is None else list(self.scores), "draw": self.draw}


class GameModule(GameRules, Protocol):
    """The complete game-module protocol; registering an object like this is all a game needs.

    ``name`` is the registry key (``"dingo-cards"``), ``title`` the name people read (and BG Stats
    uses), ``scoring`` the kind of result: ``"points"`` (highest total wins), ``"rank"`` (finishing
    order), ``"winner"`` (one winner, no score). States and actions have ``to_json()``; a state's
    JSON has ``"game"`` (the name) and ``"players"`` (the names, by seat).
    """

    title: str
    scoring: str

    def setup_spec(self) -> SetupSpec:
        """What the setup asks (players, options with choices and defaults)."""
        ...

    def legal_actions(self, state: Any) -> list[LegalAction]:
        """Every legal action now, chance outcomes marked; empty when the game is over.

        Actions with a free continuous field (a sensed position) are listed once with a
        representative value; ``apply`` stays the authority.
        """
        ...

    def to_move(self, state: Any) -> ToMove:
        """Who acts now (see :class:`ToMove`)."""
        ...

    def outcome(self, state: Any) -> Outcome | None:
        """The result once the game is over, else None."""
        ...

    def describe_action(self, state: Any, action: Any) -> str:
        """A plain sentence for ``action`` applied to ``state`` (names, not seat numbers)."""
        ...

    def describe_next(self, state: Any) -> str:
        """A plain sentence saying what happens next ("Cleo: play the heart 7 or pass")."""
        ...

    def example_setups(self) -> list[dict[str, Any]]:
        """Setup JSONs (``new_game`` actions) that cover the game's player counts, options and modes;
        the generic game test suite plays random games from each."""
        ...

    def invariants(self, state: Any) -> list[str]:
        """What is wrong with ``state`` (pieces or cards not conserved, scores inconsistent); [] if fine."""
        ...
