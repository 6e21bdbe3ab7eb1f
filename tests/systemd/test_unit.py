"""The systemd units (the companion, the venue hub): `systemd-analyze verify` passes, security exposure
<= 4.0, key settings present."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
from pathlib import Path

import pytest

SYSTEMD = Path(__file__).parents[2] / "systemd"
UNIT = SYSTEMD / "dingo-companion.service"
HUB_UNIT = SYSTEMD / "dingo-hub.service"
UNITS = pytest.mark.parametrize("unit", [UNIT, HUB_UNIT], ids=lambda u: u.name)
PROGRAM = "/opt/dingo-companion/venv/bin/dingo-companion"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")


def unit_settings(unit: Path = UNIT) -> dict[str, dict[str, list[str]]]:
    """The unit as {section: {key: [values in order]}} (keys may repeat)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for raw in unit.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key, []).append(value)
    return sections


def runnable_copy(tmp_path: Path, unit: Path = UNIT) -> Path:
    """The unit with ExecStart pointing at a program that exists here (verify checks it)."""
    program = tmp_path / "dingo-companion"
    program.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    program.chmod(0o755)
    text = unit.read_text(encoding="utf-8")
    command = "run" if unit == UNIT else "hub $DINGO_HUB_ARGS"
    assert f"ExecStart={PROGRAM} {command}\n" in text
    copy = tmp_path / unit.name
    text = text.replace(PROGRAM, str(program))
    copy.write_text(text, encoding="utf-8")
    return copy


@needs_analyze
@UNITS
def test_systemd_analyze_verify_passes(tmp_path: Path, unit: Path) -> None:
    result = subprocess.run([ANALYZE, "verify", str(runnable_copy(tmp_path, unit))],
                            capture_output=True, text=True, timeout=60)
    problems = [line for line in result.stderr.splitlines() if unit.name in line]
    assert result.returncode == 0 and not problems, result.stderr


@needs_analyze
@UNITS
def test_security_exposure_is_at_most_4(tmp_path: Path, unit: Path) -> None:
    result = subprocess.run(
        [ANALYZE, "security", "--offline=true", "--threshold=40", "--no-pager",
         str(runnable_copy(tmp_path, unit))],
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


@UNITS
def test_unit_parses_as_ini(unit: Path) -> None:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(unit.read_text(encoding="utf-8"))
    assert parser.sections() == ["Unit", "Service", "Install"]
    assert parser["Install"]["WantedBy"] == "multi-user.target"


def test_the_hub_runs_as_the_service_user_with_its_settings_file_and_no_device() -> None:
    unit = unit_settings(HUB_UNIT)
    service = unit["Service"]
    assert service["User"] == ["dingo"] and service["Group"] == ["dingo"]
    # the store under the state directory: <data dir>/hub/hub.db, as `hub` finds it ($STATE_DIRECTORY)
    assert service["StateDirectory"] == ["dingo-companion"]
    assert service["EnvironmentFile"] == ["/etc/dingo-companion/hub.env"]
    assert service["Restart"] == ["always"] and service["RestartSec"] == ["5s"]
    assert unit["Unit"]["StartLimitIntervalSec"] == ["0"]
    assert service["RestartPreventExitStatus"] == ["2"]  # options the hub refuses are not retried
    assert service["ProtectSystem"] == ["strict"] and service["ProtectHome"] == ["yes"]
    assert service["NoNewPrivileges"] == ["yes"] and service["CapabilityBoundingSet"] == [""]
    assert service["PrivateDevices"] == ["yes"] and service["DevicePolicy"] == ["closed"]
    assert "DeviceAllow" not in service and "ReadWritePaths" not in service
    assert set(service["RestrictAddressFamilies"][0].split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}


def test_the_example_hub_settings_are_options_the_hub_accepts() -> None:
    """systemd splits $DINGO_HUB_ARGS at white space; the real `hub` parser takes the words."""
    from companion.cli import build_parser

    settings = {}
    for raw in (SYSTEMD / "hub.env.example").read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.startswith("#"):
            key, _, value = raw.partition("=")
            settings[key] = value
    assert set(settings) == {"DINGO_HUB_ARGS", "DINGO_BROKER_PASSWORD"}
    args = build_parser("hub").parse_args(["hub", *settings["DINGO_HUB_ARGS"].split()])
    assert args.broker == "broker.local" and args.venue == "club-north" and args.username == "hub"
    assert args.password is None  # the password comes from the environment, not the command line
