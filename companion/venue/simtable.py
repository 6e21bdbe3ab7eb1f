"""A simulated table for the venue tests and ``bench venue``: the real controller, the real
session log on disk and the real venue publisher, with random legal games played into it
(``companion.session.randomplay``) instead of a sensing pipeline.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from companion.config.venue import VenueConfig
from companion.session import SessionStore
from companion.session.randomplay import new_game, next_action
from companion.table.controller import TableController
from companion.table.game import DingoDiscGame
from companion.venue.tableside import open_venue


class _Config:
    def __init__(self, venue: VenueConfig) -> None:
        self.venue = venue


class SimulatedTable:
    """One table: ``step()`` plays one action (a new game once the last is over)."""

    def __init__(self, data_dir: str | Path, venue: VenueConfig, seed: int = 0, **publisher: Any) -> None:
        """Open the log in ``data_dir`` and prepare the publisher (``start()`` connects)."""
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.rng = random.Random(seed)
        self.store = SessionStore(self.data_dir)
        self.controller = TableController(DingoDiscGame(), store=self.store, rng=random.Random(seed))
        warnings: list[str] = []
        self.publisher = open_venue(_Config(venue), self.controller, self.store, self.data_dir, warnings)
        if self.publisher is None:
            raise RuntimeError("; ".join(warnings) or "no venue publisher")
        for key, value in publisher.items():
            setattr(self.publisher, key, value)
        self.games_finished = 0

    def start(self) -> None:
        """Connect the publisher."""
        self.publisher.start()

    def step(self) -> dict:
        """Play one legal action (or start a new game); returns the action played."""
        state = self.controller.message()["state"]
        action = next_action(state, self.rng) if state.get("phase") not in (None, "setup") else None
        if action is None:
            if state.get("phase") == "over":
                self.games_finished += 1
            action = new_game(self.rng)
            self.controller.new_game(action)
            return action
        self.controller.apply(action)
        return action

    def play_until_over(self, limit: int = 5000) -> int:
        """Play the current game to its end; returns the number of actions played."""
        for n in range(1, limit + 1):
            self.step()
            if self.controller.message()["state"].get("phase") == "over":
                return n
        raise RuntimeError(f"the game did not end in {limit} actions")

    def numbered(self) -> int:
        """What the journal numbers for this log (it started with the log): actions, loose events, ends."""
        with self.store._lock:
            db = self.store.db
            return sum(int(db.execute(sql).fetchone()[0]) for sql in (
                "SELECT COUNT(*) FROM actions", "SELECT COUNT(*) FROM events",
                "SELECT COUNT(*) FROM sessions WHERE status != 'active'"))

    def caught_up(self) -> bool:
        """True once the journal has numbered everything in the log."""
        return self.publisher.journal.last_seq == self.numbered()

    def stop(self) -> None:
        """Stop publishing and close the log."""
        self.publisher.stop()
        self.controller.close()
        self.store.close()
