"""Every value `run` uses is checked by `config check`; `run` exits 78 naming the key (issue 16 #11-12)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("host", ["999.1.1.1", "1.2.3", "bad host", "::zz", "-x.local"])
def test_config_check_refuses_a_host_run_cannot_use(tmp_path: Path, capsys, host: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f'[web]\nhost = "{host}"\n', encoding="utf-8")
    assert main(["config", "--config", str(path), "check"]) == 1
    err = capsys.readouterr().err
    assert "web.host" in err and host in err


@pytest.mark.parametrize("host", ["0.0.0.0", "127.0.0.1", "::", "::1", "dingo.local", "localhost"])
def test_config_check_accepts_usable_hosts(tmp_path: Path, host: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f'[web]\nhost = "{host}"\n', encoding="utf-8")
    assert main(["config", "--config", str(path), "check"]) == 0


def _run(tmp_path: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("DINGO_CONFIG", "DINGO_SOURCE", "NOTIFY_SOCKET")}
    return subprocess.run([sys.executable, "-m", "companion", "run", "--port", "0", "--source", "sim",
                           "--data-dir", str(tmp_path / "data"), *args],
                          capture_output=True, text=True, timeout=60, env={**base, **(env or {})}, cwd=ROOT)


def test_run_with_a_bad_host_exits_78_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[web]\nhost = "999.1.1.1"\n', encoding="utf-8")
    proc = _run(tmp_path, "--config", str(path))
    assert proc.returncode == 78, proc.stderr
    assert "web.host" in proc.stderr and "Traceback" not in proc.stderr
    assert len([ln for ln in proc.stderr.splitlines() if ln.startswith("configuration error")]) == 1


def test_run_with_an_address_this_machine_lacks_exits_78(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--host", "192.0.2.1")  # TEST-NET-1: never this machine's (no traffic sent)
    assert proc.returncode == 78, proc.stderr
    assert "[web] host" in proc.stderr and "Traceback" not in proc.stderr


def test_run_with_a_bad_pin_file_exits_78(tmp_path: Path) -> None:
    (tmp_path / "pin").write_text("12ab\n")
    proc = _run(tmp_path, "--pin-file", str(tmp_path / "pin"))
    assert proc.returncode == 78 and "PIN" in proc.stderr


def test_file_modes_are_fixed_at_start_up(tmp_path: Path) -> None:
    from web.security import secure_data_dir

    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)
    for name in ("table-pin", "secret-key", "sessions.db", "sessions.db-wal"):
        (data / name).write_text("x")
        os.chmod(data / name, 0o644)
    changed = secure_data_dir(data)
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    for name in ("table-pin", "secret-key", "sessions.db", "sessions.db-wal"):
        assert stat.S_IMODE((data / name).stat().st_mode) == 0o600
    assert len(changed) == 5


def test_pin_from_a_file_or_the_environment(tmp_path: Path) -> None:
    from web.security import pin_from_environment

    (tmp_path / "pin").write_text("246810\n")
    assert pin_from_environment(tmp_path / "pin", {}) == "246810"
    assert pin_from_environment(None, {"DINGO_PIN": "1357"}) == "1357"
    assert pin_from_environment(None, {}) is None
    with pytest.raises(ValueError, match="4 to 12 digits"):
        pin_from_environment(None, {"DINGO_PIN": "12"})


def test_systemd_unit_does_not_retry_a_configuration_error() -> None:
    unit = (ROOT / "systemd" / "dingo-companion.service").read_text()
    assert "RestartPreventExitStatus=78" in unit
    assert "StateDirectoryMode=0700" in unit and "UMask=0077" in unit
