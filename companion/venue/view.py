"""What the hub page shows of each table, built from the store (pure apart from reading it),
and the live fan-out: changed tables are pushed to the page's event stream a few times a second.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from companion.session.export import GAME_NAMES
from companion.table.hub import Hub
from companion.venue.hubstore import HubStore

FEED = 5
ALERT_S = 12.0


def is_alert(event: dict[str, Any]) -> bool:
    """A tip or a fall: the moments the page flashes."""
    if event.get("kind") == "sensed":
        return (event.get("event") or {}).get("event") in ("tipped", "fell")
    if event.get("kind") == "action":
        return (event.get("action") or {}).get("type") in ("fall", "confirm_fall", "correct_fall")
    return False


def table_view(row: dict[str, Any], recent: list[dict[str, Any]]) -> dict[str, Any]:
    """One table for the page: status, game, players, whose turn, scores, recent events, an alert."""
    state = row.get("state") or {}
    summary = state.get("summary") or {}
    players = summary.get("players") or []
    feed = [
        {
            "seq": e.get("seq"),
            "kind": e.get("kind"),
            "text": e.get("text") or e.get("kind"),
            "at": e.get("at"),
            "alert": is_alert(e),
        }
        for e in recent[:FEED]
    ]
    alert = next((e for e in recent if is_alert(e)), None)
    return {
        "venue": row["venue"],
        "table": row["table"],
        "status": row.get("status") or "unknown",
        "status_at": row.get("status_at"),
        "updated_at": row.get("state_at"),
        "game": summary.get("game"),
        "title": GAME_NAMES.get(str(summary.get("game")), summary.get("game")),
        "phase": summary.get("phase"),
        "over": bool(summary.get("over")),
        "players": players,
        "to_move": [p.get("name") for p in players if p.get("to_move")],
        "score_kind": summary.get("score_kind"),
        "next": summary.get("next") or "",
        "winners": [players[s].get("name") for s in summary.get("winners") or [] if 0 <= s < len(players)],
        "session_id": state.get("session_id"),
        "last_seq": state.get("last_seq"),
        "feed": feed,
        "alert": None
        if alert is None
        else {
            "text": alert.get("text"),
            "at": alert.get("received_at") or alert.get("at"),
            "seq": alert.get("seq"),
        },
    }


class LiveView:
    """The tables the page shows, and an event stream that pushes the changed ones."""

    def __init__(
        self, store: HubStore, interval_s: float = 0.25, clock: Callable[[], float] = time.time
    ) -> None:
        """Prepare; :meth:`start` runs the push thread."""
        self.store = store
        self.hub = Hub(maxsize=512)
        self.interval_s = interval_s
        self._clock = clock
        self._dirty: set[tuple[str, str]] = set()
        self._results_dirty = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def tables(self) -> list[dict[str, Any]]:
        """Every table's view."""
        return [
            table_view(r, self.store.recent_events(r["venue"], r["table"], FEED)) for r in self.store.tables()
        ]

    def changed(self, venue: str, table: str, kind: str, payload: dict) -> None:
        """The receiver's callback: mark the table (and the results, after a game) for the next push."""
        with self._lock:
            self._dirty.add((venue, table))
            if kind == "events" and payload.get("kind") in ("game_over", "action"):
                self._results_dirty = (
                    self._results_dirty
                    or payload.get("kind") == "game_over"
                    or ((payload.get("action") or {}).get("type") == "reopen")
                )

    def start(self) -> None:
        """Start pushing."""
        self._thread = threading.Thread(target=self._run, name="dingo-hub-view", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop pushing and end every stream."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)
        self.hub.close_all()

    def push(self) -> None:
        """Send the changed tables now (also called by tests)."""
        with self._lock:
            dirty, self._dirty = self._dirty, set()
            results, self._results_dirty = self._results_dirty, False
        if dirty and len(self.hub):
            rows = {(r["venue"], r["table"]): r for r in self.store.tables()}
            views = [
                table_view(rows[k], self.store.recent_events(*k, FEED)) for k in sorted(dirty) if k in rows
            ]
            self.hub.publish("tables", {"tables": views, "at": self._clock()})
        if results and len(self.hub):
            self.hub.publish("results", {"at": self._clock()})

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.push()
            except Exception:  # noqa: BLE001 - the page's updates must survive a bad moment
                import logging

                logging.getLogger(__name__).exception("hub view push failed")
