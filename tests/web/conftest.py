"""Fixtures for the web tests: an app around a real controller and a recording fake simulator; for the
browser tests (marker ``browser``) real headless Chromium, a live loopback server and the host's login."""

from __future__ import annotations

import os
import random
import threading
from pathlib import Path

import pytest

from companion.sensing.layout import DiscLayout
from companion.table.controller import TableController
from companion.table.game import DingoDiscGame
from web.app import create_app
from web.security import Guard

PIN = "4321"

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
"""The flags of every browser test (Playwright gives each launch a fresh ``--user-data-dir``)."""


def pytest_collection_modifyitems(config, items) -> None:
    """The browser tests of this folder are skipped, saying why, where Chromium is absent."""
    if os.path.exists(CHROMIUM):
        return
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is absent (apt-get install chromium)")
    here = Path(__file__).parent
    for item in items:
        if item.get_closest_marker("browser") and here in Path(item.path).parents:
            item.add_marker(skip)


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


# --- the browser tests ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def playwright_api():
    """Playwright's sync API, one per test module (a module's browsers are launched from it)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


def _launch(playwright_api):
    return playwright_api.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


@pytest.fixture
def browser(playwright_api):
    """Headless Chromium with a fresh profile, for one test."""
    b = _launch(playwright_api)
    yield b
    b.close()


@pytest.fixture(scope="module")
def module_browser(playwright_api):
    """Headless Chromium with a fresh profile, shared by the tests of one module."""
    b = _launch(playwright_api)
    yield b
    b.close()


@pytest.fixture
def serve():
    """``url = serve(app)``: the Flask app on a free loopback port (a thread), stopped after the test."""
    from werkzeug.serving import make_server

    servers = []

    def start(app) -> str:
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}/"

    yield start
    for server in servers:
        server.shutdown()


@pytest.fixture
def served_table(serve):
    """``url, controller = served_table(game, seed, pin)``: a real controller around ``game`` (its
    dice from ``random.Random(seed)``) behind the Flask app on a live loopback server, guarded by
    ``pin``; every controller made is closed after the test."""
    controllers: list[TableController] = []

    def start(game, seed: int, pin: str) -> tuple[str, TableController]:
        controller = TableController(game, rng=random.Random(seed))
        controllers.append(controller)
        app = create_app(controller, secret_key=os.urandom(32),
                         guard=Guard(pin=pin, allowed_hosts={"127.0.0.1"}), heartbeat_s=0.5)
        return serve(app), controller

    yield start
    for controller in controllers:
        controller.close()


@pytest.fixture
def log_in_as_host():
    """``log_in_as_host(page, url, pin)``: open the page, wait for the live stream, log in with the PIN."""
    from playwright.sync_api import expect

    def log_in(page, url: str, pin: str) -> None:
        page.goto(url)
        expect(page.locator("#conn")).to_have_text("live")
        page.fill("#pin", pin)
        page.click("#login button")
        expect(page.locator("#who")).to_have_text("host")

    return log_in
