"""The hub page in real headless Chromium, against the real ``dingo-companion hub`` process, a real
Mosquitto and two simulated tables (one behind a proxy we can cut): every table live, whose turn,
a fall as it happens, an offline table greyed, the standings once a game ends.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[3]
SHOTS = ROOT / "artifacts" / "screenshots"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is absent (apt-get install chromium)"
    ),
]


@pytest.fixture
def hub_process(broker, tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "companion",
        "hub",
        "--broker",
        "127.0.0.1",
        "--broker-port",
        str(broker.port),
        "--venue",
        "club",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--data-dir",
        str(tmp_path / "hub"),
        "--client-id",
        "browser-hub",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    port = None
    for line in proc.stdout:
        match = re.search(r"Open the hub page: http://[^:]+:(\d+)/", line)
        if match:
            port = int(match.group(1))
            break
    assert port, "the hub did not start"
    yield f"http://127.0.0.1:{port}/"
    proc.terminate()
    proc.wait(10)


def test_every_table_live_a_fall_an_offline_table_and_the_standings(
    broker, proxy, make_table, hub_process, wait
):
    from playwright.sync_api import sync_playwright

    t1 = make_table(broker.port, "t1", seed=11)
    t2 = make_table(proxy.port, "t2", seed=12)
    for t in (t1, t2):
        t.start()
        for _ in range(4):
            t.step()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(hub_process)
        page.wait_for_selector(".card[data-table='t1'] li.p", timeout=15000)
        page.wait_for_selector(".card[data-table='t2'] li.p", timeout=15000)
        names = [p["name"] for p in t1.controller.message()["state"]["players"]]
        text = page.inner_text(".card[data-table='t1']")
        assert all(n in text for n in names)
        # a fall at t1 shows as it happens
        for _ in range(2000):
            if t1.step().get("type") == "fall":
                break
        else:
            pytest.fail("no fall in 2000 random actions")
        page.wait_for_selector(".card.alert[data-table='t1']", timeout=10000)
        assert "fell" in page.inner_text(".card[data-table='t1'] .flash")
        # t2 loses its network: greyed once the broker gives its last will
        proxy.cut()
        page.wait_for_selector(".card.offline[data-table='t2']", timeout=25000)
        assert not page.query_selector(".card.offline[data-table='t1']")
        # t1 finishes its game: the result and the standings appear without a reload
        t1.play_until_over()
        page.wait_for_selector("#standings tbody tr", timeout=15000)
        standings = page.inner_text("#standings")
        assert all(n in standings for n in names)
        assert page.query_selector_all("#games tbody tr")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "venue-hub.png"), full_page=True)
        browser.close()
