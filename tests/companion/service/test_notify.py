"""sd_notify over a real datagram socket: READY=1, periodic WATCHDOG=1, and silence when stalled."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.service.notify import Notifier, Watchdog, watchdog_interval


class FakeManager:
    """A NOTIFY_SOCKET endpoint that records every datagram with its arrival time."""

    def __init__(self, address: str | bytes) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(address)
        self.sock.settimeout(0.05)
        self.messages: list[tuple[float, str]] = []

    def drain(self, for_s: float = 0.0) -> list[str]:
        """Collect datagrams for ``for_s`` seconds (at least until the queue is empty)."""
        end = time.monotonic() + for_s
        while True:
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                if time.monotonic() >= end:
                    break
                continue
            self.messages.append((time.monotonic(), data.decode()))
        return [m for _, m in self.messages]

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[tuple[str, FakeManager]]:
    path = str(tmp_path / "notify.sock")
    fake = FakeManager(path)
    yield path, fake
    fake.close()


def test_ready_status_stopping(manager: tuple[str, FakeManager]) -> None:
    path, fake = manager
    notifier = Notifier(env={"NOTIFY_SOCKET": path})
    assert notifier.enabled
    assert notifier.ready("listening on :8000\nsource open")
    assert notifier.status("3 players")
    assert notifier.stopping()
    notifier.close()
    assert fake.drain() == [
        "READY=1\nSTATUS=listening on :8000 source open", "STATUS=3 players", "STOPPING=1"
    ]


def test_abstract_namespace_socket() -> None:
    name = f"dingo-test-{os.getpid()}-{time.monotonic_ns()}"
    fake = FakeManager(b"\0" + name.encode())
    try:
        assert Notifier(env={"NOTIFY_SOCKET": "@" + name}).ready()
        assert fake.drain() == ["READY=1"]
    finally:
        fake.close()


def test_without_systemd_everything_is_a_no_op(tmp_path: Path) -> None:
    notifier = Notifier(env={})
    assert not notifier.enabled and not notifier.ready() and not notifier.watchdog()
    dog = Watchdog(notifier, 0.01)
    assert not dog.enabled and not dog.kick()
    # a socket that vanished does not crash the caller either
    assert Notifier(env={"NOTIFY_SOCKET": str(tmp_path / "gone.sock")}).ready() is False


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="NOTIFY_SOCKET"):
        Notifier(env={"NOTIFY_SOCKET": "relative.sock"})
    with pytest.raises(ValueError, match="KEY=value"):
        Notifier("/tmp/x").send("READY")
    with pytest.raises(ValueError, match="WATCHDOG_USEC"):
        watchdog_interval({"WATCHDOG_USEC": "soon"})
    with pytest.raises(ValueError, match="interval"):
        Watchdog(Notifier(env={}), 0.0)


def test_watchdog_interval_from_environment() -> None:
    assert watchdog_interval({}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "20000000"}) == 10.0
    assert watchdog_interval({"WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "42"}, pid=42) == 2.0
    assert watchdog_interval({"WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "41"}, pid=42) is None


def test_watchdog_needs_every_part_and_the_interval(manager: tuple[str, FakeManager]) -> None:
    path, fake = manager
    now = [0.0]
    dog = Watchdog(Notifier(path), 1.0, parts=("table", "web"), clock=lambda: now[0])
    now[0] = 0.5
    assert not dog.kick("table") and not dog.kick("web")  # both alive but the interval has not passed
    now[0] = 1.0
    assert dog.kick("table")  # interval passed, both kicked since the last ping -> ping
    now[0] = 2.5
    assert not dog.kick("web") and not dog.kick("web")  # table stalled: no ping however long it has been
    now[0] = 2.6
    assert dog.kick("table")  # table is back: ping
    with pytest.raises(ValueError, match="unknown watchdog part"):
        dog.kick("panel")
    assert fake.drain() == ["WATCHDOG=1", "WATCHDOG=1"]


def test_main_loop_pings_periodically_and_a_stall_stops_them(manager: tuple[str, FakeManager]) -> None:
    """A real loop thread kicking every 5 ms with WATCHDOG_USEC=400 ms (pings every 200 ms).

    The periods are long enough that a loaded machine's scheduler (a thread not run for tens of
    milliseconds) does not decide the outcome; the bound checked is systemd's own, WATCHDOG_USEC."""
    path, fake = manager
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "400000"}
    notifier = Notifier(env=env)
    dog = Watchdog(notifier, watchdog_interval(env))
    stall = threading.Event()
    stop = threading.Event()

    def main_loop() -> None:
        notifier.ready("started")
        while not stop.is_set():
            if stall.is_set():
                stop.wait()  # a hung main loop: blocked, no more kicks
                break
            dog.kick()
            time.sleep(0.005)

    thread = threading.Thread(target=main_loop, daemon=True)
    thread.start()
    fake.drain(2.0)
    healthy = list(fake.messages)
    assert healthy[0][1] == "READY=1\nSTATUS=started"
    pings = [t for t, m in healthy if m == "WATCHDOG=1"]
    assert 5 <= len(pings) <= 11, pings  # about one per 200 ms over 2 s
    gaps = [b - a for a, b in zip(pings, pings[1:], strict=False)]
    assert max(gaps) < 0.4, gaps  # always within WATCHDOG_USEC
    stall.set()
    time.sleep(0.05)  # let an in-flight kick land
    fake.messages.clear()
    fake.drain(1.2)  # three watchdog periods
    assert [m for _, m in fake.messages if m == "WATCHDOG=1"] == []
    stop.set()
    thread.join(1)


def test_module_level_helpers_use_the_environment(
    manager: tuple[str, FakeManager], monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion.service import notify

    path, fake = manager
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    assert not notify.ready()
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    assert notify.ready() and notify.status("ok")
    assert not notify.watchdog()  # no WatchdogSec: nothing to ping
    monkeypatch.setenv("WATCHDOG_USEC", "1000000")
    assert notify.watchdog() and notify.stopping()
    assert fake.drain() == ["READY=1", "STATUS=ok", "WATCHDOG=1", "STOPPING=1"]
