"""Dice and the panel's buttons (roll, confirm, undo): what each means in the game now."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.table.current import CurrentMatch
from companion.table.errors import RequestError
from companion.table.prompts import PendingPrompts

PANEL_BUTTONS = ("roll", "confirm", "undo")


class Buttons:
    """Rolling, entering physical dice and the confirm button, as actions or prompt answers.

    Called with the controller's lock held; it is handed the current match, the dice's random
    source, the open prompts and the controller's ``apply`` and ``resolve_prompt``.
    """

    def __init__(self, current: CurrentMatch, rng: Any, pending: PendingPrompts, *,
                 apply: Callable[..., dict], resolve: Callable[..., dict]) -> None:
        """``apply(action, source=, by=)`` and ``resolve(prompt_id, choice, source=)``: the controller's."""
        self._current = current
        self._rng = rng
        self._pending = pending
        self._apply = apply
        self._resolve = resolve

    def roll(self, source: str) -> dict:
        """Roll what the game expects now and apply it as an action (logged as the companion's)."""
        state = self._current.state()
        action = self._current.game.roll_action(state, self._rng)
        if action is None:
            expected = (state.get("expected") or {}).get("kind", "nothing")
            raise RequestError(f"no dice to roll now: the table expects {expected}", 409)
        return self._apply(action, source=source, by="companion")

    def enter_roll(self, body: dict, source: str) -> dict:
        """Apply dice read from physical dice: ``{"number": n, "colour": c}`` (or colour only)."""
        expected = (self._current.state().get("expected") or {}).get("kind")
        if expected == "roll_colour":
            return self._apply({"type": "roll_colour", "colour": body.get("colour")}, source=source)
        if expected != "roll":
            raise RequestError(f"no dice to enter now: the table expects {expected}", 409)
        action = {"type": "roll", "number": body.get("number")}
        if body.get("colour") is not None:
            action["colour"] = body["colour"]
        return self._apply(action, source=source)

    def confirm(self, source: str) -> dict:
        """The confirm button: the obvious yes (a fall, the end, a placement), else the first choice
        of the oldest prompt, else (another game) the one thing to do, if there is only one."""
        state = self._current.state()
        kind = (state.get("expected") or {}).get("kind")
        confirm = {"confirm_fall": {"type": "confirm_fall"}, "end_game": {"type": "end_game"},
                   "review_placement": {"type": "accept_placement"}}.get(kind)
        if confirm is not None:
            return self._apply(confirm, source=source)
        prompts = self._pending.to_json()
        if prompts:
            return self._resolve(prompts[0]["id"], prompts[0]["choices"][0], source=source)
        if state.get("game") != "dingo-disc":
            choices = [la["action"] for la in state.get("legal") or [] if not la.get("chance")]
            if len(choices) == 1:
                return self._apply(choices[0], source=source)
        raise RequestError(f"nothing to confirm now: the table expects {kind}", 409)
