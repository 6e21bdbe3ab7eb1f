"""The table's venue publisher: status, state and events to the venue's MQTT broker.

One background thread (outside the pure core) is fed by the controller's subscriber hub: each
change wakes it, it numbers what is new in the session log (:class:`Journal`), hands the
messages to paho-mqtt (QoS 1, in order, at most ``window`` unacknowledged) and publishes the
latest state (retained, coalesced). paho's own network thread connects, reconnects and resends
what was in flight; the broker's acknowledgements move the journal's ``acked`` mark. Nothing
here ever holds up the read loop or the game: the controller only drops an item in a queue.

The table subscribes to nothing: it accepts no commands from the broker.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.venue.journal import Journal
from companion.venue.mqtt import KEEPALIVE_S, client_for, connect_problem, unreachable
from companion.venue.summary import summarise

log = logging.getLogger(__name__)

STATE_SCHEMA = "dingo-venue-state/1"
STATUS_SCHEMA = "dingo-venue-status/1"
STATUS_KEY = "venue"
"""The controller's status line for the broker connection (not a sensor fault: the LED ignores it)."""


class VenuePublisher:
    """Publishes one table under ``venue.topic_prefix()``; ``start()``, ``stop()``, ``problem``."""

    def __init__(self, venue: Any, controller: Any, sessions_path: str | Path, data_dir: str | Path, *,
                 describe: Any = None, describe_event: Any = None, window: int = 200,
                 state_interval_s: float = 0.1, sync_interval_s: float = 1.0,
                 on_status: Callable[[str | None], None] | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        """Prepare (nothing connects before :meth:`start`)."""
        self.venue = venue
        self.controller = controller
        self.prefix = venue.topic_prefix()
        self.identity = {"venue": venue.name, "table": venue.table}
        self.journal = Journal(data_dir, sessions_path, self.identity, describe=describe,
                               describe_event=describe_event, clock=clock)
        self.window = window
        self.state_interval_s = state_interval_s
        self.sync_interval_s = sync_interval_s
        self.on_status = on_status
        self._clock = clock
        self.problem: str | None = "connecting to the venue broker"
        self.connected = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._acks: collections.deque[int] = collections.deque()  # mids, from paho's thread
        self._mid_seq: dict[int, int] = {}
        self._acked_seqs: set[int] = set()
        self._acked = self.journal.acked
        self._fed = self._acked
        self._state: dict | None = None
        self._state_dirty = False
        self._state_sent_at = 0.0
        self._reconnected = threading.Event()
        self.sent = 0  # messages handed to paho (events, states, statuses), for the benchmark
        self._client = client_for(venue, f"dingo-table-{venue.name}-{venue.table}")
        self._client.will_set(self.topic("status"), self._status_payload("offline", None), qos=1, retain=True)
        self._client.on_connect = self._on_connect
        self._client.on_connect_fail = self._on_connect_fail
        self._client.on_disconnect = self._on_disconnect
        self._client.on_publish = self._on_publish

    def topic(self, name: str) -> str:
        """``<prefix>status``, ``<prefix>state`` or ``<prefix>events``."""
        return self.prefix + name

    # -- life -----------------------------------------------------------------------------------
    def start(self) -> None:
        """Connect in the background and start the publisher thread."""
        self._client.connect_async(self.venue.host, self.venue.broker_port, keepalive=KEEPALIVE_S)
        self._client.loop_start()
        self._thread = threading.Thread(target=self._run, name="dingo-venue", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 2.0) -> None:
        """Say ``offline``, give the broker a moment to acknowledge what is in flight, disconnect."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
        if self.connected.is_set():
            with contextlib.suppress(Exception):
                offline = self._status_payload("offline", self._clock())
                info = self._client.publish(self.topic("status"), offline, qos=1, retain=True)
                info.wait_for_publish(min(1.0, timeout_s))
            self._take_acks()
        with contextlib.suppress(Exception):
            self._client.disconnect()
        self._client.loop_stop()
        self.journal.close()

    @property
    def acked(self) -> int:
        """Every event up to this sequence number was acknowledged by the broker."""
        return self._acked

    # -- paho callbacks (paho's network thread: keep them short, take no lock of ours) ---------
    def _on_connect(self, client: Any, _userdata: Any, _flags: Any, reason_code: Any,
                    _props: Any = None) -> None:
        problem = connect_problem(reason_code, self.venue.host, self.venue.broker_port)
        if problem is not None:
            self._set_problem(problem)
            return
        online = self._status_payload("online", self._clock())
        client.publish(self.topic("status"), online, qos=1, retain=True)
        self.connected.set()
        self._reconnected.set()
        self._set_problem(None)

    def _on_connect_fail(self, _client: Any, _userdata: Any) -> None:
        hint = "; TLS: check [venue] ca_file" if self.venue.use_tls else ""
        self._set_problem(unreachable(self.venue.host, self.venue.broker_port, "connection failed" + hint))

    def _on_disconnect(self, _client: Any, _userdata: Any, _flags: Any, reason_code: Any,
                       _props: Any = None) -> None:
        was = self.connected.is_set()
        self.connected.clear()
        if was and not self._stop.is_set():
            self._set_problem(f"lost the venue broker at {self.venue.host}:{self.venue.broker_port} "
                              f"({reason_code}); retrying, events are kept")

    def _on_publish(self, _client: Any, _userdata: Any, mid: int, _reason: Any = None,
                    _props: Any = None) -> None:
        self._acks.append(mid)

    def _set_problem(self, problem: str | None) -> None:
        if problem == self.problem:
            return
        self.problem = problem
        if problem:
            log.warning("venue: %s", problem)
        else:
            log.info("venue: connected to %s:%s", self.venue.host, self.venue.broker_port)
        if self.on_status is not None:
            try:
                self.on_status(problem)
            except Exception:  # noqa: BLE001 - the page's status line must never stop publishing
                log.exception("venue status callback failed")

    # -- the publisher thread ------------------------------------------------------------------
    def _run(self) -> None:
        sub = None
        last_sync = 0.0
        while not self._stop.is_set():
            try:
                if sub is None:
                    sub, snapshot = self.controller.subscribe(kinds=("change",))
                    self._new_state(snapshot)
                changed = self._drain(sub, 0.25)
                if changed is None:  # dropped by the hub (we were slow): take a fresh snapshot
                    self.controller.unsubscribe(sub)
                    sub = None
                    changed = True
                now = time.monotonic()
                if changed or now - last_sync >= self.sync_interval_s:
                    self.journal.sync()
                    last_sync = now
                self._take_acks()
                if self._reconnected.is_set():
                    self._reconnected.clear()
                    self._state_dirty = self._state is not None
                if self.connected.is_set():
                    self._feed()
                    self._send_state()
            except Exception:  # noqa: BLE001 - the publisher must survive anything and keep going
                log.exception("venue publisher step failed")
                self._stop.wait(1.0)
        if sub is not None:
            self.controller.unsubscribe(sub)

    def _drain(self, sub: Any, timeout_s: float) -> bool | None:
        """Wait for a change; take every queued one (the newest state wins). None once dropped."""
        item = sub.get(timeout_s)
        changed = False
        while item is not None:
            if item.kind == "closed":
                return None
            if item.kind == "change":
                self._new_state(item.payload)
                changed = True
            item = sub.get(0)
        return changed

    def _new_state(self, message: dict) -> None:
        self._state = message
        self._state_dirty = True

    def _feed(self) -> None:
        """Hand paho the next numbered events, keeping at most ``window`` unacknowledged."""
        room = self._acked + self.window - self._fed
        if room <= 0:
            return
        topic = self.topic("events")
        for seq, payload in self.journal.pending(self._fed, room):
            info = self._client.publish(topic, payload, qos=1)
            self._mid_seq[info.mid] = seq
            self._fed = seq
            self.sent += 1

    def _take_acks(self) -> None:
        """Move the acknowledged mark over every contiguous acknowledged number (persisted)."""
        moved = False
        while self._acks:
            seq = self._mid_seq.pop(self._acks.popleft(), None)
            if seq is not None and seq > self._acked:
                self._acked_seqs.add(seq)
        while self._acked + 1 in self._acked_seqs:
            self._acked_seqs.discard(self._acked + 1)
            self._acked += 1
            moved = True
        if moved:
            self.journal.set_acked(self._acked)

    def _send_state(self) -> None:
        now = time.monotonic()
        if not self._state_dirty or self._state is None or now - self._state_sent_at < self.state_interval_s:
            return
        self._state_dirty = False
        self._state_sent_at = now
        payload = self.state_payload(self._state)
        self._client.publish(self.topic("state"), json.dumps(payload, separators=(",", ":"), default=str),
                             qos=1, retain=True)
        self.sent += 1

    def state_payload(self, message: dict) -> dict[str, Any]:
        """The retained ``state`` message for one controller message."""
        state = message.get("state") or {}
        return {"schema": STATE_SCHEMA, **self.identity, "at": self._clock(),
                "version": message.get("version"), "session_id": self.controller.session_id,
                "last_seq": self.journal.last_seq, "summary": summarise(state), "state": state}

    def _status_payload(self, status: str, at: float | None) -> str:
        body: dict[str, Any] = {"schema": STATUS_SCHEMA, **self.identity, "status": status}
        if at is not None:
            body["at"] = at
        return json.dumps(body, separators=(",", ":"))
