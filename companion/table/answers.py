"""The host's answers to the table's prompts, and the question after a tip in which no fall was seen.

A ``tipped`` ... ``settled`` episode in which the sensors saw no pawn fall (``track_tip`` marks the
``settled``) asks the host "Did any pawns fall?" (:func:`companion.table.prompts.no_fall_prompt`):
``Nothing fell`` changes nothing; ``These pawns fell`` with counts by size applies the ``fall``
(tipped, confident) the sensors would have proposed. It is not asked when a fall was entered by hand
during the episode, and it goes away once a fall is applied or the fall would go to another player
(the next player took the dice).

The sensors saw no mass leave, so the pawns the host says fell lie on the base plate, still weighed:
the answer (or a ``fall`` entered by hand for such a tip: while the question is open, or during the
tip when it then settles with no fall seen) is handed to the sensing pipeline
(``Pipeline.told_fallen``), so that it no longer counts them on the disc and reads their pick-up off
the base plate as no event. The pipeline is fed on the read-loop thread: the counts wait here until the
loop calls :meth:`AnswersMixin.tell_pipeline` between two feeds, which logs them as a ``told_fallen``
record (``replay SESSION`` hands them to its pipeline at the same point of the trace).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.table.errors import RequestError
from companion.table.game import TIP_STILL, TIP_TIPPED
from companion.table.prompts import NO_FALL_PROMPT, SIZES, check_pawns, fall_owner, pawns_text

FALL_TYPES = ("fall", "confirm_fall", "correct_fall")
"""Actions by which a fall is entered."""
TOLD_FALLEN = "told_fallen"
"""The session-log record of the host's fall handed to the pipeline: ``{"event", "t_ms", "pawns"}``
(``t_ms``: the last sample the pipeline had been fed)."""


class AnswersMixin:
    """``resolve_prompt`` and the no-fall question of the table controller (uses its lock and parts)."""

    _lock: Any
    _game: Any
    _match: Any
    _pending: Any
    _tip_mark: int | None
    _tipping: str
    _told: list[dict[str, int]]  # the host's falls the sensors did not see, for the pipeline
    _hand_falls: list[tuple[int, dict]]  # falls entered by hand during the tip: (history index, action)
    _apply_locked: Callable[..., dict]
    _feed_add: Callable[[dict, str], dict]
    _changed: Callable[[list[dict]], dict]
    _log_events: Callable[[list[dict]], None]

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
            if prompt["kind"] == NO_FALL_PROMPT and isinstance(action, dict) and action.get("pawns"):
                self._told.append(_counts(action["pawns"]))  # they lie on the base plate
            self._pending.remove(prompt_id)
            entries.append(self._feed_add({"event": "prompt"}, f"{prompt['title']} {said}"))
            return self._changed(entries)

    def _history_length(self) -> int:
        return len(self._game.history_json(self._match))

    def _tip_began(self) -> None:
        """A ``tipped`` event: remember where the game's history was."""
        self._tip_mark = self._history_length()
        self._hand_falls = []

    def _unseen_fall(self, action: Any) -> str | None:
        """Before a host's action: is it a ``fall`` for a tip in which the sensors saw none? ``"now"``
        (the no-fall question is open), ``"tip"`` (the tip goes on, no fall seen yet: told if it
        settles so), else None (no tip, or the sensors saw a fall: theirs is corrected, not told)."""
        if not isinstance(action, dict) or action.get("type") != "fall":
            return None
        if self._tipping == TIP_TIPPED:
            return "tip"
        if self._tipping == TIP_STILL and self._pending.has_kind(NO_FALL_PROMPT):
            return "now"
        return None

    def _host_fell(self, unseen: str | None) -> None:
        """After a host's action that ``_unseen_fall`` marked: its pawns are for the pipeline, now or
        once the tip settles with no fall seen."""
        if unseen is None:
            return
        history = self._game.history_json(self._match)
        if not history or history[-1].get("type") != "fall":
            return
        if unseen == "now":
            self._told.append(_counts(history[-1].get("pawns")))
        else:
            self._hand_falls.append((len(history) - 1, history[-1]))

    def _tip_settled(self, event: dict) -> None:
        """A ``settled``: the falls entered by hand during a tip in which no fall was seen (and not
        undone since) are for the pipeline; after a tip with a fall seen they are not."""
        hand, self._hand_falls = self._hand_falls, []
        if event.get("no_fall_seen") is not True or not hand:
            return
        history = self._game.history_json(self._match)
        self._told.extend(_counts(a.get("pawns")) for i, a in hand if i < len(history) and history[i] == a)

    def tell_pipeline(self, pipeline: Any, t_ms: int | None) -> list[dict]:
        """On the read-loop thread, between two feeds: hand ``pipeline`` the host's falls the sensors
        did not see (``Pipeline.told_fallen``) and log each as a ``told_fallen`` record at ``t_ms``,
        the last sample it was fed. Returns the events the pipeline gave (none); a fall it refuses
        (it does not track those pawns) is said in the feed and changes nothing there."""
        if not self._told:  # (read without the lock: the loop asks ten times a second)
            return []
        with self._lock:
            told, self._told = self._told, []
            events: list[dict] = []
            entries = []
            for counts in told:
                try:
                    events.extend(pipeline.told_fallen(counts))
                except ValueError as exc:
                    entries.append(self._feed_add({"event": "info"}, (
                        f"The sensors cannot set {pawns_text(counts)} aside on the base plate: {exc}")))
                    continue
                if isinstance(t_ms, int):
                    self._log_events([{"event": TOLD_FALLEN, "t_ms": t_ms, "pawns": counts}])
            if entries:
                self._changed(entries)
            return events

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


def _counts(pawns: Any) -> dict[str, int]:
    """A fall's pawn counts, every size (0 when absent)."""
    pawns = pawns if isinstance(pawns, dict) else {}
    return {s: int(pawns.get(s) or 0) for s in SIZES}
