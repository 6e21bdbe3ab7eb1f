"""Fan-out of table changes to event-stream subscribers (one bounded queue each).

A slow subscriber never holds up the table: when its queue is full it is dropped (its
stream ends, the page reconnects and gets a full snapshot).
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
from dataclasses import dataclass, field
from typing import Any

CLOSED = object()
"""Put in a subscriber's queue to end its stream."""


class Item:
    """One published item: ``kind``, ``payload`` and its SSE frame, encoded once for all subscribers."""

    __slots__ = ("_frame", "_lock", "kind", "payload")

    def __init__(self, kind: str, payload: Any) -> None:
        """Wrap a payload (a JSON-able dict)."""
        self.kind = kind
        self.payload = payload
        self._frame: str | None = None
        self._lock = threading.Lock()

    @property
    def frame(self) -> str:
        """The SSE frame (``id:`` for changes, ``event:``, one-line JSON ``data:``)."""
        with self._lock:
            if self._frame is None:
                self._frame = sse_frame(self.kind, self.payload,
                                        self.payload.get("version") if self.kind != "live" else None)
            return self._frame


def sse_frame(kind: str, payload: Any, event_id: int | None = None) -> str:
    """One server-sent-events frame with a single-line JSON ``data:`` field."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(payload, separators=(',', ':'), default=str)}\n\n"


@dataclass(eq=False)
class Subscription:
    """One event-stream client: read ``(kind, payload)`` items with :meth:`get`."""

    maxsize: int = 256
    kinds: tuple[str, ...] | None = None  # only these kinds of item (None = every kind)
    queue: queue.Queue = field(init=False)
    closed: bool = False

    def __post_init__(self) -> None:
        self.queue = queue.Queue(maxsize=self.maxsize)

    def get(self, timeout_s: float) -> Item | None:
        """The next item, or None after ``timeout_s``; an item of kind ``"closed"`` once dropped."""
        try:
            item = self.queue.get(timeout=timeout_s)
        except queue.Empty:
            return None
        if item is CLOSED:
            self.closed = True
            return Item("closed", None)
        return item


class Hub:
    """Thread-safe set of subscriptions."""

    def __init__(self, maxsize: int = 256) -> None:
        """Create an empty hub whose subscribers each buffer up to ``maxsize`` items."""
        self._subs: list[Subscription] = []
        self._lock = threading.Lock()
        self._maxsize = maxsize

    def subscribe(self, kinds: tuple[str, ...] | None = None) -> Subscription:
        """Add and return a new subscription (to the items of ``kinds`` only, if given)."""
        sub = Subscription(self._maxsize, kinds)
        with self._lock:
            self._subs.append(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        """Remove a subscription (no error if already gone)."""
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)

    def __len__(self) -> int:
        """Number of live subscriptions."""
        with self._lock:
            return len(self._subs)

    def wants(self, kind: str) -> bool:
        """True if some subscription takes items of ``kind``."""
        with self._lock:
            return any(sub.kinds is None or kind in sub.kinds for sub in self._subs)

    def publish(self, kind: str, payload: Any) -> None:
        """Queue one item for every subscriber (of that kind); drop those that are full."""
        with self._lock:
            subs = [sub for sub in self._subs if sub.kinds is None or kind in sub.kinds]
        item = Item(kind, payload)
        for sub in subs:
            try:
                sub.queue.put_nowait(item)
            except queue.Full:
                self._drop(sub)

    def close_all(self) -> None:
        """End every stream (on shutdown)."""
        with self._lock:
            subs, self._subs = self._subs, []
        for sub in subs:
            self._close(sub)

    def _drop(self, sub: Subscription) -> None:
        self.unsubscribe(sub)
        self._close(sub)

    @staticmethod
    def _close(sub: Subscription) -> None:
        while True:
            try:
                sub.queue.put_nowait(CLOSED)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    sub.queue.get_nowait()
