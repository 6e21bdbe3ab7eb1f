"""Fixtures for the venue tests: a real Mosquitto on a free loopback port, a cuttable TCP proxy
(a table's network), simulated tables and an in-process hub."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from companion.config.venue import VenueConfig
from companion.venue.broker import LocalBroker, find_mosquitto
from companion.venue.hubstore import HubStore
from companion.venue.receiver import Receiver
from companion.venue.simtable import SimulatedTable
from companion.venue.view import LiveView

SCHEMAS = Path(__file__).resolve().parents[3] / "companion" / "venue" / "schemas"

if find_mosquitto() is None and not os.environ.get("CI"):
    pytest.skip("mosquitto is not installed (scripts/dev.sh test installs it)", allow_module_level=True)


def wait_for(check: Callable[[], object], timeout_s: float = 15.0, what: str = "condition") -> object:
    """Poll ``check`` until it is truthy; fail naming ``what``."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


@pytest.fixture
def broker(tmp_path: Path):
    with LocalBroker(tmp_path / "broker") as b:
        yield b


class Proxy:
    """A TCP proxy to ``port``; ``cut()`` drops every connection and refuses new ones until ``mend()``."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.up = True
        self.pairs: list[tuple[socket.socket, socket.socket]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.up:
                client.close()
                continue
            try:
                server = socket.create_connection(("127.0.0.1", self.target), 2)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.pairs.append((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def cut(self) -> None:
        self.up = False
        with self.lock:
            pairs, self.pairs = self.pairs, []
        for pair in pairs:
            for s in pair:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()

    def mend(self) -> None:
        self.up = True

    def close(self) -> None:
        self.cut()
        self.listener.close()


@pytest.fixture
def proxy(broker):
    p = Proxy(broker.port)
    yield p
    p.close()


def venue_for(port: int, table: str = "t1", **extra) -> VenueConfig:
    return VenueConfig(name="club", table=table, host="127.0.0.1", port=port, **extra)


@pytest.fixture
def make_table(tmp_path: Path):
    made: list[SimulatedTable] = []

    def make(port: int, table: str = "t1", seed: int = 1, data_dir: Path | None = None, **extra):
        t = SimulatedTable(data_dir or tmp_path / table, venue_for(port, table, **extra), seed=seed)
        made.append(t)
        return t

    yield make
    for t in made:
        with contextlib.suppress(Exception):  # already stopped by the test
            t.stop()


class HubHarness:
    """The hub's store, view and receiver, in process (``restart()`` = a hub restart)."""

    def __init__(self, data_dir: Path, port: int, client_id: str = "test-hub") -> None:
        self.data_dir, self.port, self.client_id = data_dir, port, client_id
        self.raw: list[tuple[str, dict]] = []
        self.start()

    def start(self) -> None:
        self.store = HubStore(self.data_dir)
        self.view = LiveView(self.store)
        self.receiver = Receiver(
            self.store,
            "127.0.0.1",
            self.port,
            venue="club",
            prefix="dingo/{venue}/tables/{table}/",
            client_id=self.client_id,
            on_change=self._changed,
        )
        self.receiver.start()
        wait_for(self.receiver.connected.is_set, what="the hub to connect")

    def _changed(self, venue, table, kind, payload) -> None:
        self.raw.append((kind, payload))
        self.view.changed(venue, table, kind, payload)

    def stop(self) -> None:
        self.receiver.stop()
        self.store.close()

    def restart(self) -> None:
        self.stop()
        self.start()

    def seqs(self, table: str = "t1") -> list[int]:
        return [e["seq"] for e in self.store.events("club", table)]


@pytest.fixture
def hub(tmp_path: Path, broker):
    h = HubHarness(tmp_path / "hub", broker.port)
    yield h
    h.stop()


def schema(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.json").read_text())


@pytest.fixture
def wait():
    """``wait(check, timeout_s, what)`` (test modules cannot import conftest under importlib mode)."""
    return wait_for


@pytest.fixture
def schemas():
    """``schemas("event")`` -> the JSON Schema of docs/venue.md."""
    return schema


@pytest.fixture
def new_hub(tmp_path: Path):
    """``new_hub(port, client_id)``: another in-process hub (stopped at the end)."""
    made: list[HubHarness] = []

    def make(port: int, client_id: str = "other-hub", name: str = "other-hub") -> HubHarness:
        h = HubHarness(tmp_path / name, port, client_id=client_id)
        made.append(h)
        return h

    yield make
    for h in made:
        with contextlib.suppress(Exception):
            h.stop()
