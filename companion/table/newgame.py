"""A new game: its set-up checked, and (Dingo Disc) the wait for the disc to be cleared first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.table.errors import RequestError
from companion.table.feed import Feed
from companion.table.game import IllegalMove
from companion.table.prompts import PendingPrompts
from companion.table.reconcile import clear_disc_card, disc_empty
from companion.textcheck import check_players


def new_match(game: Any, setup: Any) -> Any:
    """The match ``setup`` starts (the players' names checked); RequestError 409 (the rules refuse
    it) or 400 (a bad set-up)."""
    try:
        check_players(setup.get("players") if isinstance(setup, dict) else None)
        return game.new_match(setup)
    except IllegalMove as exc:
        raise RequestError(str(exc), 409, rule=exc.rule, reason=exc.reason) from exc
    except (ValueError, TypeError, KeyError) as exc:
        raise RequestError(f"bad new game: {exc}") from exc


class ClearDiscWait:
    """A new game waiting for the disc to be cleared: its card, and its start once the disc is empty.

    Called with the controller's lock held; handed the prompts, the feed and the controller's
    ``start(setup, source)`` (starts and publishes the new game).
    """

    def __init__(self, pending: PendingPrompts, feed: Feed, *, start: Callable[[Any, str], dict]) -> None:
        """Nothing waits yet."""
        self._pending = pending
        self._feed = feed
        self._start = start
        self.setup: dict | None = None

    def wait(self, setup: dict) -> list[dict]:
        """Let the (checked) ``setup`` wait for an empty disc behind the clear-disc card; its feed lines."""
        self.setup = setup

        def start_anyway(source: str) -> dict:
            waiting, self.setup = self.setup, None
            if waiting is not None:
                self._start(waiting, source)
            return self._feed.add({"event": "info"}, "Started on a disc that was not empty")

        def cancel(source: str) -> dict:
            self.setup = None
            return self._feed.add({"event": "info"}, "New game cancelled")

        self._pending.add(clear_disc_card(start_anyway, cancel))
        return [self._feed.add({"event": "prompt"}, "Clear the disc to start the new game")]

    def check(self, sensing: dict) -> list[dict]:
        """Start the waiting game if ``sensing`` (the pipeline's snapshot) shows an empty disc; its feed
        lines ([] while nothing starts)."""
        if self.setup is None or not disc_empty(sensing):
            return []
        setup, self.setup = self.setup, None
        self._pending.remove_kind("clear_disc")
        self._start(setup, "sensor")
        return [self._feed.add({"event": "info"}, "The disc is clear: the new game starts")]

    def forget(self) -> None:
        """A game started: nothing waits any more."""
        self.setup = None
