"""A refused configuration holds the service (READY + STATUS) until the file is fixed."""

from __future__ import annotations

import io
import os
import socket
import threading
from pathlib import Path

import pytest

from companion.config import Config, ConfigError, load_config
from companion.service.configwait import wait_for_config
from companion.service.notify import Notifier


def test_waits_reports_each_new_error_and_returns_the_fixed_config(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[web]\nport = 99999\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    sock_path = str(tmp_path / "notify.sock")
    manager = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    manager.bind(sock_path)
    manager.settimeout(2)
    err = io.StringIO()
    result: list[object] = []

    def hold() -> None:
        result.append(wait_for_config(path, info.value, Notifier(sock_path), poll_s=0.02, err=err))

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    first = manager.recv(4096).decode()
    assert first.startswith("READY=1\nSTATUS=configuration error: ") and "web.port" in first
    path.write_text("[web]\nport = 8001\nbogus = 1\n", encoding="utf-8")  # still wrong, differently
    os.utime(path, ns=(1, 1))
    second = manager.recv(4096).decode()
    assert "web.bogus" in second
    path.write_text("[web]\nport = 8001\n", encoding="utf-8")
    thread.join(5)
    manager.close()
    assert not thread.is_alive()
    config = result[0]
    assert isinstance(config, Config) and config.web.port == 8001
    log = err.getvalue()
    assert log.count("configuration error:") == 2 and "configuration fixed" in log
    assert f"{path}:2: web.port" in log


def test_stop_ends_the_wait(tmp_path: Path) -> None:
    stop = threading.Event()
    stop.set()
    error = ConfigError(tmp_path / "c.toml", "broken", 1)
    assert wait_for_config(tmp_path / "c.toml", error, Notifier(env={}), stop=stop, err=io.StringIO()) is None


def test_load_or_wait_raises_outside_systemd_and_waits_under_it(tmp_path: Path) -> None:
    from companion.service.configwait import load_or_wait

    path = tmp_path / "config.toml"
    path.write_text("[web]\nport = 'x'\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="web.port"):
        load_or_wait(path, Notifier(env={}))
    sock_path = str(tmp_path / "n.sock")
    manager = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    manager.bind(sock_path)
    stop = threading.Event()
    stop.set()
    assert load_or_wait(path, Notifier(sock_path), stop=stop) is None  # waited (and was stopped)
    assert manager.recv(4096).startswith(b"READY=1\nSTATUS=configuration error")
    manager.close()
    path.write_text("[web]\nport = 8002\n", encoding="utf-8")
    config = load_or_wait(path, Notifier(env={}))
    assert config is not None and config.web.port == 8002
