"""Fixtures for the web tests: an app around a real controller and a recording fake simulator."""

from __future__ import annotations

import random

import pytest

from companion.sensing.layout import DiscLayout
from companion.table.controller import TableController
from companion.table.game import DingoDiscGame
from web.app import create_app
from web.security import Guard

PIN = "4321"


class FakeSimulator:
    """Records the live-API calls the page makes."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def __getattr__(self, name):
        if name in ("place", "place_at", "press", "bump", "knock_over", "remove_last", "set_fault",
                    "creep_last"):
            return lambda *args: self.calls.append((name, *args))
        raise AttributeError(name)


class Header:
    layout = DiscLayout()


@pytest.fixture
def pin() -> str:
    return PIN


@pytest.fixture
def controller() -> TableController:
    return TableController(DingoDiscGame(), simulator=FakeSimulator(), header=Header(),
                           rng=random.Random(5), sensing=lambda: {"cop_mm": None, "tilt": 0.0})


@pytest.fixture
def app(controller):
    app = create_app(controller, secret_key=b"k" * 32, guard=Guard(pin=PIN, allowed_hosts={"localhost"}),
                     heartbeat_s=0.05)
    app.testing = True
    return app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def host(app):
    """A client logged in as host, with its CSRF token sent on every request."""
    c = app.test_client()
    token = c.post("/api/login", json={"pin": PIN}).get_json()["csrf_token"]
    c.environ_base["HTTP_X_CSRF_TOKEN"] = token
    return c
