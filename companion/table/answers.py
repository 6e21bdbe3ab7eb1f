"""The host's answers to the table's prompts, and the question after a tip in which no fall was seen.

A ``tipped`` ... ``settled`` episode in which the sensors saw no pawn fall (``track_tip`` marks the
``settled``) asks the host "Did any pawns fall?" (:func:`companion.table.prompts.no_fall_prompt`):
``Nothing fell`` changes nothing; ``These pawns fell`` with counts by size applies the ``fall``
(tipped, confident) the sensors would have proposed. It is not asked when a fall was entered by hand
during the episode, and it goes away once a fall is applied or the fall would go to another player
(the next player took the dice).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.table.errors import RequestError
from companion.table.prompts import NO_FALL_PROMPT, check_pawns, fall_owner, pawns_text

FALL_TYPES = ("fall", "confirm_fall", "correct_fall")
"""Actions by which a fall is entered."""


class AnswersMixin:
    """``resolve_prompt`` and the no-fall question of the table controller (uses its lock and parts)."""

    _lock: Any
    _game: Any
    _match: Any
    _pending: Any
    _tip_mark: int | None
    _apply_locked: Callable[..., dict]
    _feed_add: Callable[[dict, str], dict]
    _changed: Callable[[list[dict]], dict]

    def resolve_prompt(self, prompt_id: str, choice: str, *, pawns: Any = None, source: str = "page") -> dict:
        """Answer a pending prompt (e.g. 'which size was placed?'); ``pawns``: the counts by size of a
        choice answered with counts (``These pawns fell``). A bad answer changes nothing."""
        with self._lock:
            prompt = self._pending.get(prompt_id)
            if prompt is None:
                raise RequestError(f"no pending prompt {prompt_id!r}", 404)
            if choice not in prompt["choices"]:
                raise RequestError(f"choice must be one of {list(prompt['choices'])}, got {choice!r}")
            action = prompt["choices"][choice]
            said = choice
            counts = prompt.get("counts") or {}
            if choice == counts.get("choice"):
                if pawns is None:
                    raise RequestError(f"the answer {choice!r} needs 'pawns': the counts by size")
                disc = self._game.state_json(self._match).get("disc") or {}
                try:
                    action = {**action, "pawns": check_pawns(pawns, disc)}
                except ValueError as exc:
                    raise RequestError(f"bad answer: {exc}") from exc
                said = f"{choice}: {pawns_text(action['pawns'])}"
            elif pawns is not None:
                raise RequestError(f"the answer {choice!r} takes no pawn counts")
            entries = []
            if callable(action):  # a choice that is not a rules action (e.g. abandon the game)
                entries.append(action(source))
            elif action is not None:
                entries.append(self._apply_locked(action, source, []))
            self._pending.remove(prompt_id)
            entries.append(self._feed_add({"event": "prompt"}, f"{prompt['title']} {said}"))
            return self._changed(entries)

    def _history_length(self) -> int:
        return len(self._game.history_json(self._match))

    def _tip_began(self) -> None:
        """A ``tipped`` event: remember where the game's history was."""
        self._tip_mark = self._history_length()

    def _unasked(self, proposals: list[dict]) -> list[dict]:
        """``proposals`` without the no-fall question when a fall was entered since the tip began."""
        if not any((p.get("prompt") or {}).get("kind") == NO_FALL_PROMPT for p in proposals):
            return proposals
        history = self._game.history_json(self._match)
        since = history[min(self._tip_mark or 0, len(history)):] if self._tip_mark is not None else []
        if not any(a.get("type") in FALL_TYPES for a in since):
            return proposals
        return [p for p in proposals if (p.get("prompt") or {}).get("kind") != NO_FALL_PROMPT]

    def _drop_stale_no_fall(self) -> list[dict]:
        """Forget the no-fall question once a fall would go to another player than the one asked about."""
        asked = [p for p in self._pending.items() if p["kind"] == NO_FALL_PROMPT]
        if not asked:
            return []
        state = self._game.state_json(self._match)
        if state.get("phase") in (None, "setup", "over") or fall_owner(state) != asked[0].get("seat"):
            self._pending.remove_kind(NO_FALL_PROMPT)
            return [self._feed_add({"event": "info"}, "The tip's question is closed: the game moved on")]
        return []
