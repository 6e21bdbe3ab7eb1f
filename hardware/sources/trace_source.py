"""The trace-file source: replay a ``dingo-trace/1`` file in real time, faster, or at once."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

from companion.sensing.trace import Sample, TraceError, read_trace
from hardware.sources.base import Item, SourceError, SourceFault

BATCH = 512  # samples per read() when replaying as fast as possible


class TraceSource:
    """Replays a trace; ``speed`` 1 = real time, 2 = twice as fast, 0 = as fast as possible.

    The header comes from the trace itself (its calibration, rate and layout).
    When the file ends, ``finished`` becomes True and ``read`` returns nothing.
    A malformed row ends the replay with a ``read_error`` fault naming the line.
    """

    def __init__(self, path: str | Path, speed: float = 1.0, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if speed < 0:
            raise SourceError(f"trace speed must be 0 (as fast as possible) or positive, got {speed}")
        self.path = Path(path)
        self.speed = speed
        self.clock = clock
        self.sleep = sleep
        try:
            self.header, self._rows = read_trace(self.path)
        except FileNotFoundError as exc:
            raise SourceError(f"trace file not found: {self.path}") from exc
        except TraceError as exc:
            raise SourceError(f"{self.path}: {exc}") from exc
        self.finished = False
        self._rows_iter: Iterator[Sample] | None = None
        self._pending: Sample | None = None
        self._t0 = 0.0
        self._first_ms: int | None = None
        self._last_ms = 0

    def open(self) -> None:
        """Start the replay clock."""
        self._rows_iter = iter(self._rows)
        self._t0 = self.clock()

    def close(self) -> None:
        """Stop the replay (the file is closed when its iterator ends or is dropped)."""
        self.finished = True
        self._rows_iter = None

    def _next(self) -> Sample | SourceFault | None:
        if self._pending is not None:
            sample, self._pending = self._pending, None
            return sample
        if self._rows_iter is None or self.finished:
            return None
        try:
            return next(self._rows_iter)
        except StopIteration:
            self.finished = True
            return None
        except TraceError as exc:
            self.finished = True
            return SourceFault(self._last_ms, None, "read_error", f"{self.path}: {exc}")

    def read(self, timeout_s: float) -> list[Item]:
        """Samples now due (all at once when speed is 0); waits at most ``timeout_s``."""
        if self._rows_iter is None and not self.finished:
            raise SourceError("read() before open()")
        out: list[Item] = []
        deadline = self.clock() + max(0.0, timeout_s)
        while True:
            item = self._next()
            if item is None:
                if self.finished and not out:
                    self.sleep(max(0.0, min(timeout_s, 0.05)))
                return out
            if isinstance(item, SourceFault):
                out.append(item)
                return out
            if self._first_ms is None:
                self._first_ms = item.t_ms
            self._last_ms = item.t_ms
            if self.speed == 0:
                out.append(item)
                if len(out) >= BATCH:
                    return out
                continue
            due_at = self._t0 + (item.t_ms - self._first_ms) / 1000.0 / self.speed
            now = self.clock()
            if due_at <= now:
                out.append(item)
                continue
            self._pending = item
            if out or due_at > deadline:
                if not out:
                    self.sleep(max(0.0, deadline - now))
                return out
            self.sleep(due_at - now)
