"""Host sessions can be revoked; PIN guessing is throttled for the whole table (issue 16 #4, #5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from web.app import create_app
from web.hostsessions import HostSessions
from web.security import AccessError, Guard, PinThrottle

from .conftest import PIN

GAME = {"version": 1, "players": ["a", "b"]}


def _cookie(c) -> str:
    return c.get_cookie("dingo_session").value


def test_host_cookie_replayed_after_logout_is_refused(app, host):
    assert host.post("/api/game", json=GAME).status_code == 200
    cookie, token = _cookie(host), host.environ_base["HTTP_X_CSRF_TOKEN"]
    assert host.post("/api/logout").status_code == 200
    replay = app.test_client()
    replay.set_cookie("dingo_session", cookie)
    r = replay.post("/api/game", json=GAME, headers={"X-CSRF-Token": token})
    assert r.status_code == 401
    assert replay.get("/api/whoami").get_json()["host"] is False


def test_pin_change_ends_every_host_session(app, host):
    other = app.test_client()
    tok = other.post("/api/login", json={"pin": PIN}).get_json()["csrf_token"]
    assert host.post("/api/pin", json={"pin": "98765"}).status_code == 200
    assert other.post("/api/game", json=GAME, headers={"X-CSRF-Token": tok}).status_code == 401
    assert other.post("/api/game", json=GAME, headers={"X-Table-PIN": PIN}).status_code == 403
    assert other.post("/api/game", json=GAME, headers={"X-Table-PIN": "98765"}).status_code == 200
    assert host.post("/api/pin", json={"pin": "12"}).status_code == 401  # logged out by the change


def _app(controller, tmp_path: Path, pin: str):
    key = b"k" * 32
    guard = Guard(pin=pin, allowed_hosts={"localhost"},
                  sessions=HostSessions(tmp_path / "host-sessions", key, pin))
    return create_app(controller, secret_key=key, guard=guard)


def test_restart_with_a_new_pin_ends_earlier_host_sessions(controller, tmp_path):
    first = _app(controller, tmp_path, "1111").test_client()
    tok = first.post("/api/login", json={"pin": "1111"}).get_json()["csrf_token"]
    cookie = _cookie(first)
    same = _app(controller, tmp_path, "1111").test_client()  # restart, same PIN: still host
    same.set_cookie("dingo_session", cookie)
    assert same.post("/api/game", json=GAME, headers={"X-CSRF-Token": tok}).status_code == 200
    new = _app(controller, tmp_path, "2222").test_client()  # restart with a new PIN
    new.set_cookie("dingo_session", cookie)
    assert new.post("/api/game", json=GAME, headers={"X-CSRF-Token": tok}).status_code == 401
    assert (tmp_path / "host-sessions").stat().st_mode & 0o777 == 0o600


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_pin_guessing_is_throttled_globally_as_well_as_per_address():
    """200 addresses x 5 guesses: refused after the global burst; a 6-digit PIN survives a day."""
    clock = Clock()
    guard = Guard(pin="583920", throttle=PinThrottle(clock=clock))
    tried = refused = 0
    for a in range(200):
        for g in range(5):
            try:
                guard.pin_matches(f"{a * 5 + g:06d}", f"127.0.{a // 250}.{a % 250}")
                tried += 1
            except AccessError as exc:
                assert exc.status == 429 and exc.retry_after
                refused += 1
    assert tried == 20 and refused == 980
    # a whole day of guessing at the best rate the limit allows, from ever new addresses
    day_tries = 0
    for i in range(24 * 3600 // 10):
        clock.t += 10
        try:
            guard.pin_matches("000000", f"10.{i // 65536}.{i // 256 % 256}.{i % 256}")
            day_tries += 1
        except AccessError:
            pass
    assert tried + day_tries <= 1500  # P(6-digit PIN guessed in a day) <= 0.15 %


def test_other_addresses_do_not_unlock_a_locked_one():
    clock = Clock()
    guard = Guard(pin="583920", throttle=PinThrottle(clock=clock, global_burst=10_000))
    for _ in range(5):
        guard.pin_matches("000000", "1.1.1.1")
    for i in range(1001):
        guard.pin_matches("000000", f"2.2.{i // 256}.{i % 256}")
    with pytest.raises(AccessError) as exc:
        guard.pin_matches("583920", "1.1.1.1")
    assert exc.value.status == 429


def test_correct_pin_keeps_working_for_the_host(app, client):
    """A host logged in before an attack keeps working through it; a correct PIN resets its address."""
    host = app.test_client()
    tok = host.post("/api/login", json={"pin": PIN}).get_json()["csrf_token"]
    for _ in range(30):  # wrong guesses from the same address, at /api/login
        client.post("/api/login", json={"pin": "0000"})
    assert client.post("/api/login", json={"pin": "0000"}).status_code == 429
    assert "Retry-After" in client.post("/api/login", json={"pin": "0000"}).headers
    assert host.post("/api/game", json=GAME, headers={"X-CSRF-Token": tok}).status_code == 200
