"""Dodos Riding Dinos actions: frozen dataclasses with a ``type`` tag and a JSON form.

Racers are numbered: the players first (racer i = seat i), then the Challengers. Amounts entered for
effects come in small steps (a card's "5 damage" is entered as two entries) so the list of legal
actions stays short enough for big buttons.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, ClassVar

from companion.games.base import ActionFormatError

KINDS = ("normal", "aggressive")
CHALLENGER_KINDS = ("normal", "aggressive", "reaction")
PROJECTILES = ("banana", "egg", "meteorite", "feather", "log")
MAX_SPEED = 8
"""Highest Speed value a card can be entered with (the printed cards stay below it)."""
DAMAGE_STEPS = (1, 2, 3)
MOVE_STEPS = (-3, -2, -1, 1, 2, 3)
DRAW_STEPS = (1, 2)
PAY_STEPS = (1, 2, 3, 4)


def _check(kind: str, value: Any, where: str, nullable: bool) -> Any:
    if value is None:
        if nullable:
            return None
        raise ActionFormatError(f"{where} must not be null")
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ActionFormatError(f"{where} must be a whole number, got {value!r}")
        return value
    if kind == "str":
        if not isinstance(value, str):
            raise ActionFormatError(f"{where} must be a string, got {value!r}")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise ActionFormatError(f"{where} must be true or false, got {value!r}")
        return value
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
    """Base of every action; ``type`` is the JSON tag, ``schema`` maps field -> (kind, required, nullable)."""

    type: ClassVar[str] = ""
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        names = _FIELDS.get(type(self))
        if names is None:
            names = _FIELDS[type(self)] = tuple(f.name for f in fields(self))
        for name in names:
            value = getattr(self, name)
            kind = self.schema[name][0]
            if kind == "names":
                value = list(value)
            elif kind == "options":
                value = dict(value)
            out[name] = value
        return out


_FIELDS: dict[type, tuple[str, ...]] = {}


@dataclass(frozen=True, slots=True)
class NewGame(Action):
    """Start: player names in seat order (clockwise) and the options (see ``setup_spec``)."""

    type: ClassVar[str] = "new_game"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {
        "game": ("str", False, False), "players": ("names", True, False),
        "options": ("options", False, False)}
    players: tuple[str, ...] = ()
    game: str = "dodos-riding-dinos"
    options: tuple[tuple[str, Any], ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Reveal(Action):
    """Scheming: ``seat`` revealed a ``kind`` card (normal/aggressive, or "none": no such card in hand)
    of ``speed``; ``red_kiwi``: an Aggressive card played with the Red Kiwi power-up."""

    type: ClassVar[str] = "reveal"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {
        "seat": ("int", True, False), "kind": ("str", True, False), "speed": ("int", False, False),
        "red_kiwi": ("bool", False, False)}
    seat: int = 0
    kind: str = "normal"
    speed: int = 0
    red_kiwi: bool = False


@dataclass(frozen=True, slots=True)
class ChallengerCard(Action):
    """The top card of Challenger ``racer``: entered by the host, or ``drawn`` by the companion (chance)."""

    type: ClassVar[str] = "challenger_card"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {
        "racer": ("int", True, False), "kind": ("str", True, False), "speed": ("int", True, False),
        "drawn": ("bool", False, False)}
    racer: int = 0
    kind: str = "normal"
    speed: int = 0
    drawn: bool = False


@dataclass(frozen=True, slots=True)
class ChallengerDice(Action):
    """The sum of the dice rolled for a Challenger's Reaction card (the green modifier's count)."""

    type: ClassVar[str] = "challenger_dice"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"total": ("int", True, False)}
    total: int = 0


@dataclass(frozen=True, slots=True)
class ShortcutRoll(Action):
    """The die rolled on a Polaria shortcut signal (4-6 success, 1-3 failure and 1 damage)."""

    type: ClassVar[str] = "shortcut_roll"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"value": ("int", True, False)}
    value: int = 1


@dataclass(frozen=True, slots=True)
class GlassJump(Action):
    """One flick of the Egg from a glass ramp: the ``landing`` hex it touched, or None (missed)."""

    type: ClassVar[str] = "glass_jump"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"landing": ("int", False, True)}
    landing: int | None = None


@dataclass(frozen=True, slots=True)
class GlassFail(Action):
    """Out of jumping attempts: ``damage`` (2 damage, to the smallest paw) or ``stay`` on the ramp."""

    type: ClassVar[str] = "glass_fail"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"choice": ("str", True, False)}
    choice: str = "stay"


@dataclass(frozen=True, slots=True)
class Flame(Action):
    """Ended the advance exactly on a flame hex: ``ashes``, ``fireballs`` or ``ignore`` (the adjacent hex)."""

    type: ClassVar[str] = "flame"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"choice": ("str", True, False)}
    choice: str = "ignore"


@dataclass(frozen=True, slots=True)
class PlayReaction(Action):
    """``seat`` plays a Reaction card (discarded); ``cancels``: it is a Block/Megablock on the effect."""

    type: ClassVar[str] = "reaction"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"seat": ("int", True, False),
                                                           "cancels": ("bool", False, False)}
    seat: int = 0
    cancels: bool = False


@dataclass(frozen=True, slots=True)
class Pay(Action):
    """The current racer's own card costs it ``cards`` damage; more than its hand cancels the effect."""

    type: ClassVar[str] = "pay"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"cards": ("int", True, False)}
    cards: int = 1


