"""The tablet page in real headless Chromium, against the real ``dingo-companion run``.

A 3-player version 1 game on the simulated table: roll, place a pawn through the simulator
(its samples go through the real sensing pipeline into the rules core), knock the disc over,
and see the fall and the turn change; a second browser without the PIN sees the same and
cannot change anything. Screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"

pytestmark = pytest.mark.browser  # skipped where Chromium is absent (conftest.py)


def launch(tmp_path: Path, port: str, log: Path) -> subprocess.Popen:
    """``dingo-companion run`` on the simulated table with the default configuration."""
    config = tmp_path / "config.toml"
    config.write_text("# defaults\n")
    env = {k: v for k, v in os.environ.items() if k not in ("DINGO_CONFIG", "DINGO_SOURCE")}
    env["DINGO_PIN"] = BROWSER_PIN  # printed only on a terminal: the test gives it
    return subprocess.Popen(
        [sys.executable, "-m", "companion", "run", "--host", "127.0.0.1", "--port", port,
         "--data-dir", str(tmp_path / "data"), "--source", "sim", "--config", str(config)],
        stdout=log.open("w"), stderr=subprocess.STDOUT, env=env, cwd=ROOT)


BROWSER_PIN = "482913"


def start_companion(tmp_path: Path) -> tuple[subprocess.Popen, str, str, Path]:
    """Start ``dingo-companion run`` on a free loopback port; return (process, url, pin, log)."""
    log = tmp_path / "companion.log"
    proc = launch(tmp_path, "0", log)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        text = log.read_text()
        url = re.search(r"(http://127\.0\.0\.1:\d+/)", text)
        if url and "Table PIN" in text:
            return proc, url.group(1), BROWSER_PIN, log
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("the companion did not start:\n" + log.read_text())


@pytest.fixture
def companion(tmp_path):
    proc, url, pin, log = start_companion(tmp_path)
    yield url, pin
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    assert "Traceback" not in log.read_text(), log.read_text()


def state(page) -> dict:
    return page.evaluate("fetch('/api/state').then(r => r.json())")


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def wait_change(page, version: int) -> None:
    deadline = time.monotonic() + 5
    while state(page)["version"] == version and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_game_on_the_simulated_table(companion, browser):
    from playwright.sync_api import expect

    url, pin = companion
    host = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    watcher = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors: list[str] = []
    for page in (host, watcher):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
        expect(page.locator("#conn")).to_have_text("live")

    # the host logs in with the PIN and starts a 3-player version 1 game
    host.fill("#pin", pin)
    host.click("#login button")
    expect(host.locator("#who")).to_have_text("host")
    host.click("#actions button")
    host.select_option("#setup-count", "3")
    for i, name in enumerate(("Anna", "Ben", "Cleo")):
        host.fill(f"#setup-names input >> nth={i}", name)
    host.check("input[name=version][value='1']")
    host.click("#setup-start")
    expect(host.locator("#actions")).to_contain_text("Who plays first?")
    host.click("#actions button:has-text('Anna')")
    expect(host.locator("#turn")).to_have_text("Anna's turn")
    expect(watcher.locator("#turn")).to_have_text("Anna's turn")
    shot(host, "1-host-anna-to-roll")

    # roll the companion's dice: both dice show on both pages
    version = state(host)["version"]
    host.click("#actions button.big")
    wait_change(host, version)
    dice = state(host)["state"]["dice"]
    expect(host.locator(".die")).to_have_count(2)
    expect(watcher.locator(".die-label").first).to_have_text(dice["colour"].upper())
    expect(watcher.locator(".die-number")).to_contain_text("PENALTY" if dice["number"] == 1 else "number")
    shot(host, "2-host-rolled")
    # a random spot may be far out (a lone pawn there really tips the disc): undo the roll and
    # enter physical dice for a spot near the centre, so the rest of the test is deterministic
    host.click(".panel-buttons button[data-button=undo]")
    expect(host.locator(".die")).to_have_count(0)
    host.click("#actions details.enter summary")
    host.click("#actions .swatch-btn[title=blue]")
    host.click("#actions .num-btn[data-number='2']")
    host.click("#actions details.enter button.act")
    expect(host.locator("#prompt")).to_contain_text("BLUE 2", ignore_case=True)
    placer = 0
    names = ["Anna", "Ben", "Cleo"]

    # put a pawn on the rolled spot through the simulator
    host.click("#sim-size button[data-size=large]")
    host.click(".pos.target")
    deadline = time.monotonic() + 15
    while state(host)["state"]["phase"] == "place" and time.monotonic() < deadline:
        time.sleep(0.1)
    if state(host)["state"]["expected"]["kind"] == "review_placement":
        # sensed on a line (it happens, a few mm off): the host accepts it where it stands
        shot(host, "3a-host-review")
        host.click("#actions button:has-text('Accept it')")
    expect(host.locator("#feed")).to_contain_text("Placed a large pawn", timeout=15000)
    after = state(host)["state"]
    assert after["players"][placer]["supply"]["large"] == 5
    assert after["disc_pawns"] and after["disc_pawns"][0]["size"] == "large"
    next_name = names[after["current"]]
    assert after["current"] != placer
    expect(host.locator("#turn")).to_have_text(f"{next_name}'s turn")
    expect(watcher.locator("#turn")).to_have_text(f"{next_name}'s turn")
    expect(host.locator("svg .pawn")).to_have_count(1)
    shot(host, "3-host-placed")

    # knock the disc over: the fall shows on both pages and the turn changes
    # The simulator is physical: a lone pawn near the centre rides out a tip now and then (about
    # 1 knock in 4); knock again then. Should it still stand after 4 knocks (its spot makes it
    # stick: ~1 game in 10), let it slide off the rim instead, so the test does not depend on luck.
    for _ in range(4):
        host.click("#sim-knock")
        try:
            expect(host.locator("#feed")).to_contain_text("fell", timeout=6000)
            break
        except AssertionError:
            continue
    else:
        host.click("#sim-slide")
    expect(host.locator("#feed")).to_contain_text("fell", timeout=15000)
    expect(watcher.locator("#feed")).to_contain_text("fell")
    expect(host.locator("#feed")).to_contain_text("The disc tipped!")
    fallen = state(host)["state"]
    assert fallen["disc"] == {"small": 0, "medium": 0, "large": 0}
    assert fallen["players"][placer]["supply"]["large"] == 6  # the fallen pawn went back to its player
    # the placed pawn fell: the turn goes back to its player for a second attempt
    assert fallen["current"] == placer and fallen["expected"] == {**fallen["expected"], "kind": "place",
                                                                  "attempt": 2}
    for page in (host, watcher):
        expect(page.locator("#turn")).to_have_text(f"{names[placer]}'s turn")
        expect(page.locator("#prompt")).to_contain_text("attempt 2")
    shot(host, "4-host-after-fall")
    shot(watcher, "5-watcher-after-fall")

    # the watcher has no controls and the API refuses its changes
    assert watcher.locator("#who").text_content() == "watching"
    expect(watcher.locator("#actions button")).to_have_count(0)
    expect(watcher.locator(".panel-buttons")).to_be_hidden()
    expect(watcher.locator("#sim")).to_be_hidden()
    before = state(watcher)["state"]
    statuses = watcher.evaluate("""async () => {
        const out = [];
        for (const p of ['/api/roll', '/api/undo', '/api/sim/knock', '/api/panel/roll']) {
            const r = await fetch(p, {method: 'POST', body: '{}',
                                      headers: {'Content-Type': 'application/json'}});
            out.push(r.status);
        }
        return out;
    }""")
    assert statuses == [401, 401, 401, 401]
    # sensing may still publish (settled, live centre of pressure), but the game itself is unchanged
    assert state(watcher)["state"] == before

    # anyone can share the page: its address and a QR code drawn by the Pi
    watcher.click("#share-btn")
    expect(watcher.locator("#share-urls li.best")).to_have_text(url)
    expect(watcher.locator("#share-qr")).to_be_visible()
    watcher.wait_for_function("document.getElementById('share-qr').naturalWidth > 0")
    shot(watcher, "6-watcher-share")
    watcher.click("#share button[type=submit]")
    assert not errors, errors


def test_page_recovers_after_a_restart(tmp_path, browser):
    from playwright.sync_api import expect

    proc, url, pin, _ = start_companion(tmp_path)
    page = browser.new_page()
    try:
        page.goto(url)
        expect(page.locator("#conn")).to_have_text("live")
        port = url.rsplit(":", 1)[1].strip("/")
        proc.terminate()
        proc.wait(10)
        expect(page.locator("#conn")).to_have_text("reconnecting…", timeout=10000)
        proc = launch(tmp_path, port, tmp_path / "again.log")
        expect(page.locator("#conn")).to_have_text("live", timeout=20000)
        assert state(page)["version"] >= 0
        shot(page, "6-recovered-after-restart")
    finally:
        proc.terminate()
        proc.wait(10)


def test_calibration_wizard_on_the_page(companion, browser):
    from playwright.sync_api import expect

    url, pin = companion
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    expect(page.locator("#calib-btn")).to_be_hidden()  # host only
    page.fill("#pin", pin)
    page.click("#login button")
    expect(page.locator("#who")).to_have_text("host")
    page.click("#calib-btn")
    expect(page.locator("#calib-sim")).to_be_visible()
    page.fill("#calib-weight", "500")
    page.click("#calib-begin")
    expect(page.locator("#calib-instruction")).to_contain_text("Empty disc")
    expect(page.locator("#status")).to_contain_text("calibration in progress")
    page.click("#calib-read")  # the simulated table's empty disc: about 3 s of readings
    expect(page.locator("#calib-instruction")).to_contain_text("over cell 0", timeout=20000)
    expect(page.locator("#calib-messages")).to_contain_text("empty disc: offsets")
    shot(page, "7-host-calibration")
    page.click("#calib-cancel")
    expect(page.locator("#calib-start")).to_be_visible()
    expect(page.locator("#status")).not_to_contain_text("calibration")
    assert not errors, errors


def test_a_resumed_game_is_offered_to_continue_or_abandon(tmp_path, browser):
    import json
    import urllib.request

    from playwright.sync_api import expect

    proc, url, pin, _ = start_companion(tmp_path)
    try:
        req = urllib.request.Request(
            url + "api/game", data=json.dumps({"version": 1, "players": ["Anna", "Ben"]}).encode(),
            headers={"Content-Type": "application/json", "X-Table-PIN": pin}, method="POST")
        with urllib.request.urlopen(req, timeout=10) as resp:
            assert resp.status == 200
        proc.kill()  # a crash: the game was never finished
        proc.wait(10)
        port = url.rsplit(":", 1)[1].strip("/")
        proc = launch(tmp_path, port, tmp_path / "again.log")
        page = browser.new_page()
        deadline = time.monotonic() + 20
        while True:
            try:
                page.goto(url)
                break
            except Exception:  # noqa: BLE001 - not listening yet
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        expect(page.locator("#conn")).to_have_text("live")
        expect(page.locator("#pending")).to_contain_text("Continued the unfinished game from")
        assert state(page)["state"]["players"][0]["name"] == "Anna"  # it carries on
        page.fill("#pin", pin)
        page.click("#login button")
        expect(page.locator("#who")).to_have_text("host")
        shot(page, "7-resumed-game-prompt")
        page.click("#pending button:has-text('Abandon')")
        expect(page.locator("#pending")).not_to_contain_text("Continued the unfinished game")
        assert state(page)["state"]["expected"]["kind"] == "new_game"
    finally:
        proc.terminate()
        proc.wait(10)
