"""install.sh / uninstall.sh: syntax, dry run, and two real runs into a temporary root.

The real runs put stub system commands (apt-get, useradd, systemctl, udevadm, ...) first on
PATH and a stub interpreter whose "venv" runs this checkout, so every file the scripts write
lands under DINGO_ROOT and every system command is logged instead of run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]
INSTALL = REPO / "systemd" / "install.sh"
UNINSTALL = REPO / "systemd" / "uninstall.sh"
BASH = shutil.which("bash") or "/bin/bash"

STUB = """#!/bin/sh
echo "{name} $*" >> "$STUB_LOG"
"""
ID_STUB = """#!/bin/sh
if [ "$1" = -u ] && [ "$2" = dingo ]; then
    grep -q '^useradd ' "$STUB_LOG" 2>/dev/null && ! grep -q '^userdel ' "$STUB_LOG" && exit 0
    exit 1
fi
exec /usr/bin/id "$@"
"""
PYTHON_STUB = """#!/bin/sh
# stands in for python3: `-m venv DIR` makes a venv whose python/dingo-companion run this checkout
echo "python3 $*" >> "$STUB_LOG"
[ "$1" = -m ] && [ "$2" = venv ] || exit 2
mkdir -p "$3/bin"
printf '#!/bin/sh\\nexec {python} "$@"\\n' > "$3/bin/python"
printf '#!/bin/sh\\nexec {python} -m companion "$@"\\n' > "$3/bin/dingo-companion"
printf '#!/bin/sh\\necho "pip $*" >> "$STUB_LOG"\\n' > "$3/bin/pip"
chmod +x "$3/bin/python" "$3/bin/dingo-companion" "$3/bin/pip"
"""
STUBBED = ("apt-get", "groupadd", "useradd", "usermod", "userdel", "chgrp", "systemctl", "udevadm",
           "hostnamectl")


@pytest.fixture
def fake_system(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A root directory and an environment in which the scripts can run for real."""
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "os-release").write_text('ID=debian\nVERSION_CODENAME=bookworm\n', encoding="utf-8")
    (root / "etc" / "hosts").write_text("127.0.0.1\tlocalhost\n127.0.1.1\traspberrypi\n", encoding="utf-8")
    (root / "proc" / "device-tree").mkdir(parents=True)
    (root / "proc" / "device-tree" / "model").write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    (root / "usr" / "local" / "bin").mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in STUBBED:
        (bin_dir / name).write_text(STUB.format(name=name), encoding="utf-8")
    (bin_dir / "id").write_text(ID_STUB, encoding="utf-8")
    (bin_dir / "python3").write_text(PYTHON_STUB.format(python=sys.executable), encoding="utf-8")
    for stub in bin_dir.iterdir():
        stub.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        "DINGO_ROOT": str(root),
        "DINGO_PYTHON": str(bin_dir / "python3"),
        "STUB_LOG": str(tmp_path / "commands.log"),
        "PYTHONPATH": str(REPO),
    }
    env.pop("DRY_RUN", None)
    env.pop("DINGO_CONFIG", None)
    return root, env


