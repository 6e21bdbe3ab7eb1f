"""Server-sent events: a full snapshot on connect, then every change, with heartbeats.

Works through waitress: the response is a generator; each yielded chunk is flushed. A
heartbeat comment every ``heartbeat_s`` keeps proxies and waitress's idle timeout happy and
lets the server notice a client that went away.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from companion.table.hub import sse_frame

RETRY_MS = 2000


def stream(controller: Any, heartbeat_s: float = 15.0, max_s: float | None = None) -> Iterator[str]:
    """Yield SSE frames for one client until it disconnects, is dropped, or ``max_s`` passes."""
    sub, snapshot = controller.subscribe()
    started = time.monotonic()
    try:
        yield f"retry: {RETRY_MS}\n\n"
        yield sse_frame("snapshot", snapshot, snapshot["version"])
        while True:
            if max_s is not None and time.monotonic() - started > max_s:
                return
            item = sub.get(heartbeat_s if max_s is None else min(heartbeat_s, max_s))
            if item is None:
                yield ": heartbeat\n\n"
                continue
            if item.kind == "closed":
                return
            yield item.frame
    finally:
        controller.unsubscribe(sub)
