"""systemd notification protocol (``sd_notify``) and a kick-driven watchdog, no dependency.

Under systemd (``Type=notify``) the service manager passes ``NOTIFY_SOCKET`` (a path, or an
abstract socket name starting with ``@``) and, with ``WatchdogSec=``, ``WATCHDOG_USEC`` (and
``WATCHDOG_PID``). Outside systemd every call is a harmless no-op returning ``False``.

>>> notifier = Notifier()              # from the environment
>>> notifier.ready("listening on :8000, source serial open")
>>> dog = Watchdog(notifier)           # interval: half of WATCHDOG_USEC
>>> while running: do_work(); dog.kick()   # WATCHDOG=1 goes out only while kicks keep coming
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping


def _address(raw: str) -> str | bytes:
    """The ``sockaddr`` for a ``NOTIFY_SOCKET`` value (``@name`` is the abstract namespace)."""
    if raw.startswith("@"):
        return b"\0" + raw[1:].encode()
    return raw


class Notifier:
    """Sends ``KEY=value`` datagrams to the service manager's notification socket."""

    def __init__(self, socket_path: str | None = None, *, env: Mapping[str, str] | None = None) -> None:
        """Use ``socket_path``, else ``NOTIFY_SOCKET`` from ``env`` (default ``os.environ``)."""
        env = os.environ if env is None else env
        raw = socket_path if socket_path is not None else env.get("NOTIFY_SOCKET", "")
        if raw and not (raw.startswith("/") or raw.startswith("@")):
            raise ValueError(f"NOTIFY_SOCKET must be an absolute path or start with '@', got {raw!r}")
        self.socket_path = raw or None
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        """True when there is a service manager to talk to."""
        return self.socket_path is not None

    def send(self, *fields: str) -> bool:
        """Send ``fields`` (``"READY=1"``, ...) as one datagram; ``False`` if disabled or it failed."""
        if self.socket_path is None:
            return False
        for item in fields:
            if "=" not in item or "\n" in item:
                raise ValueError(f"a notification field is KEY=value on one line, got {item!r}")
        payload = "\n".join(fields).encode()
        with self._lock:
            try:
                if self._sock is None:
                    self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
                self._sock.sendto(payload, _address(self.socket_path))
            except OSError:
                return False  # the manager went away: never let that crash the companion
        return True

    def ready(self, status: str | None = None) -> bool:
        """Tell the manager start-up is complete (``READY=1``), with an optional status line."""
        return self.send("READY=1", *([f"STATUS={_line(status)}"] if status else []))

    def status(self, text: str) -> bool:
        """Set the free-text status ``systemctl status`` shows."""
        return self.send(f"STATUS={_line(text)}")

    def watchdog(self) -> bool:
        """Ping the watchdog (``WATCHDOG=1``)."""
        return self.send("WATCHDOG=1")

    def stopping(self, status: str | None = None) -> bool:
        """Tell the manager the service is shutting down (``STOPPING=1``)."""
        return self.send("STOPPING=1", *([f"STATUS={_line(status)}"] if status else []))

    def close(self) -> None:
        """Close the socket (later sends reopen it)."""
        with self._lock:
            if self._sock is not None:
                self._sock.close()
                self._sock = None


def _line(text: str) -> str:
    """One line of status text (newlines would start a new field)."""
    return " ".join(str(text).split())


def watchdog_interval(env: Mapping[str, str] | None = None, pid: int | None = None) -> float | None:
    """Seconds between pings: half of ``WATCHDOG_USEC``; ``None`` when no watchdog is asked for.

    ``WATCHDOG_PID``, when set, must be this process (``pid``, default ``os.getpid()``).
    A malformed value raises ``ValueError`` naming the variable.
    """
    env = os.environ if env is None else env
    raw = env.get("WATCHDOG_USEC", "")
    if not raw:
        return None
    if not raw.isdigit() or int(raw) == 0:
        raise ValueError(f"WATCHDOG_USEC must be a positive integer of microseconds, got {raw!r}")
    owner = env.get("WATCHDOG_PID", "")
    if owner:
        if not owner.isdigit():
            raise ValueError(f"WATCHDOG_PID must be a process id, got {owner!r}")
        if int(owner) != (os.getpid() if pid is None else pid):
            return None  # the watchdog belongs to another process (e.g. our parent)
    return int(raw) / 1e6 / 2


class Watchdog:
    """Pings the watchdog only while every watched part of the program keeps kicking.

    ``kick(part)`` records that ``part`` made progress; when every part has kicked since the
    last ping and ``interval_s`` has passed, ``WATCHDOG=1`` is sent (from the kicking thread; no
    thread of its own). If any part stalls, pings stop and systemd restarts the service after
    ``WatchdogSec``. With no interval (no ``WATCHDOG_USEC``) kicks cost next to nothing.
    """

    def __init__(
        self,
        notifier: Notifier,
        interval_s: float | None = None,
        *,
        parts: Iterable[str] = ("main",),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``interval_s`` defaults to ``watchdog_interval()``; ``parts`` are the names that must kick."""
        self.notifier = notifier
        self.interval_s = watchdog_interval() if interval_s is None else interval_s
        if self.interval_s is not None and not self.interval_s > 0:
            raise ValueError(f"watchdog interval must be > 0 s, got {self.interval_s}")
        self.parts = frozenset(parts)
        if not self.parts:
            raise ValueError("a watchdog needs at least one part to watch")
        self._clock = clock
        self._kicked: set[str] = set()
        self._last_ping = clock()
        self._lock = threading.Lock()
        self.pings = 0

    @property
    def enabled(self) -> bool:
        """True when pings can go anywhere (a socket and an interval)."""
        return self.interval_s is not None and self.notifier.enabled

    def kick(self, part: str = "main") -> bool:
        """Record progress of ``part``; returns True when this kick sent a ping."""
        if not self.enabled:
            return False
        if part not in self.parts:
            raise ValueError(f"unknown watchdog part {part!r}; known: {', '.join(sorted(self.parts))}")
        with self._lock:
            self._kicked.add(part)
            now = self._clock()
            assert self.interval_s is not None
            if self._kicked != self.parts or now - self._last_ping < self.interval_s:
                return False
            self._kicked.clear()
            self._last_ping = now
        sent = self.notifier.watchdog()
        self.pings += sent
        return sent

    def __call__(self) -> None:
        """``kick("main")``, so the watchdog can be passed where a heartbeat callable is expected."""
        self.kick()


def ready(status: str | None = None) -> bool:
    """``READY=1`` to the manager named by ``NOTIFY_SOCKET`` (no-op outside systemd)."""
    return _oneshot().ready(status)


def status(text: str) -> bool:
    """``STATUS=text`` to the manager named by ``NOTIFY_SOCKET`` (no-op outside systemd)."""
    return _oneshot().status(text)


def watchdog() -> bool:
    """One ``WATCHDOG=1`` now (no rate limit; a main loop should prefer a ``Watchdog``)."""
    if watchdog_interval() is None:
        return False
    return _oneshot().watchdog()


def stopping(status: str | None = None) -> bool:
    """``STOPPING=1`` to the manager named by ``NOTIFY_SOCKET`` (no-op outside systemd)."""
    return _oneshot().stopping(status)


def _oneshot() -> _OneShot:
    """A notifier from the current environment that closes its socket after one message."""
    return _OneShot()


class _OneShot(Notifier):
    """A ``Notifier`` for the module-level helpers: no socket is kept open between calls."""

    def send(self, *fields: str) -> bool:
        """Send, then close the socket."""
        try:
            return super().send(*fields)
        finally:
            self.close()
