"""The sample-source seam (contract 5): ``SourceFault``, ``SampleSource`` and helpers."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from companion.sensing.trace import Sample, TraceHeader

FAULT_KINDS = ("disconnected", "silent", "late", "desync", "saturated", "read_error")


class SourceError(ValueError):
    """A source cannot be built or opened as configured (the message says what to fix)."""


@dataclass(frozen=True)
class SourceFault:
    """A problem reading the cells; ``cell`` is None when it concerns the whole source."""

    t_ms: int
    cell: int | None
    kind: str
    message: str

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; expected one of {', '.join(FAULT_KINDS)}")


Item = Sample | SourceFault


@runtime_checkable
class SampleSource(Protocol):
    """Where raw samples come from: serial bridge, GPIO, simulator or trace file."""

    header: TraceHeader

    def open(self) -> None:
        """Start producing samples (may start a thread; returns quickly)."""

    def read(self, timeout_s: float) -> list[Item]:
        """Samples and faults since the last call; never blocks longer than ``timeout_s``."""

    def close(self) -> None:
        """Stop and release the hardware; safe to call twice."""


class ThreadedReader:
    """A daemon thread calling ``produce()`` in a loop, its items queued for ``read``.

    Used by sources whose hardware reads block (GPIO). ``produce`` returns a list
    of items; exceptions it raises are turned into ``read_error`` faults so the
    thread never dies silently.
    """

    def __init__(self, name: str, produce: Callable[[], list[Item]],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self.produce = produce
        self.clock = clock
        self._queue: queue.Queue[Item] = queue.Queue(maxsize=100_000)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.t0 = clock()

    def t_ms(self) -> int:
        """Milliseconds since the reader started (monotonic clock)."""
        return int((self.clock() - self.t0) * 1000)

    def start(self) -> None:
        """Start the thread."""
        self.t0 = self.clock()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    @property
    def stopping(self) -> bool:
        """True once ``stop`` was called."""
        return self._stop.is_set()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                items = self.produce()
            except Exception as exc:  # noqa: BLE001 - reported as a fault, then retried
                items = [SourceFault(self.t_ms(), None, "read_error", f"{type(exc).__name__}: {exc}")]
                self._stop.wait(0.5)
            for item in items:
                try:
                    self._queue.put_nowait(item)
                except queue.Full:
                    break

    def read(self, timeout_s: float) -> list[Item]:
        """Queued items, waiting at most ``timeout_s`` for the first."""
        out: list[Item] = []
        try:
            out.append(self._queue.get(timeout=max(0.0, timeout_s)))
        except queue.Empty:
            return out
        while True:
            try:
                out.append(self._queue.get_nowait())
            except queue.Empty:
                return out

    def stop(self, timeout_s: float = 1.0) -> None:
        """Stop the thread, waiting at most ``timeout_s``."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None
