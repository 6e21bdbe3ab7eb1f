"""PIN and secret-key files, Host and Origin checks."""

from __future__ import annotations

import stat

import pytest

from web.security import (
    AccessError,
    Guard,
    host_only,
    load_or_create_pin,
    load_or_create_secret_key,
    machine_host_names,
    validate_pin,
)


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_secret_key_is_generated_once_with_mode_0600(tmp_path):
    key = load_or_create_secret_key(tmp_path)
    assert len(key) == 32 and mode(tmp_path / "secret-key") == 0o600
    assert load_or_create_secret_key(tmp_path) == key
    (tmp_path / "secret-key").chmod(0o644)
    assert load_or_create_secret_key(tmp_path) == key and mode(tmp_path / "secret-key") == 0o600


def test_pin_is_generated_kept_and_settable(tmp_path):
    pin = load_or_create_pin(tmp_path)
    assert pin.isdigit() and len(pin) == 6 and mode(tmp_path / "table-pin") == 0o600
    assert load_or_create_pin(tmp_path) == pin
    assert load_or_create_pin(tmp_path, "2468") == "2468"
    assert load_or_create_pin(tmp_path) == "2468"


@pytest.mark.parametrize("bad", ["12", "abcd", "1234567890123", "12 34", "١٢٣٤"])
def test_bad_pins_are_refused(bad):
    with pytest.raises(ValueError, match="4 to 12 digits"):
        validate_pin(bad)


def test_host_header_parsing():
    assert host_only("Dingo.local:8000") == "dingo.local"
    assert host_only("[::1]:8000") == "::1"
    assert host_only("192.168.1.5") == "192.168.1.5"


def test_machine_names_include_loopback_and_extras():
    names = machine_host_names(["Table.example"])
    assert {"localhost", "127.0.0.1", "table.example"} <= names


def test_guard_host_and_origin():
    g = Guard(pin="1234", allowed_hosts={"localhost", "dingo.local"})
    g.check_host("dingo.local:8000")
    with pytest.raises(AccessError) as err:
        g.check_host("rebind.attacker.example")
    assert err.value.status == 400
    g.check_origin(None, "localhost:8000")
    g.check_origin("http://localhost:8000", "localhost:8000")
    for origin in ("http://evil.example", "null", "http://localhost:9999"):
        with pytest.raises(AccessError):
            g.check_origin(origin, "localhost:8000")


def test_pin_lockout_is_per_client():
    g = Guard(pin="1234", max_failures=2, lockout_s=60)
    assert not g.pin_matches("0000", "a") and not g.pin_matches("1111", "a")
    with pytest.raises(AccessError) as err:
        g.pin_matches("1234", "a")
    assert err.value.status == 429
    assert g.pin_matches("1234", "b")
    assert not g.pin_matches(None, "b")
