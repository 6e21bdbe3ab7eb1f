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
loop calls ``TableController.tell_pipeline`` (:meth:`UnseenFalls.tell`) between two feeds, which logs
them as a ``told_fallen`` record (``replay SESSION`` hands them to its pipeline at the same point of the
trace).

Two stages, called with the controller's lock held: :class:`Answers` takes the host's answer to any
open prompt; :class:`UnseenFalls` follows the tip episode and keeps the falls no sensor saw.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.table.current import CurrentMatch
from companion.table.errors import RequestError
from companion.table.feed import Feed
from companion.table.game import TIP_STILL, TIP_TIPPED, track_tip
from companion.table.prompts import (
    NO_FALL_PROMPT,
    SIZES,
    PendingPrompts,
    check_pawns,
    fall_owner,
    pawns_text,
)

FALL_TYPES = ("fall", "confirm_fall", "correct_fall")
"""Actions by which a fall is entered."""
TOLD_FALLEN = "told_fallen"
"""The session-log record of the host's fall handed to the pipeline: ``{"event", "t_ms", "pawns"}``
(``t_ms``: the last sample the pipeline had been fed)."""


class Answers:
    """The host's answer to an open prompt: a rules action, a controller operation, or nothing.

    Handed the current match, the open prompts, the feed, the controller's ``apply`` (lock held,
    unpublished) and ``told(pawns)``: the host's answer to the no-fall question, for the pipeline.
    """

    def __init__(self, current: CurrentMatch, pending: PendingPrompts, feed: Feed, *,
                 apply: Callable[..., dict], told: Callable[[dict], None]) -> None:
        """See the class."""
        self._current = current
        self._pending = pending
        self._feed = feed
        self._apply = apply
        self._told = told

    def resolve(self, prompt_id: str, choice: str, pawns: Any, source: str) -> list[dict]:
        """Answer a pending prompt; ``pawns``: the counts by size of a choice answered with counts
        (``These pawns fell``). The feed lines to publish; a bad answer (RequestError) changes nothing."""
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
            disc = self._current.state().get("disc") or {}
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
            entries.append(self._apply(action, source, []))
        if prompt["kind"] == NO_FALL_PROMPT and isinstance(action, dict) and action.get("pawns"):
            self._told(action["pawns"])  # they lie on the base plate
        self._pending.remove(prompt_id)
        entries.append(self._feed.add({"event": "prompt"}, f"{prompt['title']} {said}"))
        return entries


class UnseenFalls:
    """The tip episode (``tipping``) and the host's falls no sensor saw, kept for the pipeline.

    Handed the current match, the open prompts, the feed and ``log_events`` (the session log's).
    """

    def __init__(self, current: CurrentMatch, pending: PendingPrompts, feed: Feed, *,
                 log_events: Callable[[list[dict]], None]) -> None:
        """No tip yet, nothing owed to the pipeline."""
        self._current = current
        self._pending = pending
        self._feed = feed
        self._log_events = log_events
        self.tipping = TIP_STILL
        self._tip_mark: int | None = None  # the history's length when the disc last tipped
        self._told: list[dict[str, int]] = []  # the host's falls the sensors did not see, for the pipeline
        self._hand_falls: list[tuple[int, dict]] = []  # falls entered by hand during the tip: (index, action)

    def reset(self, *, keep_mark: bool = False) -> None:
        """A new game (or, ``keep_mark``, an abandoned one): the disc is still."""
        self.tipping = TIP_STILL
        if not keep_mark:
            self._tip_mark = None

    @property
    def owed(self) -> bool:
        """True when falls wait for the pipeline (read without the lock: the loop asks ten times a second)."""
        return bool(self._told)

    def see(self, event: dict) -> dict:
        """A sensed event: follow the tip episode (``track_tip``, shared with replay SESSION); the event
        as ``track_tip`` marks it (a ``settled`` with ``no_fall_seen``)."""
        kind = event.get("event")
        if kind == "tipped":  # remember where the game's history was
            self._tip_mark = len(self._current.history())
            self._hand_falls = []
        event, self.tipping = track_tip(event, self.tipping)
        if kind == "settled":
            self._tip_settled(event)
        return event

    def host_said(self, pawns: Any) -> None:
        """The host answered the no-fall question with ``pawns``: they lie on the base plate."""
        self._told.append(_counts(pawns))

    def unseen_fall(self, action: Any) -> str | None:
        """Before a host's action: is it a ``fall`` for a tip in which the sensors saw none? ``"now"``
        (the no-fall question is open), ``"tip"`` (the tip goes on, no fall seen yet: told if it
        settles so), else None (no tip, or the sensors saw a fall: theirs is corrected, not told)."""
        if not isinstance(action, dict) or action.get("type") != "fall":
            return None
        if self.tipping == TIP_TIPPED:
            return "tip"
        if self.tipping == TIP_STILL and self._pending.has_kind(NO_FALL_PROMPT):
            return "now"
        return None

    def host_fell(self, unseen: str | None) -> None:
        """After a host's action that :meth:`unseen_fall` marked: its pawns are for the pipeline, now
        or once the tip settles with no fall seen."""
        if unseen is None:
            return
        history = self._current.history()
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
        history = self._current.history()
        self._told.extend(_counts(a.get("pawns")) for i, a in hand if i < len(history) and history[i] == a)

    def tell(self, pipeline: Any, t_ms: int | None) -> tuple[list[dict], list[dict]]:
        """Hand ``pipeline`` the host's falls the sensors did not see (``Pipeline.told_fallen``) and log
        each as a ``told_fallen`` record at ``t_ms``, the last sample it was fed. ``(the events the
        pipeline gave, feed lines)``: a fall it refuses (it does not track those pawns) is a feed line."""
        told, self._told = self._told, []
        events: list[dict] = []
        entries = []
        for counts in told:
            try:
                events.extend(pipeline.told_fallen(counts))
            except ValueError as exc:
                entries.append(self._feed.add({"event": "info"}, (
                    f"The sensors cannot set {pawns_text(counts)} aside on the base plate: {exc}")))
                continue
            if isinstance(t_ms, int):
                self._log_events([{"event": TOLD_FALLEN, "t_ms": t_ms, "pawns": counts}])
        return events, entries

    def unasked(self, proposals: list[dict]) -> list[dict]:
        """``proposals`` without the no-fall question when a fall was entered since the tip began."""
        if not any((p.get("prompt") or {}).get("kind") == NO_FALL_PROMPT for p in proposals):
            return proposals
        history = self._current.history()
        since = history[min(self._tip_mark or 0, len(history)):] if self._tip_mark is not None else []
        if not any(a.get("type") in FALL_TYPES for a in since):
            return proposals
        return [p for p in proposals if (p.get("prompt") or {}).get("kind") != NO_FALL_PROMPT]

    def drop_stale(self) -> list[dict]:
        """Forget the no-fall question once a fall would go to another player than the one asked about."""
        asked = [p for p in self._pending.items() if p["kind"] == NO_FALL_PROMPT]
        if not asked:
            return []
        state = self._current.state()
        if state.get("phase") in (None, "setup", "over") or fall_owner(state) != asked[0].get("seat"):
            self._pending.remove_kind(NO_FALL_PROMPT)
            return [self._feed.add({"event": "info"}, "The tip's question is closed: the game moved on")]
        return []


def _counts(pawns: Any) -> dict[str, int]:
    """A fall's pawn counts, every size (0 when absent)."""
    pawns = pawns if isinstance(pawns, dict) else {}
    return {s: int(pawns.get(s) or 0) for s in SIZES}
