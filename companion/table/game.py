"""The controller's view of a game: any registered game module behind one small adapter.

:class:`GameAdapter` is what :class:`companion.table.TableController` needs from a game (so the
controller and its tests do not depend on a rules core's internals); :class:`ModuleGame`
implements it over every module of ``companion.games.GAMES`` (``new_game.game`` chooses; the
Dingo Disc when it is absent). The state JSON it gives is the game's ``state.to_json()`` plus
``legal``, ``to_move``, ``next``, ``outcome`` and ``title`` (and an ``expected`` built from them
when the game has none). The Dingo Disc's own parts stay here: its sensed events become actions
(:func:`sensed_to_actions`) and its dice are drawn as before (:func:`roll_for`).
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

from companion.games.dingo_disc.describe import describe_action
from companion.table.prompts import SIZES, no_fall_prompt

__all__ = ["FALL_PHASES", "NO_GAME_STATE", "PLATFORM_KEYS", "TIP_FELL", "TIP_STILL", "TIP_TIPPED",
           "DingoDiscGame", "GameAdapter", "IllegalMove", "ModuleGame", "describe_action", "game_json",
           "roll_for", "sensed_to_actions", "track_tip"]

COLOURS = ("red", "yellow", "green", "blue", "purple", "orange")

NO_GAME_STATE: dict = {
    "game": "dingo-disc", "phase": "setup", "players": [], "current": None, "dice": None,
    "disc_pawns": [], "flags": [], "winner": None, "draw": False,
    "expected": {"kind": "new_game", "player": None,
                 "prompt": "Start a new game: players, their names and the rules version"},
    "legal": [], "to_move": None, "next": "Start a new game: choose the game and the players",
    "outcome": None, "title": None,
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

    def describe(self, action: dict, names: list[str] | None = None, match: Any = None,
                 applied: bool = True) -> str:
        """A short line for the feed (``applied``: the match's last action, else one just undone)."""

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


TIP_STILL, TIP_TIPPED, TIP_FELL = "still", "tipped", "fell"
"""What :func:`track_tip` remembers: the disc is still; it tipped and no pawn was seen falling yet;
it tipped and a fall with pawns was seen."""
FALL_PHASES = ("roll", "penalty", "place", "review", "ending")
"""The Disc's phases in which the rules take a new ``fall`` (``rules._fall``; in ``confirm_fall`` one is
being confirmed already)."""


def track_tip(event: dict, tipping: str) -> tuple[dict, str]:
    """The one memory the mapping needs: whether the disc tipped since it was last still, and whether
    a fall with pawns was seen since (``TIP_STILL``, ``TIP_TIPPED``, ``TIP_FELL``; anything else
    raises a ``ValueError`` naming it).

    Returns ``(event to map, memory after it)``: ``tipped`` starts a tip episode, ``settled`` ends it,
    a ``fell`` event gets ``"tipped"`` set from it, and a ``settled`` ending an episode in which no
    fall with pawns was seen gets ``"no_fall_seen": true`` (the host is asked). Used by the live
    controller and by ``replay SESSION`` (``companion.session.replay_cli``), so both map events alike.
    """
    if tipping not in (TIP_STILL, TIP_TIPPED, TIP_FELL):
        raise ValueError(f"tip memory must be one of {TIP_STILL!r}, {TIP_TIPPED!r}, {TIP_FELL!r}, "
                         f"got {tipping!r}")
    memory = tipping
    kind = event.get("event")
    if kind == "fell":
        seen = memory != TIP_STILL and any(isinstance(v, int | float) and v for v in
                                           (event.get("pawns") or {}).values())
        return {**event, "tipped": memory != TIP_STILL}, TIP_FELL if seen else memory
    if kind == "tipped":
        return event, TIP_TIPPED if memory == TIP_STILL else memory
    if kind == "settled":
        return ({**event, "no_fall_seen": True} if memory == TIP_TIPPED else event), TIP_STILL
    return event, memory


def sensed_to_actions(event: dict, state: dict) -> list[dict]:
    """Map one sensed event (spec format) to proposals for the rules core.

    placed -> ``place`` (sensed: zone/number/position; an unsure size also asks the host to check
    it); fell -> ``fall`` (tipped if the disc tipped since it was last still; unconfident ->
    the core waits for ``confirm_fall``); hand -> ``hand``; removed -> ``removed``; a settled that
    ends a tip in which no fall was seen (``no_fall_seen``, see :func:`track_tip`) -> the host is asked
    what fell (a ``tip_no_fall`` prompt, answered with a ``fall``), when pawns are on the disc and the
    rules take a fall now. Other events (tipped, settled, fault) give no proposal.
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
    if kind == "settled" and event.get("no_fall_seen") is True and phase in FALL_PHASES:
        prompt = no_fall_prompt(state)
        return [{"prompt": prompt}] if prompt is not None else []
    return []


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


PLATFORM_KEYS = ("legal", "to_move", "next", "outcome", "title", "scoring")
"""What :meth:`ModuleGame.state_json` adds to the game's own ``state.to_json()``."""


def game_json(state: dict) -> dict:
    """A state JSON of the table without what the platform added (the game's own JSON)."""
    return {k: v for k, v in state.items() if k not in PLATFORM_KEYS}


class ModuleGame:
    """:class:`GameAdapter` over the registered game modules (``companion.games.GAMES``).

    ``games``: another registry (tests register a tiny game this way); ``default``: the game of a
    ``new_game`` that names none.
    """

    def __init__(self, games: Mapping[str, Any] | None = None, default: str = "dingo-disc") -> None:
        """Use ``games`` (default: every registered game)."""
        if games is None:
            from companion.games import GAMES

            games = GAMES
        self.games = games
        self.default = default if default in games else next(iter(games))
        self._cache: tuple[Any, dict] | None = None

    # -- choosing the game

    def rules_for(self, name: Any) -> Any:
        """The module of game ``name`` (None: the default); ValueError naming the known games."""
        key = self.default if name is None else name
        if key == "dingo_disc":  # the old spelling in early session logs
            key = "dingo-disc"
        rules = self.games.get(key) if isinstance(key, str) else None
        if rules is None:
            raise ValueError(f"unknown game {name!r}; known games: {', '.join(sorted(self.games))}")
        return rules

    def catalogue(self) -> list[dict]:
        """Every game for the start screen: name, title, scoring and setup spec."""
        return [{"name": r.name, "title": r.title, "scoring": r.scoring, "setup": r.setup_spec().to_json()}
                for r in self.games.values()]

    @contextlib.contextmanager
    def _moves(self) -> Iterator[None]:
        """Raise the rules core's ``IllegalAction`` as :class:`IllegalMove` (a ``ValueError`` passes)."""
        from companion.games.base import IllegalAction

        try:
            yield
        except ValueError:
            raise
        except IllegalAction as exc:
            raise IllegalMove(str(exc), str(exc.rule or "illegal"), str(exc.reason or exc)) from exc

    def _parse(self, rules: Any, action: Any) -> Any:
        if not isinstance(action, dict):
            raise ValueError("an action must be a JSON object")
        return rules.action_from_json(action)

    # -- the adapter

    def new_match(self, setup: dict | None) -> Any:
        """See :class:`GameAdapter`; ``setup`` is a ``new_game`` action (``type`` optional)."""
        from companion.games.match import GameMatch

        if setup is None:
            return None
        if not isinstance(setup, dict):
            raise ValueError("a new game must be a JSON object")
        setup = {"type": "new_game", **setup}
        if setup["type"] != "new_game":
            raise ValueError(f"a new game starts with a new_game action, not {setup['type']!r}")
        rules = self.rules_for(setup.get("game"))
        setup.setdefault("game", rules.name)
        with self._moves():
            return GameMatch(rules, self._parse(rules, setup))

    def replay(self, actions: list[dict]) -> Any:
        """Rebuild a match from its logged actions (``new_game`` first); raises on a bad log."""
        from companion.games.match import GameMatch

        if not actions or actions[0].get("type") != "new_game":
            raise ValueError("a logged game must start with new_game")
        rules = self.rules_for(actions[0].get("game"))
        return GameMatch.replay(rules, [self._parse(rules, a) for a in actions])

    def apply(self, match: Any, action: dict) -> dict:
        """See :class:`GameAdapter`."""
        if match is None:
            raise IllegalMove("no game yet: start a new game first", "no-game", "no game has been started")
        parsed = self._parse(match.rules, action)
        with self._moves():
            match.apply(parsed)
        return parsed.to_json()

    def undo(self, match: Any) -> dict:
        """See :class:`GameAdapter`."""
        return match.undo().to_json()

    def can_undo(self, match: Any) -> bool:
        """See :class:`GameAdapter`."""
        return match is not None and len(match.history) > 1

    def state_json(self, match: Any) -> dict:
        """See :class:`GameAdapter`: the game's JSON plus legal, to_move, next, outcome, title."""
        if match is None:
            return dict(NO_GAME_STATE)
        state = match.state
        if self._cache is not None and self._cache[0] is state:
            return dict(self._cache[1])
        rules = match.rules
        data = state.to_json()
        legal = rules.legal_actions(state)
        to_move = rules.to_move(state)
        outcome = rules.outcome(state)
        nxt = rules.describe_next(state)
        data["legal"] = [{"action": la.action.to_json(), "label": la.label, "chance": la.chance,
                          "probability": la.probability} for la in legal]
        data["to_move"] = to_move.to_json()
        data["next"] = nxt
        data["outcome"] = None if outcome is None else outcome.to_json()
        data["title"] = rules.title
        data["scoring"] = rules.scoring
        if "expected" not in data:
            seats = [s for s in to_move.seats if s >= 0]
            kind = "none" if outcome is not None else "act" if seats else "chance"
            data["expected"] = {"kind": kind, "player": seats[0] if len(seats) == 1 else None,
                                "players": seats, "prompt": nxt}
        self._cache = (state, data)
        return dict(data)

    def history_json(self, match: Any) -> list[dict]:
        """See :class:`GameAdapter`."""
        return [] if match is None else [a.to_json() for a in match.history]

    def describe(self, action: dict, names: list[str] | None = None, match: Any = None,
                 applied: bool = True) -> str:
        """See :class:`GameAdapter`: the game's own sentence, with the state the action met
        (``applied``: it is the match's last action; else it was just undone)."""
        if match is None:
            return describe_action(action, names or [])
        rules = match.rules
        history, states = match.history, match.states
        try:
            if action.get("type") == "new_game":
                return rules.describe_action(states[0], history[0])
            if applied and len(history) > 1:
                return rules.describe_action(states[-2], history[-1])
            return rules.describe_action(match.state, self._parse(rules, action))  # an undone action
        except Exception:  # noqa: BLE001 - a feed line must never stop the table
            if action.get("type") == "new_game":
                return f"New game of {rules.title}: " + ", ".join(names or [])
            return str(action.get("type"))

    def roll_action(self, state: dict, rng: random.Random) -> dict | None:
        """See :class:`GameAdapter`: the Disc's dice as before; any other game's chance outcomes
        drawn by their probabilities."""
        if state.get("game") == "dingo-disc":
            return roll_for(state.get("expected") or {}, rng, len(state.get("players") or []))
        chances = [la for la in state.get("legal") or [] if la.get("chance")]
        if not chances:
            return None
        weights = [la.get("probability") or 0.0 for la in chances]
        if sum(weights) <= 0:
            weights = [1.0] * len(chances)
        return dict(rng.choices(chances, weights=weights)[0]["action"])

    def actions_for_sensed(self, event: dict, state: dict) -> list[dict]:
        """See :class:`GameAdapter`: only the Dingo Disc is sensed."""
        if state.get("game") != "dingo-disc":
            return []
        return sensed_to_actions(event, state)


class DingoDiscGame(ModuleGame):
    """The adapter the table has always used: every registered game, the Dingo Disc by default."""
