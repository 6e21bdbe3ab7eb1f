"""The disc and the game agree, or say so: the stage that maps sensed events to actions.

A sensed action the rules cannot take now is kept (:class:`companion.table.reconcile.Deferred`) and
logged at once; a refused fall first cancels kept placements whose pawns fell off again; a lasting
disagreement between the sensors' disc and the game's becomes the one reconciliation card, whose fixes
are legal, logged, undoable actions (:func:`companion.table.reconcile.reconcile_card`).
"""

from __future__ import annotations

from collections.abc import Callable

from companion.table.corrections import alternatives, is_legal
from companion.table.current import CurrentMatch
from companion.table.errors import RequestError
from companion.table.feed import Feed
from companion.table.prompts import PendingPrompts, describe_event, pawns_text
from companion.table.reconcile import (
    Deferred,
    cancel_kept_placements,
    difference,
    reconcile_card,
    refused_falls,
)

RECONCILE_AFTER_S = 3.0
"""A disagreement between the sensors and the game shows its card once it has lasted this long."""
RECONCILE_SNOOZE_S = 15.0
"""After "take it off the disc" the card waits this long before it asks again."""
DEFERRABLE = ("placed", "fell", "removed")
"""Sensed events kept when the rules cannot take them now (applied when they can)."""


class DiscSync:
    """Sensed proposals applied or kept, kept actions retried, and the reconciliation card.

    Called with the controller's lock held; handed the current match, the open prompts, the feed, the
    clock, the controller's ``apply`` (lock held, unpublished) and ``log_events`` (the session log's).
    """

    def __init__(self, current: CurrentMatch, pending: PendingPrompts, feed: Feed, clock: Callable[[], float],
                 *, apply: Callable[..., dict], log_events: Callable[[list[dict]], None]) -> None:
        """Nothing kept, no disagreement seen."""
        self._current = current
        self._pending = pending
        self._feed = feed
        self._clock = clock
        self._apply = apply
        self._log_events = log_events
        self._deferred = Deferred()
        self._ignored: dict[str, int] = {}  # a disagreement the host said to ignore (sensors wrong)
        self._disagree: tuple[tuple, float] | None = None  # (delta, since) of the disagreement seen
        self._snooze_until = 0.0

    def reset(self) -> None:
        """A new game: nothing kept, nothing ignored, no disagreement seen."""
        self._deferred.clear()
        self._ignored, self._disagree = {}, None

    def propose(self, proposal: dict, event: dict) -> dict | None:
        """Apply a sensed action if legal (else note why not), or open a prompt for the host."""
        if proposal.get("prompt"):
            prompt = self._pending.add(proposal["prompt"])
            return self._feed.add({"event": "prompt"}, prompt["title"])
        try:
            entry = self._apply(proposal["action"], "sensor", [event])
        except RequestError as exc:
            reason = exc.extra.get("reason", exc.message)
            if exc.status == 409 and event.get("event") == "fell":
                return self._refused_fall(proposal["action"], event, reason)
            if exc.status == 409 and event.get("event") in DEFERRABLE:
                self._deferred.add(proposal["action"], event, reason,
                                   mark=len(self._current.history()))
                self._log_events([event])  # kept in the log too: nothing sensed is lost
                return self._feed.add({"event": "deferred"}, f"{describe_event(event)}: kept, applied when "
                                      f"the rules allow ({reason})")
            self._log_events([event])
            return self._feed.add({"event": "ignored"}, f"{describe_event(event)}: not applied ({reason})")
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
            entry = self._feed.add({"event": "info"}, f"{pawns_text(gone)} put on the disc while the game "
                                   "could not take it fell off again: nothing to count")
        if not left:
            return entry or self._feed.add({"event": "info"}, describe_event(event))
        rest = {**action, "pawns": left}
        if cancelled:
            try:
                applied = self._apply(rest, "sensor", [event])
            except RequestError as exc:
                reason = exc.extra.get("reason", exc.message)
            else:
                applied["kind"] = "fell"
                return applied
        self._deferred.add(rest, event, reason)
        return self._feed.add({"event": "deferred"}, f"{describe_event(event)}: the rules refuse it "
                              f"({reason}); kept until the disc and the game agree")

    def retry(self) -> list[dict]:
        """Apply the kept sensed actions the rules take now (in the order they were sensed); a kept
        placement after which a 1 was rolled counts for nobody (the card asks to take it off)."""
        entries: list[dict] = []
        if any(d["action"].get("type") == "place" for d in self._deferred.items):
            for item in self._deferred.drop_placements_before_a_1(self._current.history()):
                event = item.get("event") or {}
                where = (f"{str(event.get('zone')).upper()} {event.get('number')}" if event.get("zone")
                         else "a line")
                entries.append(self._feed.add({"event": "info"}, (
                    f"The {item['action'].get('size')} pawn put on {where} while the game could not take it "
                    "counts for nobody: a 1 was rolled (the penalised player places no pawn); take it off "
                    "the disc")))

        def take(action: dict, event: dict) -> bool:
            try:
                entry = self._apply(action, "sensor", [event])
            except RequestError:
                return False
            entry["text"] = "Applied now: " + entry["text"]
            entries.append(entry)
            return True

        self._deferred.retry(take)
        return entries

    def check(self, sensing: dict) -> list[dict]:
        """Compare the sensors' disc (``sensing``: the pipeline's snapshot) with the game's; show or drop
        the card. Its feed lines."""
        state = self._current.state()
        if "disc" not in state:
            return []
        diff = difference(sensing, state, self._ignored)
        now = self._clock()
        if diff is None:
            if sensing.get("still") and self._disagree is not None:
                self._disagree = None
                self._deferred.clear()  # the disc and the game agree: nothing is owed any more
                if self._pending.remove_kind("reconcile"):
                    return [self._feed.add({"event": "info"}, "The disc and the game agree again")]
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
            return self._feed.add({"event": "info"}, "The sensors' count is ignored: the game's stands")

        card = reconcile_card(diff, state, self._deferred.items, ignore)
        refused, tipped, _ = refused_falls(self._deferred.items)
        if refused:  # the legal falls closest to what the sensors said
            asked = {"type": "fall", "pawns": refused, "tipped": tipped}
            def pawns_of(action: dict) -> dict:
                return {k: v for k, v in (action.get("pawns") or {}).items() if v}

            offered = [pawns_of(c) for c in card["choices"].values() if isinstance(c, dict)]
            for alt in alternatives(self._current.match, asked, state, limit=2):
                if pawns_of(alt["action"]) not in offered:
                    card["choices"][f"Or: {alt['label']}"] = {**alt["action"], "tipped": tipped}
        for label, choice in list(card["choices"].items()):
            if choice is None:  # the table fixes the disc by hand: ask again later if it still differs
                card["choices"][label] = self._snoozer()
            elif isinstance(choice, dict):  # a rules action: only legal ones, applied with what was sensed
                if not is_legal(self._current.match, choice):
                    del card["choices"][label]
                else:
                    card["choices"][label] = self._fixer(choice)
        self._pending.add({**card, "resolves": None})
        return [self._feed.add({"event": "prompt"}, card["title"])]

    def _fixer(self, action: dict) -> Callable[[str], dict]:
        """A card's fix: the action, logged with the sensed events it settles; the kept ones are done."""
        def fix(source: str) -> dict:
            sensed = [d["event"] for d in self._deferred.items if isinstance(d.get("event"), dict)]
            entry = self._apply(action, source, sensed)
            self._deferred.clear()  # the card settled them: a stale kept action never applies later
            self._disagree = None
            return entry
        return fix

    def _snoozer(self) -> Callable[[str], dict]:
        def snooze(source: str) -> dict:
            self._snooze_until = self._clock() + RECONCILE_SNOOZE_S
            return self._feed.add({"event": "info"}, "Waiting for the disc to be fixed by hand")
        return snooze