def run_script(script: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([BASH, str(script), *args], env=env, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_scripts_parse() -> None:
    for script in (INSTALL, UNINSTALL):
        subprocess.run([BASH, "-n", str(script)], check=True, timeout=10)
        assert os.access(script, os.X_OK), f"{script.name} is not executable"


def test_dry_run_prints_every_step_and_changes_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "DRY_RUN": "1", "DINGO_ROOT": str(tmp_path)}
    out = run_script(INSTALL, env, "--hostname", "dingo").stdout
    for step in ("+ apt-get update", "avahi-daemon", "useradd --system",
                 "usermod --append --groups dialout,gpio",
                 "-m venv", f"pip install --quiet --upgrade {REPO}[pi]",
                 "systemd/config.example.toml", "/etc/dingo-companion/config.toml",
                 "/etc/systemd/system/dingo-companion.service", "/etc/udev/rules.d/60-dingo-bridge.rules",
                 "/etc/avahi/services/dingo-companion.service", "+ hostnamectl hostname dingo",
                 "+ systemctl daemon-reload",
                 "+ systemctl enable avahi-daemon.service dingo-companion.service",
                 "+ systemctl restart dingo-companion.service"):
        assert step in out, f"missing step {step!r} in:\n{out}"
    assert list(tmp_path.iterdir()) == []
    out = run_script(UNINSTALL, env).stdout
    assert "+ systemctl disable --now dingo-companion.service" in out and "kept the session data" in out
    assert "/var/lib/dingo-companion" not in out.split("kept")[0]  # data is not removed without --purge
    assert "+ rm -rf" in run_script(UNINSTALL, env, "--purge").stdout


def test_bad_options_are_refused(tmp_path: Path) -> None:
    env = {**os.environ, "DRY_RUN": "1", "DINGO_ROOT": str(tmp_path)}
    for args in (["--bogus"], ["--hostname", "Not_Valid"], ["--hostname"]):
        result = subprocess.run([BASH, str(INSTALL), *args], env=env, capture_output=True, text=True,
                                timeout=30)
        assert result.returncode != 0 and "error:" in result.stderr, args
    bad_extra = {**env, "DINGO_EXTRA": "pi7"}
    result = subprocess.run([BASH, str(INSTALL)], env=bad_extra, capture_output=True, text=True, timeout=30)
    assert result.returncode != 0 and "DINGO_EXTRA" in result.stderr


def test_install_twice_then_uninstall(fake_system: tuple[Path, dict[str, str]]) -> None:
    root, env = fake_system
    log = Path(env["STUB_LOG"])
    first = run_script(INSTALL, env, "--hostname", "dingo")
    config = root / "etc" / "dingo-companion" / "config.toml"
    example = (REPO / "systemd" / "config.example.toml").read_text(encoding="utf-8")
    assert config.read_text(encoding="utf-8") == example
    assert "config.toml: ok (source serial" in first.stdout  # validated with the installed program
    unit = root / "etc" / "systemd" / "system" / "dingo-companion.service"
    assert unit.read_bytes() == (REPO / "systemd" / "dingo-companion.service").read_bytes()
    assert (root / "etc" / "udev" / "rules.d" / "60-dingo-bridge.rules").exists()
    avahi = root / "etc" / "avahi" / "services" / "dingo-companion.service"
    assert "<port>8000</port>" in avahi.read_text(encoding="utf-8")
    assert "127.0.1.1\tdingo" in (root / "etc" / "hosts").read_text(encoding="utf-8")
    link = root / "usr" / "local" / "bin" / "dingo-companion"
    assert os.readlink(link) == "/opt/dingo-companion/venv/bin/dingo-companion"
    commands = log.read_text(encoding="utf-8")
    assert "pip install --quiet --upgrade " + f"{REPO}[pi5]" in commands  # a Pi 5 gets rpi-lgpio
    assert commands.count("useradd ") == 1 and "systemctl restart dingo-companion.service" in commands

    # The host edits the configuration; a second run (an update) keeps it and follows its port.
    config.write_text(example.replace("port = 8000", "port = 8123"), encoding="utf-8")
    edited = config.read_text(encoding="utf-8")
    second = run_script(INSTALL, env)
    assert "keeping the existing /etc/dingo-companion/config.toml" in second.stdout
    assert "user dingo exists" in second.stdout and "venv/bin/python" not in second.stderr
    assert config.read_text(encoding="utf-8") == edited
    assert "<port>8123</port>" in avahi.read_text(encoding="utf-8")
    commands = log.read_text(encoding="utf-8")
    assert commands.count("useradd ") == 1 and commands.count("-m venv") == 1
    assert commands.count("systemctl restart dingo-companion.service") == 2

    # Uninstall keeps data and configuration; twice is fine; --purge removes them.
    state = root / "var" / "lib" / "dingo-companion"
    state.mkdir(parents=True)
    (state / "sessions.sqlite").write_bytes(b"data")
    for _ in range(2):
        run_script(UNINSTALL, env)
        assert not unit.exists() and not avahi.exists() and not (root / "opt" / "dingo-companion").exists()
        assert not os.path.lexists(link)
        assert (state / "sessions.sqlite").exists() and config.exists()
    run_script(UNINSTALL, env, "--purge")
    assert not state.exists() and not config.exists()
    assert "userdel dingo" in log.read_text(encoding="utf-8")


def test_install_with_the_venue_hub_then_uninstall(fake_system: tuple[Path, dict[str, str]]) -> None:
    """--hub adds the hub's unit and settings; a new settings file is not started until edited."""
    root, env = fake_system
    log = Path(env["STUB_LOG"])
    first = run_script(INSTALL, env, "--hub")
    hub_unit = root / "etc" / "systemd" / "system" / "dingo-hub.service"
    hub_env = root / "etc" / "dingo-companion" / "hub.env"
    assert hub_unit.read_bytes() == (REPO / "systemd" / "dingo-hub.service").read_bytes()
    assert hub_env.read_bytes() == (REPO / "systemd" / "hub.env.example").read_bytes()
    assert hub_env.stat().st_mode & 0o777 == 0o640  # the broker password is not world-readable
    assert "edit /etc/dingo-companion/hub.env, then: systemctl restart dingo-hub" in first.stdout
    commands = log.read_text(encoding="utf-8")
    assert "systemctl enable dingo-hub.service" in commands
    assert "systemctl restart dingo-hub.service" not in commands  # not with the example's broker
    assert "systemctl restart dingo-companion.service" in commands  # the table as before

    # The organiser sets the broker; an update keeps the file and restarts the hub.
    hub_env.write_text("DINGO_HUB_ARGS=--broker 10.0.0.2\nDINGO_BROKER_PASSWORD=s3cret\n", encoding="utf-8")
    second = run_script(INSTALL, env, "--hub")
    assert "keeping the existing /etc/dingo-companion/hub.env" in second.stdout
    assert "s3cret" in hub_env.read_text(encoding="utf-8")
    assert "systemctl restart dingo-hub.service" in log.read_text(encoding="utf-8")

    run_script(UNINSTALL, env)
    assert not hub_unit.exists() and hub_env.exists()  # settings kept without --purge
    assert "systemctl disable --now dingo-hub.service" in log.read_text(encoding="utf-8")


def test_hub_only_installs_no_table_service(fake_system: tuple[Path, dict[str, str]]) -> None:
    root, env = fake_system
    log = Path(env["STUB_LOG"])
    out = run_script(INSTALL, env, "--hub-only").stdout
    assert (root / "etc" / "systemd" / "system" / "dingo-hub.service").exists()
    assert not (root / "etc" / "systemd" / "system" / "dingo-companion.service").exists()
    assert not (root / "etc" / "udev" / "rules.d" / "60-dingo-bridge.rules").exists()
    assert not (root / "etc" / "avahi" / "services" / "dingo-companion.service").exists()
    commands = log.read_text(encoding="utf-8")
    assert "dingo-companion.service" not in commands and "systemctl enable dingo-hub.service" in commands
    assert "done (the hub only)" in out
    bad = subprocess.run([BASH, str(INSTALL), "--hub-only", "--hostname", "hub"], env=env,
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode != 0 and "--hostname names a table's page" in bad.stderr
