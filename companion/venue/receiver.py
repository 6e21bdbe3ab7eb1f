"""The hub's MQTT side: subscribe to every table of the venue, store each message, then ack it.

A persistent session (``clean_session=False``, a fixed client id, QoS 1): while the hub is
stopped the broker keeps its messages, and each message is written to :class:`HubStore`
before paho acknowledges it (the acknowledgement goes out after ``on_message`` returns), so
nothing delivered is lost by a hub restart. Bad messages are counted and logged, never fatal.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from companion.venue.hubstore import HubStore, MessageError
from companion.venue.mqtt import KEEPALIVE_S, connect_problem, make_client, unreachable

log = logging.getLogger(__name__)


def topic_filters(prefix: str, venue: str) -> list[str]:
    """The subscriptions: ``<prefix>{status,state,events}`` with ``+`` for the table (and venue)."""
    base = prefix.replace("{venue}", venue or "+").replace("{table}", "+")
    base = base if base.endswith("/") else base + "/"
    return [base + name for name in ("status", "state", "events")]


class Receiver:
    """Feeds one :class:`HubStore` from the broker; ``on_change(venue, table, kind, payload)``."""

    def __init__(self, store: HubStore, host: str, port: int, *, venue: str = "", prefix: str,
                 client_id: str, username: str = "", password: str = "", ca_file: str = "",
                 tls: bool = False, on_change: Callable[[str, str, str, dict], None] | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        """Prepare (``start()`` connects)."""
        self.store = store
        self.host, self.port = host, port
        self.filters = topic_filters(prefix, venue)
        self.on_change = on_change
        self._clock = clock
        self.problem: str | None = "connecting to the broker"
        self.connected = threading.Event()
        self.received = 0
        self.duplicates = 0
        self.rejected = 0
        self.last_rejected: str | None = None
        self._client = make_client(client_id, username=username, password=password, ca_file=ca_file,
                                   tls=tls, clean_session=False)
        self._client.on_connect = self._on_connect
        self._client.on_connect_fail = self._on_connect_fail
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message

    def start(self) -> None:
        """Connect in the background (and reconnect whenever needed)."""
        self._client.connect_async(self.host, self.port, keepalive=KEEPALIVE_S)
        self._client.loop_start()

    def stop(self) -> None:
        """Disconnect (the broker keeps the session for the next start)."""
        self._client.disconnect()
        self._client.loop_stop()

    def _on_connect(self, client: Any, _u: Any, _flags: Any, reason_code: Any, _p: Any = None) -> None:
        problem = connect_problem(reason_code, self.host, self.port)
        self.problem = problem
        if problem is not None:
            log.warning("hub: %s", problem)
            return
        for f in self.filters:
            client.subscribe(f, qos=1)
        self.connected.set()
        log.info("hub: connected to %s:%s, subscribed to %s", self.host, self.port, ", ".join(self.filters))

    def _on_connect_fail(self, _c: Any, _u: Any) -> None:
        self.problem = unreachable(self.host, self.port)

    def _on_disconnect(self, _c: Any, _u: Any, _f: Any, reason_code: Any, _p: Any = None) -> None:
        self.connected.clear()
        self.problem = f"lost the broker at {self.host}:{self.port} ({reason_code}); retrying"

    def _on_message(self, _c: Any, _u: Any, message: Any) -> None:
        kind = message.topic.rsplit("/", 1)[-1]
        try:
            payload = json.loads(message.payload.decode("utf-8"))
            if not isinstance(payload, dict):
                raise MessageError("not a JSON object")
            if kind == "events":
                if not self.store.put_event(payload, self._clock()):
                    self.duplicates += 1
                    return
                venue, table = payload["venue"], payload["table"]
            elif kind == "state":
                venue, table = self.store.put_state(payload)
            elif kind == "status":
                venue, table = self.store.put_status(payload)
            else:
                return
        except (MessageError, UnicodeDecodeError, ValueError) as exc:
            self.rejected += 1
            self.last_rejected = f"{message.topic}: {exc}"
            log.warning("hub: ignored a message on %s: %s", message.topic, exc)
            return
        self.received += 1
        if self.on_change is not None:
            try:
                self.on_change(venue, table, kind, payload)
            except Exception:  # noqa: BLE001 - the page's update must never lose a message
                log.exception("hub: change callback failed")
