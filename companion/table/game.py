"""The controller's view of a game: the Dingo Disc rules core behind a small adapter.

:class:`GameAdapter` is what :class:`companion.table.TableController` needs from a game (so the
controller and its tests do not depend on the rules core's internals); :class:`DingoDiscGame`
implements it with ``companion.games`` (docs/actions.md). Sensed events become actions here.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any, Protocol

from companion.table.prompts import SIZES, pawns_text

COLOURS = ("red", "yellow", "green", "blue", "purple", "orange")

NO_GAME_STATE: dict = {
    "game": "dingo-disc", "phase": "setup", "players": [], "current": None, "dice": None,
    "disc_pawns": [], "flags": [], "winner": None, "draw": False,
    "expected": {"kind": "new_game", "player": None,
                 "prompt": "Start a new game: players, their names and the rules version"},
}


class IllegalMove(Exception):
    """The rules refuse an action: ``rule`` is a short id, ``reason`` a sentence."""

    def __init__(self, message: str, rule: str, reason: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.reason = reason


class GameAdapter(Protocol):
    """What the controller calls; ``match`` is opaque to it (None = no game started yet)."""

    def new_match(self, setup: dict | None) -> Any:
        """A new match from a ``new_game`` action JSON, or None for 'no game yet'."""

    def apply(self, match: Any, action: dict) -> dict:
        """Apply an action JSON in place; return its normalised JSON. IllegalMove / ValueError."""

    def undo(self, match: Any) -> dict:
        """Drop the last action; return it."""

    def can_undo(self, match: Any) -> bool:
        """True if there is an action to undo."""

    def state_json(self, match: Any) -> dict:
        """The state as JSON, with ``expected``."""

    def history_json(self, match: Any) -> list[dict]:
        """Every action so far, as JSON."""

    def describe(self, action: dict) -> str:
        """A short line for the feed."""

    def roll_action(self, state: dict, rng: random.Random) -> dict | None:
        """The dice action expected now with random faces, or None if no dice are expected."""

    def actions_for_sensed(self, event: dict, state: dict) -> list[dict]:
        """Proposals for one sensed event: ``{"action": {...}}`` or ``{"prompt": {...}}``."""


def roll_for(expected: dict, rng: random.Random, players: int = 0) -> dict | None:
    """Random dice for what ``expected`` asks (colour+number, number, a colour, a first player)."""
    kind = expected.get("kind")
    if kind == "roll":
        dice = expected.get("dice") or ["colour", "number"]
        action: dict = {"type": "roll", "number": rng.randint(1, 6)}
        if "colour" in dice:
            action["colour"] = rng.choice(COLOURS)
        return action
    if kind == "roll_colour":
        return {"type": "roll_colour", "colour": rng.choice(COLOURS)}
    if kind == "first_player" and players > 0:
        return {"type": "first_player", "seat": rng.randrange(players), "drawn": True}
    return None


def track_tip(event: dict, tipping: bool) -> tuple[dict, bool]:
    """The one memory the mapping needs: whether the disc tipped since it was last still.

    Returns ``(event to map, tipping after it)``: ``tipped`` sets it, ``settled`` clears it, a
    ``fell`` event gets ``"tipped"`` set from it. Used by the live controller and by
    ``replay SESSION`` (``companion.session.replay_cli``), so both map events the same way.
    """
    kind = event.get("event")
    if kind == "fell":
        return {**event, "tipped": tipping}, tipping
    return event, (True if kind == "tipped" else False if kind == "settled" else tipping)


def sensed_to_actions(event: dict, state: dict) -> list[dict]:
    """Map one sensed event (spec format) to proposals for the rules core.

    placed -> ``place`` (sensed: zone/number/position; an unsure size also asks the host to check
    it); fell -> ``fall`` (tipped if the disc tipped since it was last still; unconfident ->
    the core waits for ``confirm_fall``); hand -> ``hand``; removed -> ``removed``.
    Events that change nothing in the rules (tipped, settled, fault) give no proposal.
    """
    kind = event.get("event")
    phase = state.get("phase")
    if phase in (None, "setup", "over"):
        return []
    if kind == "placed" and event.get("size") in SIZES:
        action = {"type": "place", "size": event["size"], "zone": event.get("zone"),
                  "number": event.get("number"), "x_mm": _num(event.get("x_mm")),
                  "y_mm": _num(event.get("y_mm")), "sensed": True}
        out = [{"action": action}]
        if event.get("confident") is False:
            others = [s for s in SIZES if s != event["size"]]
            out.append({"prompt": {
                "kind": "check_size", "title": "Which size was placed?",
                "text": f"The sensors read a {event['size']} pawn but are not sure.",
                "choices": {event["size"]: None,
                            **{s: {"type": "correct_size", "size": s} for s in others}},
                "resolves": "correct_size"}})
        return out
    if kind == "fell":
        pawns = {s: int(v) for s, v in (event.get("pawns") or {}).items() if s in SIZES and v}
        if not pawns:
            return []
        return [{"action": {"type": "fall", "pawns": pawns, "tipped": bool(event.get("tipped", False)),
                            "confident": event.get("confident") is not False}}]
    if kind == "hand":
        return [{"action": {"type": "hand", "duration_ms": max(0, int(event.get("duration_ms") or 0))}}]
    if kind == "removed" and event.get("size") in SIZES:
        return [{"action": {"type": "removed", "size": event["size"]}}]
    return []


def describe_action(action: dict, names: list[str]) -> str:
    """A feed line for an action, with player names where the action names a seat."""
    def who(seat: Any) -> str:
        return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else f"seat {seat}"

    kind = action.get("type")
    if kind == "new_game":
        return f"New game (version {action.get('version')}): " + ", ".join(action.get("players") or [])
    if kind == "first_player":
        return f"{who(action.get('seat'))} plays first" + (" (drawn)" if action.get("drawn") else "")
    if kind == "roll":
        number = action.get("number")
        face = "PENALTY (1)" if number == 1 else str(number)
        colour = action.get("colour")
        return f"Rolled {str(colour).upper() + ' ' if colour else ''}{face}"
    if kind == "roll_colour":
        return f"Colour die: {str(action.get('colour')).upper()}"
    if kind == "give":
        return f"{who(action.get('giver'))} gives a {action.get('size')} pawn"
    if kind == "place":
        where = (f"{str(action.get('zone')).upper()} {action.get('number')}" if action.get("zone")
                 else "a line" if action.get("sensed") else "the rolled spot")
        return f"Placed a {action.get('size')} pawn on {where}"
    if kind == "fall":
        fell = pawns_text(action.get("pawns"))
        return ("Tipped! " if action.get("tipped") else "") + f"{fell} fell" + (
            " (to confirm)" if action.get("confident") is False else "")
    if kind in ("confirm_fall", "correct_fall"):
        pawns = action.get("pawns")
        return ("Fall confirmed" if kind == "confirm_fall" else "Fall corrected") + (
            f": {pawns_text(pawns)}" if pawns else "")
    if kind == "hand":
        return f"Hand on the disc! ({int(action.get('duration_ms') or 0) / 1000:.1f} s)"
    if kind == "removed":
        return f"A {action.get('size')} pawn was lifted off"
    labels = {"take_dice": "Dice taken", "accept_placement": "Placement accepted",
              "redo_placement": "Placement to redo", "end_game": "Game over",
              "dismiss_flag": "Flag dismissed", "correct_size": f"Size corrected to {action.get('size')}"}
    return labels.get(str(kind), str(kind))


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


class DingoDiscGame:
    """:class:`GameAdapter` over the real rules core (``companion.games``)."""

    def __init__(self) -> None:
        """Import the rules core (raises ImportError naming what is missing)."""
        from companion.games import get_game
        from companion.games.dingo_disc import Match

        self._rules = get_game("dingo-disc")
        self._match_cls = Match

    @contextlib.contextmanager
    def _moves(self) -> Iterator[None]:
        """Raise the rules core's ``IllegalAction`` as :class:`IllegalMove` (a ``ValueError`` passes)."""
        try:
            yield
        except ValueError:
            raise
        except Exception as exc:
            if type(exc).__name__ == "IllegalAction":
                raise IllegalMove(str(exc), str(getattr(exc, "rule", "illegal")),
                                  str(getattr(exc, "reason", exc))) from exc
            raise

    def _parse(self, action: Any) -> Any:
        if not isinstance(action, dict):
            raise ValueError("an action must be a JSON object")
        return self._rules.action_from_json(action)

    def new_match(self, setup: dict | None) -> Any:
        """See :class:`GameAdapter`; ``setup`` is a ``new_game`` action (``type`` optional)."""
        if setup is None:
            return None
        if not isinstance(setup, dict):
            raise ValueError("a new game must be a JSON object")
        setup = {"type": "new_game", **setup}
        if setup["type"] != "new_game":
            raise ValueError(f"a new game starts with a new_game action, not {setup['type']!r}")
        with self._moves():
            return self._match_cls.replay([self._parse(setup)])

    def replay(self, actions: list[dict]) -> Any:
        """Rebuild a match from its logged actions (``new_game`` first); raises on a bad log."""
        if not actions or actions[0].get("type") != "new_game":
            raise ValueError("a logged game must start with new_game")
        return self._match_cls.replay([self._parse(a) for a in actions])

    def apply(self, match: Any, action: dict) -> dict:
        """See :class:`GameAdapter`."""
        if match is None:
            raise IllegalMove("no game yet: start a new game first", "no-game", "no game has been started")
        parsed = self._parse(action)
        with self._moves():
            match.apply(parsed)
        return parsed.to_json()

    def undo(self, match: Any) -> dict:
        """See :class:`GameAdapter`."""
        last = match.history[-1]
        match.undo()
        return last.to_json() if hasattr(last, "to_json") else dict(last)

    def can_undo(self, match: Any) -> bool:
        """See :class:`GameAdapter`."""
        return match is not None and len(match.history) > 1

    def state_json(self, match: Any) -> dict:
        """See :class:`GameAdapter`."""
        return dict(NO_GAME_STATE) if match is None else match.state.to_json()

    def history_json(self, match: Any) -> list[dict]:
        """See :class:`GameAdapter`."""
        if match is None:
            return []
        return [a.to_json() if hasattr(a, "to_json") else dict(a) for a in match.history]

    def describe(self, action: dict, names: list[str] | None = None) -> str:
        """See :class:`GameAdapter`."""
        return describe_action(action, names or [])

    def roll_action(self, state: dict, rng: random.Random) -> dict | None:
        """See :class:`GameAdapter`."""
        return roll_for(state.get("expected") or {}, rng, len(state.get("players") or []))

    def actions_for_sensed(self, event: dict, state: dict) -> list[dict]:
        """See :class:`GameAdapter`."""
        return sensed_to_actions(event, state)
