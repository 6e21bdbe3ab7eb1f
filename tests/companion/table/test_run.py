"""``dingo-companion run`` as a process: waitress, SSE through it, PIN and key files, Host check."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.cli import build_parser
from companion.commands.run import default_data_dir

ROOT = Path(__file__).resolve().parents[3]


def test_arguments_and_defaults(monkeypatch, tmp_path):
    args = build_parser().parse_args(["run"])
    assert args.host is None and args.port is None and args.data_dir is None  # from [web]/[data]
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_data_dir() == tmp_path / "dingo-companion"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_data_dir() == Path.home() / ".local" / "share" / "dingo-companion"


@pytest.fixture(scope="module")
def companion(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("run")
    (tmp / "config.toml").write_text("[web]\nallowed_hosts = [\"table.example\"]\n")
    log = tmp / "out.log"
    env = {k: v for k, v in os.environ.items() if k not in ("DINGO_CONFIG", "DINGO_SOURCE")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--host", "127.0.0.1", "--port", "0", "--source", "sim",
         "--data-dir", str(tmp / "data"), "--config", str(tmp / "config.toml")],
        stdout=log.open("w"), stderr=subprocess.STDOUT, env={**env, "DINGO_PIN": "13579"}, cwd=ROOT)
    deadline = time.monotonic() + 20
    port = None
    while time.monotonic() < deadline and proc.poll() is None:
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", log.read_text())
        if m and "PIN" in log.read_text():
            port = int(m.group(1))
            break
        time.sleep(0.1)
    assert port, log.read_text()
    yield proc, port, tmp, log
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def request(port, method, path, body=None, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request(method, path, body=None if body is None else json.dumps(body),
                 headers={"Content-Type": "application/json", **(headers or {})})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, json.loads(data) if data else None


def test_startup_prints_the_address_and_pin(companion):
    _, port, tmp, log = companion
    text = log.read_text()
    assert f"http://127.0.0.1:{port}/" in text
    # not a terminal (a journal, a log file): the PIN itself is never printed, only where it is
    assert "13579" not in text
    assert f"Table PIN: in {tmp / 'data' / 'table-pin'}" in text


def test_secret_files_are_private(companion):
    _, _, tmp, _ = companion
    for name in ("secret-key", "table-pin", "sessions.db", "host-sessions"):
        assert stat.S_IMODE((tmp / "data" / name).stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp / "data").stat().st_mode) == 0o700
    assert (tmp / "data" / "table-pin").read_text() == "13579"


def test_host_header_check_on_the_real_server(companion):
    _, port, _, _ = companion
    assert request(port, "GET", "/api/state", headers={"Host": "evil.example"})[0] == 400
    assert request(port, "GET", "/api/state", headers={"Host": "table.example:8000"})[0] == 200
    assert request(port, "GET", "/api/state")[0] == 200


def test_event_stream_through_waitress(companion):
    _, port, _, _ = companion
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/api/events")
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("Content-Type").startswith("text/event-stream")
    kinds = []
    sent = False
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        line = resp.readline().decode()
        if line.startswith("event: "):
            kinds.append(line[7:].strip())
            if kinds[-1] == "snapshot" and not sent:
                status, _ = request(port, "POST", "/api/game", {"version": 1, "players": ["A", "B"]},
                                    {"X-Table-PIN": "13579"})
                assert status == 200
                sent = True
            if "change" in kinds and "live" in kinds:
                break
    conn.close()
    assert kinds[0] == "snapshot"
    assert "change" in kinds and "live" in kinds  # the change, and the live sensing view (~10/s)


def test_sigterm_stops_cleanly(companion):
    proc, _, _, log = companion
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(15) == 0
    assert "Dingo Companion stopped." in log.read_text()
    assert "Traceback" not in log.read_text()


def test_allowed_hosts_adds_names_and_an_empty_list_still_refuses_strangers():
    from companion.commands.run import make_guard
    from web.security import AccessError

    for allowed in ((), []):
        guard = make_guard("1234", "0.0.0.0", allowed)
        guard.check_host("localhost:8000")
        guard.check_host("127.0.0.1")
        with pytest.raises(AccessError, match="unknown Host header"):
            guard.check_host("evil.example:8000")  # DNS rebinding: refused even with []
    guard = make_guard("1234", "192.0.2.7", ["Table.Example"])
    guard.check_host("table.example:8000")
    guard.check_host("192.0.2.7:8000")  # the address it listens on
    with pytest.raises(AccessError):
        guard.check_host("other.example")


def test_config_in_use_and_the_calibration_saved_in_the_data_dir(monkeypatch, tmp_path):
    from companion.commands.run import config_path_in_use
    from companion.config.paths import SYSTEM_CONFIG

    if SYSTEM_CONFIG.exists():
        pytest.skip("this machine has a system configuration")
    monkeypatch.delenv("DINGO_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    data = tmp_path / "data"
    assert config_path_in_use(None, data) is None  # nothing anywhere: the defaults
    (data).mkdir()
    (data / "config.toml").write_text("# saved by the page's calibration\n")
    assert config_path_in_use(None, data) == data / "config.toml"
    usual = tmp_path / "config" / "dingo-companion" / "config.toml"
    usual.parent.mkdir(parents=True)
    usual.write_text("")
    assert config_path_in_use(None, data) == usual  # the usual file wins
    assert config_path_in_use(tmp_path / "x.toml", data) == tmp_path / "x.toml"
    monkeypatch.setenv("DINGO_CONFIG", str(tmp_path / "named.toml"))
    assert config_path_in_use(None, data) == tmp_path / "named.toml"  # named: an error if missing


def test_an_unusable_source_serves_the_page_and_says_why_instead_of_exiting(tmp_path):
    """DINGO_SOURCE=bogus: no exit (no restart loop under systemd); stderr, STATUS= and the page say why."""
    import socket

    notify = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(notify))
    sock.settimeout(20)
    (tmp_path / "config.toml").write_text("")
    out, err = tmp_path / "out.log", tmp_path / "err.log"
    env = {k: v for k, v in os.environ.items() if k not in ("DINGO_CONFIG", "WATCHDOG_USEC")}
    env.update(DINGO_SOURCE="bogus", NOTIFY_SOCKET=str(notify))
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--host", "127.0.0.1", "--port", "0",
         "--data-dir", str(tmp_path / "data"), "--config", str(tmp_path / "config.toml"), "--pin", "2468"],
        stdout=out.open("w"), stderr=err.open("w"), env=env, cwd=ROOT)
    try:
        ready = sock.recv(4096).decode()  # READY=1 is sent once the page is served
        assert "READY=1" in ready
        assert "STATUS=" in ready and "sensor source unavailable: unknown source kind 'bogus'" in ready
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", out.read_text()).group(1))
        status, msg = request(port, "GET", "/api/state")
        assert status == 200 and msg["mode"] == "none"
        line = msg["status"]["source"]
        assert "unknown source kind 'bogus' (from $DINGO_SOURCE)" in line
        assert "valid kinds: serial, gpio, sim, trace" in line
        time.sleep(1.5)
        assert proc.poll() is None, "run must wait for the host, not exit"
        assert "error: sensor source unavailable: unknown source kind 'bogus'" in err.read_text()
        # the host can still log in and set up a game on the page
        status, _ = request(port, "POST", "/api/game", {"version": 1, "players": ["A", "B"]},
                            {"X-Table-PIN": "2468"})
        assert status == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
    finally:
        sock.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in err.read_text()
