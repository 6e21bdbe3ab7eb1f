"""The Dingo card game on the real tablet page (start screen, controller, Flask app) in headless Chromium.

The host chooses the game on the start screen, sets it up, and plays with the view's own buttons
(phone width, 390 px): the first dealer, the deal, a discard from the card grid. The page's flat row of
legal buttons is hidden while the view shows (the view offers every legal action itself); a player
without the PIN sees the game but no entry buttons.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.games import GAMES
from companion.table.game import ModuleGame

PIN = "2468"
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

pytestmark = pytest.mark.browser  # skipped where Chromium is absent (conftest.py)


@pytest.fixture
def table(served_table):
    return served_table(ModuleGame(dict(GAMES)), 1, PIN)


def test_the_host_plays_the_card_game_with_the_views_buttons(table, browser, log_in_as_host):
    from playwright.sync_api import expect

    url, controller = table
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in_as_host(page, url, PIN)
    page.click("#actions button")
    page.click("#setup-games button:has-text('Dingo card game')")
    for i, name in enumerate(("Ana", "Ben", "Cleo", "Dev")):
        page.fill(f"#setup-gnames input >> nth={i}", name)
    page.click("#setup-goptions button[data-option=deals][data-value='2']")
    page.click("#setup-start")

    expect(page.locator("#view .dc-root")).to_be_visible()
    expect(page.locator("#actions .legal-row")).to_be_hidden()  # the view offers the entries
    page.click("#view button:has-text('Cleo deals first')")
    expect(page.locator("#view .dc-dealer")).to_have_text("Dealer: Cleo")
    page.click("#view button:has-text('Cleo: cards dealt')")
    expect(page.locator("#view .dc-who")).to_be_visible()
    page.click("#view button.dc-seat:has-text('Dev')")
    page.click("#view button[aria-label='Dev: discard spade queen']")
    expect(page.locator("#view .dc-discards")).to_contain_text("♠Q")
    state = controller.message()["state"]
    assert state["game"] == "dingo-cards" and state["options"]["deals"] == 2
    assert state["discards"] == ["SQ"] and state["dealer"] == 2 and state["hands"] == [10, 10, 10, 9]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "dingo-cards-page.png"), full_page=True)

    # a second tablet without the PIN sees the game, not the entry buttons
    other = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    other.goto(url)
    expect(other.locator("#view .dc-discards")).to_contain_text("♠Q")
    expect(other.locator("#view button.dc-btn")).to_have_count(0)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert not errors, errors
