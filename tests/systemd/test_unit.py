"""The systemd unit: `systemd-analyze verify` passes, security exposure <= 4.0, key settings present."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path

import pytest

SYSTEMD = Path(__file__).parents[2] / "systemd"
UNIT = SYSTEMD / "dingo-companion.service"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")


def unit_settings() -> dict[str, dict[str, list[str]]]:
    """The unit as {section: {key: [values in order]}} (keys may repeat)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for raw in UNIT.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key, []).append(value)
    return sections


def runnable_copy(tmp_path: Path) -> Path:
    """The unit with ExecStart pointing at a program that exists here (verify checks it)."""
    program = tmp_path / "dingo-companion"
    program.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    program.chmod(0o755)
    text = UNIT.read_text(encoding="utf-8")
    assert "ExecStart=/opt/dingo-companion/venv/bin/dingo-companion run" in text
    copy = tmp_path / "dingo-companion.service"
    text = text.replace("/opt/dingo-companion/venv/bin/dingo-companion", str(program))
    copy.write_text(text, encoding="utf-8")
    return copy


@needs_analyze
def test_systemd_analyze_verify_passes(tmp_path: Path) -> None:
    result = subprocess.run([ANALYZE, "verify", str(runnable_copy(tmp_path))],
                            capture_output=True, text=True, timeout=60)
    problems = [line for line in result.stderr.splitlines() if "dingo-companion.service" in line]
    assert result.returncode == 0 and not problems, result.stderr


@needs_analyze
def test_security_exposure_is_at_most_4(tmp_path: Path) -> None:
    result = subprocess.run(
        [ANALYZE, "security", "--offline=true", "--threshold=40", "--no-pager", str(runnable_copy(tmp_path))],
        capture_output=True, text=True, timeout=60,
    )
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d)", result.stdout)
    assert match, result.stdout + result.stderr
    exposure = float(match.group(1))
    assert exposure <= 4.0, result.stdout
    assert result.returncode == 0  # --threshold=40 means exposure 4.0 on its 0..100 scale


@needs_analyze
def test_a_weakened_unit_would_fail_the_exposure_check(tmp_path: Path) -> None:
    """The check above can fail: strip the hardening and the exposure goes over 4.0."""
    copy = runnable_copy(tmp_path)
    kept = [line for line in copy.read_text(encoding="utf-8").splitlines()
            if not line.startswith(("Protect", "Restrict", "SystemCall", "Capability", "Private",
                                    "NoNewPrivileges", "MemoryDeny", "LockPersonality", "Device"))]
    copy.write_text("\n".join(kept) + "\n", encoding="utf-8")
    result = subprocess.run([ANALYZE, "security", "--offline=true", "--threshold=40", str(copy)],
                            capture_output=True, text=True, timeout=60)
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d)", result.stdout)
    assert match and float(match.group(1)) > 4.0 and result.returncode != 0


def test_notify_watchdog_and_restart_policy() -> None:
    unit = unit_settings()
    service = unit["Service"]
    assert service["Type"] == ["notify"] and service["NotifyAccess"] == ["main"]
    assert service["WatchdogSec"][0].rstrip("s").isdigit()
    assert service["Restart"] == ["always"]
    # Never left failed after a burst of crashes: no start-rate limit, a back-off between restarts.
    assert unit["Unit"]["StartLimitIntervalSec"] == ["0"]
    assert service["RestartSec"] == ["5s"]
    # a file refused at load waits; a value unusable only at start-up exits 78, not retried (issue 16)
    assert service["RestartPreventExitStatus"] == ["78"]


def test_own_user_and_only_the_devices_it_needs() -> None:
    service = unit_settings()["Service"]
    assert service["User"] == ["dingo"] and service["Group"] == ["dingo"]
    assert service["StateDirectory"] == ["dingo-companion"]
    assert service["ConfigurationDirectory"] == ["dingo-companion"]
    assert service["ProtectSystem"] == ["strict"] and service["ProtectHome"] == ["yes"]
    assert service["NoNewPrivileges"] == ["yes"] and service["CapabilityBoundingSet"] == [""]
    assert service["DevicePolicy"] == ["closed"]
    allowed = {value.split()[0] for value in service["DeviceAllow"]}
    assert allowed == {"char-ttyACM", "char-ttyUSB", "/dev/gpiochip0", "/dev/gpiochip4", "/dev/gpiomem"}
    assert all(value.split()[1] == "rw" for value in service["DeviceAllow"])
    families = set(service["RestrictAddressFamilies"][0].split())
    assert families == {"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"}


def test_unit_parses_as_ini() -> None:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(UNIT.read_text(encoding="utf-8"))
    assert parser.sections() == ["Unit", "Service", "Install"]
    assert parser["Install"]["WantedBy"] == "multi-user.target"
