"""The event feed the page shows: the newest lines first, each stamped with the table's clock."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

FEED_LENGTH = 30


class Feed:
    """The last ``length`` feed lines (``{"at", "kind", "text"}``, plus ``t_ms`` of a sensed event)."""

    def __init__(self, clock: Callable[[], float], length: int = FEED_LENGTH) -> None:
        """``clock``: wall-clock seconds for each line's ``at``."""
        self._clock = clock
        self._lines: deque[dict] = deque(maxlen=length)

    def add(self, event: dict, text: str) -> dict:
        """Add a line for ``event`` (its ``event`` names the kind) saying ``text``; return the line."""
        entry = {"at": round(self._clock(), 3), "kind": event.get("event", "info"), "text": text}
        if isinstance(event.get("t_ms"), int):
            entry["t_ms"] = event["t_ms"]
        self._lines.appendleft(entry)
        return entry

    def clear(self) -> None:
        """Forget every line (a new game)."""
        self._lines.clear()

    def to_json(self) -> list[dict]:
        """The lines, newest first."""
        return list(self._lines)
