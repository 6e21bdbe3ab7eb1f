"""Dice and the panel's buttons (roll, confirm, undo) of the table controller."""

from __future__ import annotations

from typing import Any

from companion.table.errors import RequestError

PANEL_BUTTONS = ("roll", "confirm", "undo")


class ButtonsMixin:
    """Rolling, entering physical dice and the panel's buttons; uses the controller's lock and game."""

    _lock: Any
    _game: Any
    _match: Any
    _pending: Any
    _rng: Any

    def roll(self, *, source: str = "page") -> dict:
        """Roll what the game expects now (SystemRandom) and apply it as an action (logged)."""
        with self._lock:
            state = self._game.state_json(self._match)
            action = self._game.roll_action(state, self._rng)
            if action is None:
                expected = (state.get("expected") or {}).get("kind", "nothing")
                raise RequestError(f"no dice to roll now: the table expects {expected}", 409)
            return self.apply(action, source=source, by="companion")  # logged as the companion's

    def enter_roll(self, body: dict, *, source: str = "page") -> dict:
        """Apply dice read from physical dice: ``{"number": n, "colour": c}`` (or colour only)."""
        with self._lock:
            expected = (self._game.state_json(self._match).get("expected") or {}).get("kind")
            if expected == "roll_colour":
                return self.apply({"type": "roll_colour", "colour": body.get("colour")}, source=source)
            if expected != "roll":
                raise RequestError(f"no dice to enter now: the table expects {expected}", 409)
            action = {"type": "roll", "number": body.get("number")}
            if body.get("colour") is not None:
                action["colour"] = body["colour"]
            return self.apply(action, source=source)

    def press_button(self, button: str, *, source: str = "panel") -> dict:
        """A panel button (physical or on the page): roll, confirm (the obvious yes), undo."""
        if button not in PANEL_BUTTONS:
            raise RequestError(f"unknown button {button!r}; expected one of {list(PANEL_BUTTONS)}", 404)
        if button == "roll":
            return self.roll(source=source)
        if button == "undo":
            return self.undo(source=source)
        with self._lock:
            state = self._game.state_json(self._match)
            kind = (state.get("expected") or {}).get("kind")
            confirm = {"confirm_fall": {"type": "confirm_fall"}, "end_game": {"type": "end_game"},
                       "review_placement": {"type": "accept_placement"}}.get(kind)
            if confirm is not None:
                return self.apply(confirm, source=source)
            prompts = self._pending.to_json()
            if prompts:
                return self.resolve_prompt(prompts[0]["id"], prompts[0]["choices"][0], source=source)
            if state.get("game") != "dingo-disc":  # another game: the one thing to do, if only one
                choices = [la["action"] for la in state.get("legal") or [] if not la.get("chance")]
                if len(choices) == 1:
                    return self.apply(choices[0], source=source)
            raise RequestError(f"nothing to confirm now: the table expects {kind}", 409)