@dataclass(frozen=True, slots=True)
class Damage(Action):
    """An effect deals ``cards`` damage to ``racer`` (discards that many, or all it has)."""

    type: ClassVar[str] = "damage"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"racer": ("int", True, False),
                                                           "cards": ("int", True, False)}
    racer: int = 0
    cards: int = 1


@dataclass(frozen=True, slots=True)
class Move(Action):
    """An effect moves ``racer`` ``hexes`` forward (positive) or back (negative)."""

    type: ClassVar[str] = "move"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"racer": ("int", True, False),
                                                           "hexes": ("int", True, False)}
    racer: int = 0
    hexes: int = 1


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """An effect, ability or power lets ``racer`` draw ``cards`` from the Movement deck."""

    type: ClassVar[str] = "draw"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"racer": ("int", True, False),
                                                           "cards": ("int", True, False)}
    racer: int = 0
    cards: int = 1


@dataclass(frozen=True, slots=True)
class Steal(Action):
    """``racer`` takes one card (at random) from ``from_racer``'s hand."""

    type: ClassVar[str] = "steal"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"racer": ("int", True, False),
                                                           "from_racer": ("int", True, False)}
    racer: int = 0
    from_racer: int = 1


@dataclass(frozen=True, slots=True)
class Launch(Action):
    """``seat`` launched a ``projectile`` (the hits are entered as damage): kept for the achievements."""

    type: ClassVar[str] = "launch"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"seat": ("int", True, False),
                                                           "projectile": ("str", True, False)}
    seat: int = 0
    projectile: str = "egg"


@dataclass(frozen=True, slots=True)
class RollDie(Action):
    """``seat`` rolled a die for an effect, ability or power (its result is entered as its effect)."""

    type: ClassVar[str] = "roll_die"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"seat": ("int", True, False)}
    seat: int = 0


@dataclass(frozen=True, slots=True)
class DiscardPowerUp(Action):
    """``racer`` discards one Power-up card (a power that says so)."""

    type: ClassVar[str] = "discard_power_up"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"racer": ("int", True, False)}
    racer: int = 0


@dataclass(frozen=True, slots=True)
class OpenEntries(Action):
    """Opens the window's entries (Reactions, effects, abilities, powers); ``done`` closes it."""

    type: ClassVar[str] = "open_entries"


@dataclass(frozen=True, slots=True)
class Done(Action):
    """Closes the open window (a turn's reactions and effects, the end-of-round or start-of-race powers)."""

    type: ClassVar[str] = "done"


@dataclass(frozen=True, slots=True)
class TiebreakRoll(Action):
    """Cup tiebreak: the die rolled by ``racer`` (highest roll wins the tied place)."""

    type: ClassVar[str] = "tiebreak_roll"
    schema: ClassVar[dict[str, tuple[str, bool, bool]]] = {"racer": ("int", True, False),
                                                           "value": ("int", True, False)}
    racer: int = 0
    value: int = 1


ACTION_TYPES: tuple[type[Action], ...] = (
    NewGame, Reveal, ChallengerCard, ChallengerDice, ShortcutRoll, GlassJump, GlassFail, Flame, PlayReaction,
    Pay, Damage, Move, Draw, Steal, Launch, RollDie, DiscardPowerUp, OpenEntries, Done, TiebreakRoll)

_BY_TYPE: MappingProxyType[str, type[Action]] = MappingProxyType({cls.type: cls for cls in ACTION_TYPES})


def action_from_json(data: Any) -> Action:
    """Build a typed action from its JSON object; raise ActionFormatError naming the problem."""
    if isinstance(data, Action):
        return data
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
