"""The notification protocol with the real program: `dingo-companion run` under a fake systemd,
and the table's read loop feeding a Watchdog (a stalled source read stops the pings)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from companion.service.notify import Notifier, Watchdog

REPO = Path(__file__).parents[3]


def receive(sock: socket.socket, seconds: float) -> list[tuple[float, str]]:
    """Datagrams arriving within ``seconds``, with their arrival times."""
    got = []
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        sock.settimeout(min(left, 0.1))
        try:
            got.append((time.monotonic(), sock.recv(4096).decode()))
        except TimeoutError:
            continue
    return got


@pytest.mark.skipif(not (REPO / "companion" / "commands" / "run.py").exists(), reason="no run command yet")
def test_run_sends_ready_then_watchdog_and_stops_when_stalled(tmp_path: Path) -> None:
    sock_path = str(tmp_path / "notify.sock")
    manager = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    manager.bind(sock_path)
    env = {**os.environ, "NOTIFY_SOCKET": sock_path, "WATCHDOG_USEC": "1000000",
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "share"),
           "PYTHONPATH": str(REPO)}
    for name in ("DINGO_CONFIG", "DINGO_SOURCE", "WATCHDOG_PID"):
        env.pop(name, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--source", "sim", "--host", "127.0.0.1", "--port", "0",
         "--data-dir", str(tmp_path / "data")],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        start = time.monotonic()
        messages: list[tuple[float, str]] = []
        while not any(m.startswith("READY=1") for _, m in messages):
            assert proc.poll() is None, proc.communicate()[0]
            assert time.monotonic() - start < 30, f"no READY=1 within 30 s: {messages}"
            messages += receive(manager, 0.2)
        # READY=1 means the page already listens: its address was printed before, and it answers.
        assert proc.stdout is not None
        url = ""
        while not url:
            line = proc.stdout.readline()
            assert line, "the program ended without printing its address"
            if "http://127.0.0.1:" in line:
                url = line.strip()
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.status == 200
        healthy = receive(manager, 1.5)
        pings = [t for t, m in healthy if m == "WATCHDOG=1"]
        # WATCHDOG_USEC = 1 s: a ping at least every second (Watchdog aims at every 0.5 s)
        assert len(pings) >= 2 and max(b - a for a, b in zip(pings, pings[1:], strict=False)) < 1.0

        proc.send_signal(signal.SIGSTOP)  # the whole process hangs
        time.sleep(0.1)
        receive(manager, 0.1)  # drop what was already in flight
        assert [m for _, m in receive(manager, 1.2) if m == "WATCHDOG=1"] == []
        proc.send_signal(signal.SIGCONT)
        assert any(m == "WATCHDOG=1" for _, m in receive(manager, 1.0))

        proc.send_signal(signal.SIGTERM)
        output = proc.communicate(timeout=20)[0]
        assert proc.returncode == 0, output
        rest = [m for _, m in receive(manager, 0.3)]
        assert any(m.startswith("STOPPING=1") for m in rest), rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        manager.close()


class BlockingSource:
    """A source that yields one sample per read until ``hang`` is set, then blocks in read()."""

    def __init__(self) -> None:
        self.hang = threading.Event()
        self.release = threading.Event()
        self.t_ms = 0

    def open(self) -> None:
        pass

    def close(self) -> None:
        self.release.set()

    def read(self, timeout_s: float) -> list[Any]:
        if self.hang.is_set():
            self.release.wait(10)  # a driver stuck in a read: the loop stops iterating
            return []
        time.sleep(0.005)
        self.t_ms += 5
        return []


class QuietController:
    """Just enough of the table controller for the loop."""

    sim = None

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def test_table_loop_heartbeat_feeds_the_watchdog_and_a_stuck_read_stops_it(tmp_path: Path) -> None:
    loop_module = pytest.importorskip("companion.table.loop")
    sock_path = str(tmp_path / "notify.sock")
    manager = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    manager.bind(sock_path)
    dog = Watchdog(Notifier(sock_path), 0.05)
    source = BlockingSource()
    loop = loop_module.SourceLoop(source, pipeline=None, controller=QuietController(), heartbeat=dog,
                                  read_timeout_s=0.01, silence_s=60, batch_s=0.01)
    loop.start()
    try:
        pings = [t for t, m in receive(manager, 0.5) if m == "WATCHDOG=1"]
        assert 5 <= len(pings) <= 11
        source.hang.set()
        time.sleep(0.05)
        receive(manager, 0.05)
        assert receive(manager, 0.4) == []
    finally:
        source.release.set()
        loop.stop()
        manager.close()


RUN_SOURCE = REPO / "companion" / "commands" / "run.py"


@pytest.mark.skipif(
    not RUN_SOURCE.exists() or "load_or_wait" not in RUN_SOURCE.read_text(encoding="utf-8"),
    reason="run does not use companion.service.configwait.load_or_wait yet (it exits on a config error)",
)
def test_run_with_a_bad_config_waits_for_a_fix_instead_of_exiting(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[web]\nhost = '127.0.0.1'\nport = 0\nbogus = 1\n", encoding="utf-8")
    sock_path = str(tmp_path / "notify.sock")
    manager = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    manager.bind(sock_path)
    env = {**os.environ, "NOTIFY_SOCKET": sock_path, "PYTHONPATH": str(REPO),
           "XDG_DATA_HOME": str(tmp_path / "share")}
    for name in ("DINGO_SOURCE", "WATCHDOG_USEC", "WATCHDOG_PID"):
        env.pop(name, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--config", str(config), "--source", "sim",
         "--data-dir", str(tmp_path / "data")],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        first = [m for _, m in receive(manager, 15) if m.startswith("READY=1")][:1]
        assert first and "configuration error" in first[0] and "web.bogus" in first[0]
        assert proc.poll() is None  # still running: no crash loop
        config.write_text("[web]\nhost = '127.0.0.1'\nport = 0\n", encoding="utf-8")
        later = [m for _, m in receive(manager, 15)]
        assert any(m.startswith("READY=1") and "configuration error" not in m for m in later), later
        proc.send_signal(signal.SIGTERM)
        output = proc.communicate(timeout=20)[0]
        assert f"{config}:4: web.bogus" in output
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        manager.close()
