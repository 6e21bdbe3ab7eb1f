"""The match the table plays now: the one place it is replaced (a new game, a resume, an abandon)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.table.summary import per_player


class CurrentMatch:
    """The game adapter, the match it plays now and when that game started and ended (clock seconds).

    The controller replaces ``match``; the stages it hands this to read the match through it.
    """

    def __init__(self, game: Any) -> None:
        """No game yet: the adapter's set-up match."""
        self.game = game
        self.match = game.new_match(None)
        self.started_at: float | None = None
        self.ended_at: float | None = None

    def begin(self, match: Any, started_at: float | None) -> None:
        """Play ``match`` from now on, started at ``started_at`` and not over."""
        self.match, self.started_at, self.ended_at = match, started_at, None

    def over(self, span: tuple[float, float] | None, clock: Callable[[], float]) -> None:
        """The game is over: it spans ``span`` (its first and last logged times: a restart does not
        shorten it), else it ends now (``clock``) unless it had ended already."""
        if span is not None:
            self.started_at, self.ended_at = round(span[0], 3), round(span[1], 3)
        elif self.ended_at is None:
            self.ended_at = round(clock(), 3)

    def state(self) -> dict:
        """The match's state JSON (``phase``, ``expected``, ``players``, ``legal``, ...)."""
        return self.game.state_json(self.match)

    def history(self) -> list[dict]:
        """The match's actions as JSON, the new_game first."""
        return self.game.history_json(self.match)

    def describe(self, action: dict, applied: bool = True) -> str:
        """A feed line for ``action`` with the players' names."""
        players = self.state().get("players") or []
        names = [str(p.get("name", "?")) if isinstance(p, dict) else str(p) for p in players]
        return self.game.describe(action, names, match=self.match, applied=applied)

    def summary(self) -> dict:
        """Per-player tips and penalties, the game's start and (once over) its end, in clock seconds."""
        over = self.ended_at is not None  # the per-player figures are counted at the end only
        out = per_player(self.match) if over else {"tips": [], "penalties": [], "actions": None}
        out["started_at"], out["ended_at"] = self.started_at, self.ended_at
        return out
