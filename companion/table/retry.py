"""A sample source that is set up again, with back-off, until it works (never a crash loop).

``dingo-companion run`` must not exit because the load cells cannot be read at start-up (an
unknown ``DINGO_SOURCE``, the ``hx711`` package missing, the serial bridge not plugged in):
under systemd's ``Restart=always`` that would be a restart loop. :class:`RetryingSource` wraps
the real source: building and opening it are tried at ``open()`` and then again with back-off
(1 s, 2 s, 4 s ... at most 10 s) from ``read()``; meanwhile it reads nothing and reports one
``disconnected`` fault per failed attempt (``"sensor source unavailable: <reason> (retrying)"``),
which the page shows in ``status.source`` and the status LED shows as a fault. A bridge plugged
in later is then picked up by the next attempt.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from hardware.sources.base import SourceFault

log = logging.getLogger(__name__)

UNAVAILABLE = "sensor source unavailable"


def unavailable_text(reason: str) -> str:
    """The status line shown while the source cannot be set up."""
    return f"{UNAVAILABLE}: {reason} (retrying)"


class RetryingSource:
    """Builds (``build()``) and opens a source, retrying with back-off; a ``SampleSource`` itself.

    ``inner``: a source already built (not opened), else ``open()`` builds one. ``header``: the
    trace header to use until a source is up (the configuration's). ``on_change(problem | None)``
    is called when the problem changes or is over; ``on_header(header)`` when the source that
    came up has another header than ``header``.
    """

    def __init__(self, build: Callable[[], Any], header: Any, *, inner: Any = None,
                 initial_s: float = 1.0, max_s: float = 10.0,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        """Prepare; nothing is opened before :meth:`open`."""
        if not 0 < initial_s <= max_s:
            raise ValueError(f"back-off must satisfy 0 < initial_s <= max_s, got {initial_s}, {max_s}")
        self._build = build
        self._fallback = header
        self.inner = inner
        self.problem: str | None = None
        self.initial_s = initial_s
        self.max_s = max_s
        self._clock = clock
        self._sleep = sleep
        self._delay = initial_s
        self._next_try = 0.0
        self._opened = False
        self._announce = False
        self.attempts = 0
        self.on_change: Callable[[str | None], None] | None = None
        self.on_header: Callable[[Any], None] | None = None

    @property
    def header(self) -> Any:
        """The working source's header, else the configuration's."""
        return self.inner.header if self.inner is not None else self._fallback

    @property
    def retry_in_s(self) -> float | None:
        """Seconds until the next attempt (None while the source works)."""
        if self.problem is None:
            return None
        return max(0.0, self._next_try - self._clock())

    def open(self) -> None:
        """Try to set the source up now; a failure is kept in :attr:`problem`, never raised."""
        self._opened = True
        self._attempt()

    def read(self, timeout_s: float) -> list:
        """The working source's items; else retry when due, waiting at most ``timeout_s``."""
        if self.inner is not None and self.problem is None:
            return self.inner.read(timeout_s)
        if self._opened and self._clock() >= self._next_try and self._attempt():
            return self.inner.read(timeout_s)
        if self._announce:
            self._announce = False
            return [SourceFault(0, None, "disconnected", unavailable_text(str(self.problem)))]
        wait = max(0.0, min(timeout_s, self._next_try - self._clock()))
        if wait:
            self._sleep(wait)
        return []

    def close(self) -> None:
        """Close the working source (kept, so that :meth:`open` opens it again)."""
        self._opened = False
        if self.inner is not None:
            self.inner.close()

    def _attempt(self) -> bool:
        self.attempts += 1
        source = self.inner
        try:
            if source is None:
                source = self._build()
            source.open()
        except Exception as exc:  # noqa: BLE001 - any set-up failure is reported and retried
            self._failed(source, str(exc) or type(exc).__name__)
            return False
        self.inner = source
        if self.problem is not None:
            log.warning("the sample source works now")
            self.problem = None
            self._notify(None)
        self._delay = self.initial_s
        if source.header != self._fallback and self.on_header is not None:
            self._fallback = source.header
            self.on_header(source.header)
        return True

    def _failed(self, source: Any, reason: str) -> None:
        if source is not None:
            try:
                source.close()
            except Exception:  # noqa: BLE001
                log.debug("closing a source that failed to open failed", exc_info=True)
        self.inner = None  # build it again next time
        changed = reason != self.problem
        self.problem = reason
        self._announce = True
        self._next_try = self._clock() + self._delay
        if changed:  # said once per different reason: the journal is not flooded
            log.error("%s; retrying every %g s at most", unavailable_text(reason), self.max_s)
            self._notify(reason)
        self._delay = min(self._delay * 2, self.max_s)

    def _notify(self, problem: str | None) -> None:
        if self.on_change is None:
            return
        try:
            self.on_change(problem)
        except Exception:  # noqa: BLE001
            log.exception("source status callback failed")
