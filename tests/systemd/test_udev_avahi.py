"""The udev rule (stable name, dialout, ModemManager kept away) and the avahi announcement."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from companion.config import default_config

SYSTEMD = Path(__file__).parents[2] / "systemd"
TOKEN = re.compile(r'\s*([A-Z_]+(?:\{[^}]*\})?)\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(,|$)')
MATCH_KEYS = {"ACTION", "SUBSYSTEM", "KERNEL", "ENV", "ATTR", "ATTRS"}
ASSIGN_KEYS = {"SYMLINK", "GROUP", "MODE", "ENV", "GOTO", "LABEL"}


def parse_rules(text: str) -> list[list[tuple[str, str, str]]]:
    """Each rule line as [(key, operator, value)]; raises AssertionError on a malformed line."""
    rules = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        tokens, pos = [], 0
        while pos < len(line):
            match = TOKEN.match(line, pos)
            assert match, f"line {number}: cannot parse udev rule from column {pos}: {line[pos:]!r}"
            tokens.append((match.group(1), match.group(2), match.group(3)))
            pos = match.end()
        for key, op, _ in tokens:
            base = key.split("{")[0]
            known = MATCH_KEYS if op in ("==", "!=") else ASSIGN_KEYS
            assert base in known, f"line {number}: unexpected {key}{op}"
        rules.append(tokens)
    return rules


def test_udev_rule_names_the_pico_and_keeps_modemmanager_away() -> None:
    rules = parse_rules((SYSTEMD / "60-dingo-bridge.rules").read_text(encoding="utf-8"))
    tty = next(r for r in rules if ("SUBSYSTEM", "==", "tty") in r)
    assert ("ATTRS{idVendor}", "==", "2e8a") in tty
    assert ("SYMLINK", "+=", "dingo-bridge") in tty
    assert ("GROUP", "=", "dialout") in tty and ("MODE", "=", "0660") in tty
    assert ("ENV{ID_MM_DEVICE_IGNORE}", "=", "1") in tty
    usb = next(r for r in rules if ("SUBSYSTEM", "==", "usb") in r)
    assert ("ENV{ID_MM_DEVICE_IGNORE}", "=", "1") in usb
    labels = {v for r in rules for k, _, v in r if k == "LABEL"}
    gotos = {v for r in rules for k, _, v in r if k == "GOTO"}
    assert gotos <= labels


def test_rule_parser_rejects_garbage() -> None:
    try:
        parse_rules('SUBSYSTEM=="tty", SYMLINK+=dingo\n')
    except AssertionError as exc:
        assert "line 1" in str(exc)
    else:
        raise AssertionError("a value without quotes was accepted")


def test_avahi_service_announces_the_page_on_the_default_port() -> None:
    root = ET.parse(SYSTEMD / "dingo-companion.avahi.service").getroot()
    assert root.tag == "service-group"
    service = root.find("service")
    assert service is not None
    assert service.findtext("type") == "_http._tcp"
    assert service.findtext("port") == str(default_config().web.port)
    name = root.find("name")
    assert name is not None and name.get("replace-wildcards") == "yes" and "%h" in (name.text or "")
