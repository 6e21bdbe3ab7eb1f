"""The production HTTP server: waitress for requests, ``web.streams`` for the event streams.

Waitress reads and parses every request on its (thread-free) main loop and runs the WSGI app on
a small pool of worker threads. A completed ``GET /api/events`` request is taken out of waitress
before it reaches a worker: :class:`StreamingChannel` removes the connection from waitress's
loop and hands the socket to the :class:`~web.streams.StreamServer`, so any number of idle
tablets costs no worker thread. This uses waitress's ``HTTPChannel.received`` / ``del_channel``
(stable since waitress 1.x; the dependency is pinned below 4).
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import parse_qs

from waitress import create_server
from waitress.channel import HTTPChannel

from web.security import AccessError, Guard
from web.streams import StreamLimits, StreamServer

log = logging.getLogger(__name__)

EVENTS_PATH = "/api/events"
WSGI_THREADS = 8  # requests only: streams no longer hold a thread


class StreamingChannel(HTTPChannel):
    """A waitress channel that hands a completed ``GET /api/events`` request to the stream server."""

    def received(self, data: bytes) -> bool:  # type: ignore[override]
        """Parse as waitress does; divert the stream request when it is the only one in flight."""
        if not data:
            return False
        streams: StreamServer | None = getattr(self.server, "dingo_streams", None)
        guard: Guard | None = getattr(self.server, "dingo_guard", None)
        if streams is None:
            return super().received(data)
        with self.requests_lock:
            if self.will_close or self.close_when_flushed:
                return False
            while data:
                if self.request is None:
                    self.request = self.parser_class(self.adj)
                n = self.request.received(data)
                if self.request.expect_continue and self.request.headers_finished \
                        and not self.requests and not self.sent_continue:
                    self.send_continue()
                if self.request.completed:
                    self.sent_continue = False
                    req = self.request
                    self.request = None
                    if not req.empty:
                        if self._is_stream(req, guard) and not self.requests and not self.total_outbufs_len:
                            self._hand_over(req, streams)
                            return True
                        self.requests.append(req)
                        if len(self.requests) == 1:
                            self.server.add_task(self)
                if n >= len(data):
                    break
                data = data[n:]
        return True

    @staticmethod
    def _is_stream(req: Any, guard: Guard | None) -> bool:
        if req.command != "GET" or req.path != EVENTS_PATH or req.error is not None:
            return False
        if guard is not None:  # a wrong Host goes on to the app, which refuses it
            try:
                guard.check_host(req.headers.get("HOST"))
            except AccessError:
                return False
        return True

    def _hand_over(self, req: Any, streams: StreamServer) -> None:
        max_s = None
        values = parse_qs(req.query or "").get("max_s")
        if values:
            try:
                max_s = float(values[0])
            except ValueError:
                max_s = None
        sock = self.socket
        address = str(self.addr[0]) if isinstance(self.addr, tuple) and self.addr else "?"
        self.del_channel()  # out of waitress's loop; the socket itself stays open
        self.connected = False
        self.socket = None
        streams.admit(sock, address, None if max_s is None or max_s != max_s else max_s)


def make_server(app: Any, *, host: str, port: int, controller: Any, guard: Guard | None,
                limits: StreamLimits | None = None, threads: int = WSGI_THREADS,
                **waitress_options: Any) -> tuple[Any, StreamServer]:
    """A waitress server for ``app`` whose event streams are served by a started StreamServer."""
    streams = StreamServer(controller, limits)
    server = create_server(app, host=host, port=port, threads=threads, **waitress_options)
    servers = [server] + [s for s in getattr(server, "map", {}).values() if hasattr(s, "channel_class")]
    for s in servers:
        s.channel_class = StreamingChannel
        s.dingo_streams = streams
        s.dingo_guard = guard
    app.extensions["dingo"]["streams"] = streams
    streams.start()
    return server, streams
