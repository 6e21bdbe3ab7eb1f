"""Dodos Riding Dinos actions: frozen dataclasses with a ``type`` tag and a JSON form.

Racers are numbered: the players first (racer i = seat i), then the Challengers. Amounts entered for
effects come in small steps (a card's "5 damage" is entered as two entries) so the list of legal
actions stays short enough for big buttons.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from companion.games.actionjson import ActionTypes, Field, JsonAction, Schema

KINDS = ("normal", "aggressive")
CHALLENGER_KINDS = ("normal", "aggressive", "reaction")
PROJECTILES = ("banana", "egg", "meteorite", "feather", "log")
MAX_SPEED = 8
"""Highest Speed value a card can be entered with (the printed cards stay below it)."""
DAMAGE_STEPS = (1, 2, 3)
MOVE_STEPS = (-3, -2, -1, 1, 2, 3)
DRAW_STEPS = (1, 2)
PAY_STEPS = (1, 2, 3, 4)


@dataclass(frozen=True, slots=True)
class Action(JsonAction):
    """Base of every action; ``type`` is the JSON tag, ``schema`` maps field -> Field(kind, required,
    nullable)."""

    type: ClassVar[str] = ""
    schema: ClassVar[Schema] = {}


@dataclass(frozen=True, slots=True)
class NewGame(Action):
    """Start: player names in seat order (clockwise) and the options (see ``setup_spec``)."""

    type: ClassVar[str] = "new_game"
    schema: ClassVar[Schema] = {
        "game": Field("str"), "players": Field("names", required=True), "options": Field("options")}
    players: tuple[str, ...] = ()
    game: str = "dodos-riding-dinos"
    options: tuple[tuple[str, Any], ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Reveal(Action):
    """Scheming: ``seat`` revealed a ``kind`` card (normal/aggressive, or "none": no such card in hand)
    of ``speed``; ``red_kiwi``: an Aggressive card played with the Red Kiwi power-up."""

    type: ClassVar[str] = "reveal"
    schema: ClassVar[Schema] = {
        "seat": Field("int", required=True), "kind": Field("str", required=True), "speed": Field("int"),
        "red_kiwi": Field("bool")}
    seat: int = 0
    kind: str = "normal"
    speed: int = 0
    red_kiwi: bool = False


@dataclass(frozen=True, slots=True)
class ChallengerCard(Action):
    """The top card of Challenger ``racer``: entered by the host, or ``drawn`` by the companion (chance)."""

    type: ClassVar[str] = "challenger_card"
    schema: ClassVar[Schema] = {
        "racer": Field("int", required=True), "kind": Field("str", required=True),
        "speed": Field("int", required=True), "drawn": Field("bool")}
    racer: int = 0
    kind: str = "normal"
    speed: int = 0
    drawn: bool = False


@dataclass(frozen=True, slots=True)
class ChallengerDice(Action):
    """The sum of the dice rolled for a Challenger's Reaction card (the green modifier's count)."""

    type: ClassVar[str] = "challenger_dice"
    schema: ClassVar[Schema] = {"total": Field("int", required=True)}
    total: int = 0


@dataclass(frozen=True, slots=True)
class ShortcutRoll(Action):
    """The die rolled on a Polaria shortcut signal (4-6 success, 1-3 failure and 1 damage)."""

    type: ClassVar[str] = "shortcut_roll"
    schema: ClassVar[Schema] = {"value": Field("int", required=True)}
    value: int = 1


@dataclass(frozen=True, slots=True)
class GlassJump(Action):
    """One flick of the Egg from a glass ramp: the ``landing`` hex it touched, or None (missed)."""

    type: ClassVar[str] = "glass_jump"
    schema: ClassVar[Schema] = {"landing": Field("int", nullable=True)}
    landing: int | None = None


@dataclass(frozen=True, slots=True)
class GlassFail(Action):
    """Out of jumping attempts: ``damage`` (2 damage, to the smallest paw) or ``stay`` on the ramp."""

    type: ClassVar[str] = "glass_fail"
    schema: ClassVar[Schema] = {"choice": Field("str", required=True)}
    choice: str = "stay"


@dataclass(frozen=True, slots=True)
class Flame(Action):
    """Ended the advance exactly on a flame hex: ``ashes``, ``fireballs`` or ``ignore`` (the adjacent hex)."""

    type: ClassVar[str] = "flame"
    schema: ClassVar[Schema] = {"choice": Field("str", required=True)}
    choice: str = "ignore"


@dataclass(frozen=True, slots=True)
class PlayReaction(Action):
    """``seat`` plays a Reaction card (discarded); ``cancels``: it is a Block/Megablock on the effect."""

    type: ClassVar[str] = "reaction"
    schema: ClassVar[Schema] = {"seat": Field("int", required=True), "cancels": Field("bool")}
    seat: int = 0
    cancels: bool = False


@dataclass(frozen=True, slots=True)
class Pay(Action):
    """The current racer's own card costs it ``cards`` damage; more than its hand cancels the effect."""

    type: ClassVar[str] = "pay"
    schema: ClassVar[Schema] = {"cards": Field("int", required=True)}
    cards: int = 1


