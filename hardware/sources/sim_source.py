"""The simulator source: a ``hardware.sim.TableSimulator`` stepped in real time."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from hardware.sources.base import Item

MAX_CATCH_UP_S = 2.0  # if the caller stalls longer, skip ahead rather than burst thousands of samples


class SimSource:
    """Steps the simulator as the wall clock advances, one sample per 1/rate s (``speed`` x faster).

    ``simulator`` is exposed so the page and tests can drive it (place, press,
    bump, knock_over); take ``lock`` around such calls, since ``read`` steps the
    simulator from another thread.
    """

    def __init__(self, simulator: Any, *, speed: float = 1.0, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if not speed > 0:
            raise ValueError(f"speed must be positive (1 = real time), got {speed}")
        self.speed = float(speed)
        self.simulator = simulator
        self.header = simulator.header
        self.lock = threading.RLock()
        self.clock = clock
        self.sleep = sleep
        self._t0: float | None = None
        self._steps = 0
        self.cpu_s = 0.0  # CPU time spent stepping the simulator (its own share, for benchmarks)

    def open(self) -> None:
        """Start the real-time clock."""
        self._t0 = self.clock()
        self._steps = 0

    def close(self) -> None:
        """Nothing to release; further reads return nothing."""
        self._t0 = None

    def _due(self) -> int:
        assert self._t0 is not None
        rate = self.header.rate_hz * self.speed
        due = int((self.clock() - self._t0) * rate) + 1 - self._steps
        limit = int(MAX_CATCH_UP_S * rate)
        if due > limit:
            self._steps += due - limit  # the caller stalled: drop the backlog
            due = limit
        return due

    def read(self, timeout_s: float) -> list[Item]:
        """The samples due by now, waiting at most ``timeout_s`` for the next one."""
        if self._t0 is None:
            return []
        due = self._due()
        if due <= 0:
            wait = (self._t0 + self._steps / (self.header.rate_hz * self.speed)) - self.clock()
            if wait > timeout_s:
                self.sleep(max(0.0, timeout_s))
                return []
            self.sleep(max(0.0, wait))
            due = self._due()
        out: list[Item] = []
        c0 = time.thread_time()
        with self.lock:
            for _ in range(max(0, due)):
                out.append(self.simulator.step())
        self.cpu_s += time.thread_time() - c0
        self._steps += max(0, due)
        return out
