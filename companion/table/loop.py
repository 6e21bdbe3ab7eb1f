"""The read loop: sample source -> sensing pipeline -> controller, on its own thread.

One thread reads the source (``read(timeout_s)`` never blocks longer than that) in batches of
``batch_s`` (0.1 s: 8 samples at 80 Hz), feeds every
sample to the pipeline, hands the sensed events and the raw samples to the controller, reports
source faults, runs queued simulator commands, hands the pipeline the host's facts the controller
queued (pawns the host says fell that no sensor saw: ``tell_pipeline``) between two feeds,
publishes the throttled live view, and pings the watchdog once per healthy iteration. A source
that raises is reopened with a back-off.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


class SourceLoop:
    """Drives one source into one pipeline and one controller until :meth:`stop`."""

    def __init__(
        self,
        source: Any,
        pipeline: Any,
        controller: Any,
        *,
        read_timeout_s: float = 0.05,
        heartbeat: Callable[[], None] | None = None,
        silence_s: float = 2.0,
        health_interval_s: float = 0.5,
        batch_s: float = 0.1,
    ) -> None:
        """Prepare the loop; call :meth:`start` to run it."""
        self.source = source
        self.pipeline = pipeline
        self.controller = controller
        self.read_timeout_s = read_timeout_s
        self.heartbeat = heartbeat
        self.silence_s = silence_s
        self.health_interval_s = health_interval_s
        # the thread wakes at most once per batch_s of table time (a faster simulator: sooner)
        self.batch_s = batch_s / float(getattr(source, "speed", 1.0) or 1.0)
        self.tap: Callable[[list], None] | None = None  # sees every item read (the calibration wizard)
        self.hold_events = False  # True: sensed events do not reach the game (during a calibration)
        self._next_pipeline: Any = None
        self._fed_t: int | None = None  # the t_ms of the last sample fed to the pipeline
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.samples_seen = 0
        self.iterations = 0
        self.error: str | None = None

    def start(self) -> None:
        """Open the source and start the thread."""
        self.source.open()
        if self.controller.sim is not None:
            self.controller.sim.loop_running = True
        self._thread = threading.Thread(target=self._run, name="dingo-source", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        """Stop the thread and close the source."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
        if self.controller.sim is not None:
            self.controller.sim.loop_running = False
            self.controller.sim.drain()
        try:
            self.source.close()
        except Exception:  # noqa: BLE001
            log.exception("closing the source failed")

    @property
    def alive(self) -> bool:
        """True while the thread runs."""
        return self._thread is not None and self._thread.is_alive()

    def replace_pipeline(self, pipeline: Any) -> None:
        """Use ``pipeline`` from the next iteration on (e.g. after a new calibration)."""
        self._next_pipeline = pipeline

    def step(self) -> int:
        """One iteration (also used by tests): returns how many samples were processed."""
        if self._next_pipeline is not None:
            self.pipeline, self._next_pipeline = self._next_pipeline, None
        sim = self.controller.sim
        if sim is not None:
            sim.drain()
        # the host's facts for the pipeline (pawns it said fell), between two feeds
        tell = getattr(self.controller, "tell_pipeline", None)
        events: list[dict] = list((tell(self.pipeline, self._fed_t) if tell is not None else None) or [])
        items = self.source.read(self.read_timeout_s)
        tap = self.tap
        if tap is not None and items:
            tap(items)
        samples = []
        for item in items:
            if hasattr(item, "raw"):
                samples.append(item)
                events.extend(self.pipeline.feed(item))
            else:
                cell = getattr(item, "cell", None)
                kind = getattr(item, "kind", "fault")
                message = getattr(item, "message", "") or f"source fault: {kind}"
                self.controller.source_fault(kind, message, cell)
        if samples:
            self._fed_t = getattr(samples[-1], "t_ms", None)
            self.samples_seen += len(samples)
            self.controller.samples(samples)
        if events and not self.hold_events:
            self.controller.sensed(events)
        self.controller.live_tick()
        self.iterations += 1
        return len(samples)

    def _run(self) -> None:
        backoff = 0.5
        last_sample = time.monotonic()
        last_health = 0.0
        silent = False
        while not self._stop.is_set():
            began = time.monotonic()
            try:
                n = self.step()
            except Exception as exc:  # noqa: BLE001 - the loop must survive a failing source
                log.exception("sample source failed")
                self.error = f"{type(exc).__name__}: {exc}"
                self.controller.source_fault("read_error", f"sensor source failed: {exc}; retrying")
                self._stop.wait(backoff)
                backoff = min(backoff * 2, 5.0)
                self._reopen()
                continue
            backoff = 0.5
            now = time.monotonic()
            if n:
                last_sample = now
                if silent:
                    silent = False
                    self.controller.clear_status("source")
            elif now - last_sample > self.silence_s and not silent and not self._unavailable():
                silent = True
                self.controller.source_fault("silent", f"no samples from the table for {self.silence_s:g} s")
            if now - last_health >= self.health_interval_s:
                last_health = now
                # faults that are over clear, and the panel's status LED follows
                try:
                    self.controller.health_tick(now - last_sample < 1.0)
                except Exception:  # noqa: BLE001 - the LED must never stop the loop
                    log.exception("health check failed")
            if self.heartbeat is not None:
                try:
                    self.heartbeat()
                except Exception:  # noqa: BLE001
                    log.exception("watchdog ping failed")
            # read in batches: a fixed cost per iteration is paid ~10 times a second, not per sample
            rest = self.batch_s - (time.monotonic() - began)
            if rest > 0:
                self._stop.wait(rest)

    def _unavailable(self) -> bool:
        """True while the source reports that it cannot be set up (it says so itself)."""
        return bool(getattr(self.source, "problem", None))

    def _reopen(self) -> None:
        try:
            self.source.close()
        except Exception:  # noqa: BLE001
            log.debug("close before reopen failed", exc_info=True)
        try:
            self.source.open()
        except Exception as exc:  # noqa: BLE001
            log.warning("reopening the source failed: %s", exc)