@dataclass(frozen=True, slots=True)
class Damage(Action):
    """An effect deals ``cards`` damage to ``racer`` (discards that many, or all it has)."""

    type: ClassVar[str] = "damage"
    schema: ClassVar[Schema] = {"racer": Field("int", required=True), "cards": Field("int", required=True)}
    racer: int = 0
    cards: int = 1


@dataclass(frozen=True, slots=True)
class Move(Action):
    """An effect moves ``racer`` ``hexes`` forward (positive) or back (negative)."""

    type: ClassVar[str] = "move"
    schema: ClassVar[Schema] = {"racer": Field("int", required=True), "hexes": Field("int", required=True)}
    racer: int = 0
    hexes: int = 1


@dataclass(frozen=True, slots=True)
class Draw(Action):
    """An effect, ability or power lets ``racer`` draw ``cards`` from the Movement deck."""

    type: ClassVar[str] = "draw"
    schema: ClassVar[Schema] = {"racer": Field("int", required=True), "cards": Field("int", required=True)}
    racer: int = 0
    cards: int = 1


@dataclass(frozen=True, slots=True)
class Steal(Action):
    """``racer`` takes one card (at random) from ``from_racer``'s hand."""

    type: ClassVar[str] = "steal"
    schema: ClassVar[Schema] = {
        "racer": Field("int", required=True), "from_racer": Field("int", required=True)}
    racer: int = 0
    from_racer: int = 1


@dataclass(frozen=True, slots=True)
class Launch(Action):
    """``seat`` launched a ``projectile`` (the hits are entered as damage): kept for the achievements."""

    type: ClassVar[str] = "launch"
    schema: ClassVar[Schema] = {
        "seat": Field("int", required=True), "projectile": Field("str", required=True)}
    seat: int = 0
    projectile: str = "egg"


@dataclass(frozen=True, slots=True)
class RollDie(Action):
    """``seat`` rolled a die for an effect, ability or power (its result is entered as its effect)."""

    type: ClassVar[str] = "roll_die"
    schema: ClassVar[Schema] = {"seat": Field("int", required=True)}
    seat: int = 0


@dataclass(frozen=True, slots=True)
class DiscardPowerUp(Action):
    """``racer`` discards one Power-up card (a power that says so)."""

    type: ClassVar[str] = "discard_power_up"
    schema: ClassVar[Schema] = {"racer": Field("int", required=True)}
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
    schema: ClassVar[Schema] = {"racer": Field("int", required=True), "value": Field("int", required=True)}
    racer: int = 0
    value: int = 1


ACTION_TYPES: tuple[type[Action], ...] = (
    NewGame, Reveal, ChallengerCard, ChallengerDice, ShortcutRoll, GlassJump, GlassFail, Flame, PlayReaction,
    Pay, Damage, Move, Draw, Steal, Launch, RollDie, DiscardPowerUp, OpenEntries, Done, TiebreakRoll)

ACTIONS = ActionTypes(ACTION_TYPES)
"""The parser of the Dodos actions' JSON objects."""


def action_from_json(data: Any) -> Action:
    """Build a typed action from its JSON object (an action passes through); raise ActionFormatError
    naming the problem."""
    if isinstance(data, Action):
        return data
    return ACTIONS.from_json(data)
