"""Event streams that cost no worker thread: one selector thread serves every ``/api/events`` client.

Waitress gives each request a thread from a fixed pool until its response ends, so an idle event
stream would hold a thread for as long as the tablet is open (34 idle streams froze the page). Here
waitress still parses the request (see ``web.server``), then hands the socket to a
:class:`StreamServer`: one thread with a selector writes every stream, a second relays the
table's changes from one controller subscription to all of them. Limits:

- at most ``max_total`` streams in all (503 beyond) and ``max_per_client`` per address (429), each
  refusal a JSON body that says why, with ``Retry-After``;
- a comment line every ``heartbeat_s`` keeps proxies and NAT tables open and finds dead clients;
- a client that does not take its data (``max_buffer`` bytes pending or nothing sent for
  ``stall_s``) is dropped; every stream ends after ``max_age_s`` (the page reconnects and gets a
  fresh snapshot), so nothing is held for ever.
"""

from __future__ import annotations

import contextlib
import json
import logging
import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from companion.table.hub import sse_frame

log = logging.getLogger(__name__)

RETRY_MS = 2000

_HEAD = (
    "HTTP/1.1 200 OK\r\n"
    "Content-Type: text/event-stream; charset=utf-8\r\n"
    "Cache-Control: no-cache\r\n"
    "X-Accel-Buffering: no\r\n"
    "X-Content-Type-Options: nosniff\r\n"
    "Connection: close\r\n"
    "\r\n"
)


def refusal(status: int, reason: str, message: str, retry_after_s: int) -> bytes:
    """A complete HTTP response refusing a stream, with a JSON body naming the limit."""
    body = json.dumps({"error": message}).encode()
    return (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nRetry-After: {retry_after_s}\r\nConnection: close\r\n\r\n"
    ).encode() + body


@dataclass(eq=False)
class _Client:
    sock: socket.socket
    address: str
    version: int
    started: float
    deadline: float
    out: bytearray = field(default_factory=bytearray)
    last_sent: float = 0.0
    last_write: float = 0.0
    writing: bool = False


@dataclass
class StreamLimits:
    """The limits of :class:`StreamServer` (see the module docstring)."""

    max_total: int = 256
    max_per_client: int = 16
    heartbeat_s: float = 15.0
    max_age_s: float = 3600.0
    stall_s: float = 60.0
    max_buffer: int = 512 * 1024


