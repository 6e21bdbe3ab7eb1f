"""The disc and the game agree, or say so: the controller's part that maps sensed events to actions.

A sensed action the rules cannot take now is kept (:class:`companion.table.reconcile.Deferred`) and
logged at once; a refused fall first cancels kept placements whose pawns fell off again; a lasting
disagreement between the sensors' disc and the game's becomes the one reconciliation card, whose fixes
are legal, logged, undoable actions (:func:`companion.table.reconcile.reconcile_card`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.table.corrections import alternatives, is_legal
from companion.table.errors import RequestError
from companion.table.prompts import describe_event, pawns_text
from companion.table.reconcile import (
    cancel_kept_placements,
    difference,
    disc_empty,
    reconcile_card,
    refused_falls,
)

RECONCILE_AFTER_S = 3.0
"""A disagreement between the sensors and the game shows its card once it has lasted this long."""
RECONCILE_SNOOZE_S = 15.0
"""After "take it off the disc" the card waits this long before it asks again."""
DEFERRABLE = ("placed", "fell", "removed")
"""Sensed events kept when the rules cannot take them now (applied when they can)."""


class DiscSyncMixin:
    """Sensed proposals, kept actions and the reconciliation card of the table controller."""

    _lock: Any
    _game: Any
    _match: Any
    _store: Any
    _session_id: int | None
    _clock: Callable[[], float]
    _pending: Any
    _deferred: Any
    _ignored: dict[str, int]
    _disagree: tuple[tuple, float] | None
    _snooze_until: float
    _waiting_setup: dict | None
    _apply_locked: Callable[..., dict]
    _feed_add: Callable[[dict, str], dict]
    _safe_sensing: Callable[[], dict]
    _start_game: Callable[[Any, str], dict]
    _log: Callable[[Callable[[], Any]], bool]

    def _propose(self, proposal: dict, event: dict) -> dict | None:
        """Apply a sensed action if legal (else note why not), or open a prompt for the host."""
        if proposal.get("prompt"):
            prompt = self._pending.add(proposal["prompt"])
            return self._feed_add({"event": "prompt"}, prompt["title"])
        try:
            entry = self._apply_locked(proposal["action"], "sensor", [event])
        except RequestError as exc:
            reason = exc.extra.get("reason", exc.message)
            if exc.status == 409 and event.get("event") == "fell":
                return self._refused_fall(proposal["action"], event, reason)
            if exc.status == 409 and event.get("event") in DEFERRABLE:
                self._deferred.add(proposal["action"], event, reason,
                                   mark=len(self._game.history_json(self._match)))
                self._log_events([event])  # kept in the log too: nothing sensed is lost
                return self._feed_add({"event": "deferred"}, f"{describe_event(event)}: kept, applied when "
                                      f"the rules allow ({reason})")
            self._log_events([event])
            return self._feed_add({"event": "ignored"}, f"{describe_event(event)}: not applied ({reason})")
        entry["kind"] = str(event.get("event", "action"))
        return entry

    def _refused_fall(self, action: dict, event: dict, reason: str) -> dict:
        """A sensed fall the rules refuse: a kept placement whose pawn fell off again cancels out;
        what is left applies if it can, else it is kept for the reconciliation card (and logged)."""
        self._log_events([event])
        left, cancelled = cancel_kept_placements(action.get("pawns") or {}, self._deferred)
        entry = None
        if cancelled:
            gone = {}
            for item in cancelled:
                gone[item["action"]["size"]] = gone.get(item["action"]["size"], 0) + 1
            entry = self._feed_add({"event": "info"}, f"{pawns_text(gone)} put on the disc while the game "
                                   "could not take it fell off again: nothing to count")
        if not left:
            return entry or self._feed_add({"event": "info"}, describe_event(event))
        rest = {**action, "pawns": left}
        if cancelled:
            try:
                applied = self._apply_locked(rest, "sensor", [event])
            except RequestError as exc:
                reason = exc.extra.get("reason", exc.message)
            else:
                applied["kind"] = "fell"
                return applied
        self._deferred.add(rest, event, reason)
        return self._feed_add({"event": "deferred"}, f"{describe_event(event)}: the rules refuse it "
                              f"({reason}); kept until the disc and the game agree")

    def _retry_deferred(self) -> list[dict]:
        """Apply the kept sensed actions the rules take now (in the order they were sensed); a kept
        placement after which a 1 was rolled counts for nobody (the card asks to take it off)."""
        entries: list[dict] = []
        if any(d["action"].get("type") == "place" for d in self._deferred.items):
            for item in self._deferred.drop_placements_before_a_1(self._game.history_json(self._match)):
                event = item.get("event") or {}
                where = (f"{str(event.get('zone')).upper()} {event.get('number')}" if event.get("zone")
                         else "a line")
                entries.append(self._feed_add({"event": "info"}, (
                    f"The {item['action'].get('size')} pawn put on {where} while the game could not take it "
                    "counts for nobody: a 1 was rolled (the penalised player places no pawn); take it off "
                    "the disc")))

        def take(action: dict, event: dict) -> bool:
            try:
                entry = self._apply_locked(action, "sensor", [event])
            except RequestError:
                return False
            entry["text"] = "Applied now: " + entry["text"]
            entries.append(entry)
            return True

        self._deferred.retry(take)
        return entries

    def _check_disc(self) -> list[dict]:
        """Compare the sensors' disc with the game's; start a waiting game; show or drop the card."""
        sensing = self._safe_sensing()
        if self._waiting_setup is not None and disc_empty(sensing):
            setup, self._waiting_setup = self._waiting_setup, None
            self._pending.remove_kind("clear_disc")
            self._start_game(setup, "sensor")
            return [self._feed_add({"event": "info"}, "The disc is clear: the new game starts")]
        state = self._game.state_json(self._match)
        if "disc" not in state:
            return []
        diff = difference(sensing, state, self._ignored)
        now = self._clock()
        if diff is None:
            if sensing.get("still") and self._disagree is not None:
                self._disagree = None
                self._deferred.clear()  # the disc and the game agree: nothing is owed any more
                if self._pending.remove_kind("reconcile"):
                    return [self._feed_add({"event": "info"}, "The disc and the game agree again")]
            return []
        key = tuple(sorted(diff.delta.items()))
        if self._disagree is None or self._disagree[0] != key:
            self._disagree = (key, now)
            return []
        if now - self._disagree[1] < RECONCILE_AFTER_S or now < self._snooze_until \
                or self._pending.has_kind("reconcile"):
            return []

        def ignore(source: str) -> dict:
            for size, d in diff.delta.items():
                self._ignored[size] = self._ignored.get(size, 0) + d
            self._disagree = None
            return self._feed_add({"event": "info"}, "The sensors' count is ignored: the game's stands")

        card = reconcile_card(diff, state, self._deferred.items, ignore)
        refused, tipped, _ = refused_falls(self._deferred.items)
        if refused:  # the legal falls closest to what the sensors said
            asked = {"type": "fall", "pawns": refused, "tipped": tipped}
            def pawns_of(action: dict) -> dict:
                return {k: v for k, v in (action.get("pawns") or {}).items() if v}

            offered = [pawns_of(c) for c in card["choices"].values() if isinstance(c, dict)]
            for alt in alternatives(self._match, asked, state, limit=2):
                if pawns_of(alt["action"]) not in offered:
                    card["choices"][f"Or: {alt['label']}"] = {**alt["action"], "tipped": tipped}
        for label, choice in list(card["choices"].items()):
            if choice is None:  # the table fixes the disc by hand: ask again later if it still differs
                card["choices"][label] = self._snoozer()
            elif isinstance(choice, dict):  # a rules action: only legal ones, applied with what was sensed
                if not is_legal(self._match, choice):
                    del card["choices"][label]
                else:
                    card["choices"][label] = self._fixer(choice)
        self._pending.add({**card, "resolves": None})
        return [self._feed_add({"event": "prompt"}, card["title"])]

    def _fixer(self, action: dict) -> Callable[[str], dict]:
        """A card's fix: the action, logged with the sensed events it settles; the kept ones are done."""
        def fix(source: str) -> dict:
            sensed = [d["event"] for d in self._deferred.items if isinstance(d.get("event"), dict)]
            entry = self._apply_locked(action, source, sensed)
            self._deferred.clear()  # the card settled them: a stale kept action never applies later
            self._disagree = None
            return entry
        return fix

    def _log_events(self, events: list[dict]) -> None:
        clean = [e for e in events if isinstance(e.get("t_ms"), int)]
        if clean and self._store is not None and self._session_id is not None:
            sid = self._session_id
            self._log(lambda: self._store.append_events(sid, clean))

    def _snoozer(self) -> Callable[[str], dict]:
        def snooze(source: str) -> dict:
            self._snooze_until = self._clock() + RECONCILE_SNOOZE_S
            return self._feed_add({"event": "info"}, "Waiting for the disc to be fixed by hand")
        return snooze
