"""What each sensed event becomes: a feed line, the panel's fall signal, a fault line, a rules action
or a prompt for the host; an event no action takes is logged as it is (nothing sensed is lost)."""

from __future__ import annotations

from typing import Any

from companion.table.answers import UnseenFalls
from companion.table.current import CurrentMatch
from companion.table.discsync import DiscSync
from companion.table.feed import Feed
from companion.table.health import PanelHealth
from companion.table.prompts import describe_event
from companion.table.sessionlog import SessionLog

QUIET_EVENTS = ("tipped", "fault")
"""Sensed events shown in the feed as such; the others show as the action they became (or why not)."""


class SensedEvents:
    """Maps the pipeline's events to the game, one after the other (call with the controller's lock held).

    Handed the current match (the game's ``actions_for_sensed``), the feed, the panel's health, the tip
    episode (:class:`UnseenFalls`), the disc's sync (:class:`DiscSync`: applies or keeps each proposal)
    and the session log.
    """

    def __init__(self, current: CurrentMatch, feed: Feed, health: PanelHealth, falls: UnseenFalls,
                 disc: DiscSync, session: SessionLog) -> None:
        """See the class."""
        self._current = current
        self._feed = feed
        self._health = health
        self._falls = falls
        self._disc = disc
        self._session = session

    def take(self, events: list[dict]) -> list[dict]:
        """Take ``events`` (oldest first); the feed lines to publish."""
        entries: list[dict] = []
        loose: list[dict] = []
        for event in events:
            kind = event.get("event")
            if kind in QUIET_EVENTS:
                entries.append(self._feed.add(event, describe_event(event)))
            if kind == "tipped":
                self._health.tipped()
            elif kind == "fault":
                cell = event.get("cell")
                self._health.reported(f"cell{cell}", f"sensor fault: cell {cell} {event.get('kind')}")
            event = self._falls.see(event)  # the tip episode (a settled: was a fall seen?)
            proposals = self._falls.unasked(self._proposals(event))
            if not any("action" in p for p in proposals):  # a prompt alone: the event is logged here
                loose.append(event)
            if not proposals and kind not in QUIET_EVENTS and kind != "settled":
                entries.append(self._feed.add(event, describe_event(event)))
            for proposal in proposals:
                entry = self._disc.propose(proposal, event)
                if entry is not None:
                    entries.append(entry)
        if loose:
            self._session.events(loose, even_none=True)
        return entries

    def _proposals(self, event: dict) -> list[dict[str, Any]]:
        """The game's proposals for ``event``: ``{"action": ...}`` or ``{"prompt": ...}`` each."""
        return self._current.game.actions_for_sensed(event, self._current.state())