class StreamServer:
    """Serves ``text/event-stream`` responses on sockets handed over by the HTTP server."""

    def __init__(self, controller: Any, limits: StreamLimits | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Prepare; call :meth:`start` to run the two threads."""
        self.controller = controller
        self.limits = limits or StreamLimits()
        self._clock = clock
        self._sel = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._sel.register(self._wake_r, selectors.EVENT_READ, None)
        self._lock = threading.Lock()
        self._clients: dict[int, _Client] = {}  # fileno -> client
        self._incoming: list[tuple[socket.socket, str, float | None]] = []
        self._pending: list[Any] = []  # items from the relay, not yet fanned out
        self._reserved = 0  # admitted, not yet registered
        self._per_address: dict[str, int] = {}
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.refused = 0

    # -- called from the HTTP server's threads -------------------------------------------------

    def count(self) -> int:
        """Streams open now (and admitted ones about to open)."""
        with self._lock:
            return len(self._clients) + self._reserved

    def admit(self, sock: socket.socket, address: str, max_s: float | None = None) -> None:
        """Take over ``sock`` (a request for the stream was just read on it) or refuse it."""
        lim = self.limits
        with self._lock:
            total = len(self._clients) + self._reserved
            mine = self._per_address.get(address, 0)
            if total >= lim.max_total:
                answer = refusal(503, "Service Unavailable",
                                 f"this table serves at most {lim.max_total} event streams; "
                                 "try again later", 30)
            elif mine >= lim.max_per_client:
                answer = refusal(429, "Too Many Requests",
                                 f"at most {lim.max_per_client} event streams per address; "
                                 "close other tabs of this page", 30)
            else:
                answer = None
                self._reserved += 1
                self._per_address[address] = mine + 1
                self._incoming.append((sock, address, max_s))
        if answer is not None:
            self.refused += 1
            _send_and_close(sock, answer)
            return
        self._wake()

    # -- threads -------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the selector thread and the relay thread."""
        for name, target in (("dingo-streams", self._serve), ("dingo-stream-relay", self._relay)):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self, timeout_s: float = 2.0) -> None:
        """End every stream and the threads."""
        self._stop.set()
        self._wake()
        for t in self._threads:
            t.join(timeout_s)
        with self._lock:
            clients = list(self._clients.values())
            self._clients.clear()
            incoming, self._incoming = self._incoming, []
        for c in clients:
            self._close_sock(c.sock)
        for sock, _, _ in incoming:
            self._close_sock(sock)
        with contextlib.suppress(OSError):
            self._sel.close()
        for s in (self._wake_r, self._wake_w):
            s.close()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # a full wake pipe is already a wake-up
            self._wake_w.send(b"\0")

    def _relay(self) -> None:
        """Block on one controller subscription; queue each item for the selector thread."""
        while not self._stop.is_set():
            sub, _ = self.controller.subscribe()
            try:
                while not self._stop.is_set():
                    item = sub.get(0.5)
                    if item is None:
                        continue
                    if item.kind == "closed":  # dropped (stalled): every client starts afresh
                        with self._lock:
                            self._pending.append(None)
                        self._wake()
                        break
                    with self._lock:
                        self._pending.append(item)
                    self._wake()
            finally:
                self.controller.unsubscribe(sub)

    def _serve(self) -> None:
        lim = self.limits
        next_tick = self._clock() + 1.0
        while not self._stop.is_set():
            timeout = max(0.0, next_tick - self._clock())
            for key, mask in self._sel.select(timeout):
                if key.data is None:
                    with contextlib.suppress(OSError):
                        while self._wake_r.recv(4096):
                            pass
                    continue
                client: _Client = key.data
                if mask & selectors.EVENT_READ:
                    self._on_readable(client)
                if mask & selectors.EVENT_WRITE and client.sock.fileno() in self._clients:
                    self._flush(client)
            self._take_incoming()
            self._fan_out()
            now = self._clock()
            if now >= next_tick:
                next_tick = now + 1.0
                for c in list(self._clients.values()):
                    if now >= c.deadline:
                        self._drop(c, "reached its maximum age")
                    elif c.out and now - c.last_write > lim.stall_s:
                        self._drop(c, "stalled")
                    elif now - c.last_sent >= lim.heartbeat_s:
                        self._queue(c, b": heartbeat\n\n")

    def _take_incoming(self) -> None:
        with self._lock:
            incoming, self._incoming = self._incoming, []
        for sock, address, max_s in incoming:
            try:
                snapshot = self.controller.message()
            except Exception:  # noqa: BLE001 - a failing snapshot refuses this client only
                log.exception("event-stream snapshot failed")
                with self._lock:
                    self._reserved -= 1
                    self._release(address)
                _send_and_close(sock, refusal(503, "Service Unavailable", "state not available", 5))
                continue
            now = self._clock()
            age = self.limits.max_age_s if max_s is None else max(0.0, min(max_s, self.limits.max_age_s))
            c = _Client(sock, address, int(snapshot.get("version", 0)), now, now + age,
                        last_sent=now, last_write=now)
            sock.setblocking(False)
            with self._lock:
                self._reserved -= 1
                self._clients[sock.fileno()] = c
            self._sel.register(sock, selectors.EVENT_READ, c)
            text = _HEAD + f"retry: {RETRY_MS}\n\n" + sse_frame("snapshot", snapshot, snapshot.get("version"))
            self._queue(c, text.encode())

    def _fan_out(self) -> None:
        with self._lock:
            items, self._pending = self._pending, []
        for item in items:
            for c in list(self._clients.values()):
                if item is None:
                    self._drop(c, "the relay was reset")
                    continue
                version = item.payload.get("version") if item.kind != "live" and item.payload else None
                if isinstance(version, int) and version <= c.version:
                    continue  # already in this client's snapshot
                self._queue(c, item.frame.encode())
                if item.kind == "closed":
                    self._drop(c, "closed")

    def _queue(self, c: _Client, data: bytes) -> None:
        if c.sock.fileno() < 0:
            return
        c.out += data
        c.last_sent = self._clock()
        if len(c.out) > self.limits.max_buffer:
            self._drop(c, "does not take its data")
            return
        self._flush(c)

    def _flush(self, c: _Client) -> None:
        try:
            while c.out:
                n = c.sock.send(c.out)
                if n <= 0:
                    break
                del c.out[:n]
                c.last_write = self._clock()
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._drop(c, "went away")
            return
        want = selectors.EVENT_READ | (selectors.EVENT_WRITE if c.out else 0)
        if (want & selectors.EVENT_WRITE) != c.writing:
            c.writing = bool(want & selectors.EVENT_WRITE)
            with contextlib.suppress(KeyError, ValueError, OSError):
                self._sel.modify(c.sock, want, c)
        if not c.out and self._clock() >= c.deadline:
            self._drop(c, "reached its maximum age")

    def _on_readable(self, c: _Client) -> None:
        try:
            data = c.sock.recv(4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._drop(c, "closed by the client")
        # anything a stream client sends is ignored

    def _drop(self, c: _Client, why: str) -> None:
        fd = c.sock.fileno()
        with self._lock:
            known = self._clients.pop(fd, None) is not None
            if known:
                self._release(c.address)
        if not known:
            return
        log.debug("event stream from %s ended: %s", c.address, why)
        with contextlib.suppress(KeyError, ValueError, OSError):
            self._sel.unregister(c.sock)
        self._close_sock(c.sock)

    def _release(self, address: str) -> None:
        n = self._per_address.get(address, 0) - 1
        if n > 0:
            self._per_address[address] = n
        else:
            self._per_address.pop(address, None)

    @staticmethod
    def _close_sock(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            sock.close()


def _send_and_close(sock: socket.socket, data: bytes) -> None:
    """Best effort: write a short refusal and close (never blocks for long)."""
    with contextlib.suppress(OSError):
        sock.settimeout(1.0)
        sock.sendall(data)
    StreamServer._close_sock(sock)
