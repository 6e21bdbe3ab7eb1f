""""Did any pawns fall?" on the real tablet page in headless Chromium (an in-process table).

The disc tips and settles with no fall seen: the card shows (and is there again after a reload), the
host counts the pawns with the big + / − buttons and answers; the fall is applied.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.table.game import DingoDiscGame

PIN = "1357"
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

pytestmark = pytest.mark.browser  # skipped where Chromium is absent (conftest.py)


@pytest.fixture
def table(served_table):
    return served_table(DingoDiscGame(), 4, PIN)


def test_the_host_counts_the_fallen_pawns_with_the_buttons(table, browser, log_in_as_host):
    from playwright.sync_api import expect

    url, controller = table
    controller.new_game({"version": 1, "players": ["Anna", "Ben", "Cleo"]})
    controller.apply({"type": "first_player", "seat": 0})
    for colour, size in (("blue", "large"), ("red", "small")):  # Anna a large, Ben a small
        controller.enter_roll({"colour": colour, "number": 3})
        controller.apply({"type": "place", "size": size, "sensed": False})
    controller.sensed([{"event": "tipped", "t_ms": 5000}, {"event": "settled", "t_ms": 5600}])

    page = browser.new_context(viewport={"width": 800, "height": 1280}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in_as_host(page, url, PIN)
    card = page.locator("#pending .card-big[data-kind=tip_no_fall]")
    expect(card).to_contain_text("The disc tipped but no fall was seen. Did any pawns fall?")
    expect(card).to_contain_text("go back to Ben")
    expect(card.locator(".tap-row")).to_have_count(2)  # the sizes on the disc: small and large
    page.reload()  # the question is part of the state the page fetches
    expect(page.locator("#who")).to_have_text("host")  # still the host (the session cookie)
    expect(card).to_be_visible()

    small, large = card.locator(".tap-row[data-size=small]"), card.locator(".tap-row[data-size=large]")
    small.locator("button.tap-plus").click()
    small.locator("button.tap-plus").click()  # at most the 1 small on the disc
    expect(small.locator(".tap-count")).to_have_text("1")
    large.locator("button.tap-plus").click()
    large.locator("button.tap-minus").click()
    expect(large.locator(".tap-count")).to_have_text("0")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "no-fall-card.png"))
    card.locator("button", has_text="These pawns fell").click()

    expect(page.locator("#pending [data-kind=tip_no_fall]")).to_have_count(0)
    expect(page.locator("#feed")).to_contain_text("Tipped! 1 small fell to Ben")
    state = controller.message()["state"]
    assert state["disc"] == {"small": 0, "medium": 0, "large": 1}
    assert state["current"] == 1 and state["attempt"] == 2  # Ben's placed pawn fell: attempt 2
    assert page.evaluate("document.documentElement.scrollWidth") <= 800
    assert not errors, errors


def test_nothing_fell_is_one_tap(table, browser, log_in_as_host):
    from playwright.sync_api import expect

    url, controller = table
    controller.new_game({"version": 1, "players": ["Anna", "Ben"]})
    controller.apply({"type": "first_player", "seat": 0})
    controller.enter_roll({"colour": "blue", "number": 3})
    controller.apply({"type": "place", "size": "medium", "sensed": False})
    controller.sensed([{"event": "tipped", "t_ms": 5000}, {"event": "settled", "t_ms": 5600}])
    before = controller.message()["state"]

    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    log_in_as_host(page, url, PIN)
    page.locator("#pending [data-kind=tip_no_fall] button.big", has_text="Nothing fell").click()
    expect(page.locator("#pending [data-kind=tip_no_fall]")).to_have_count(0)
    expect(page.locator("#feed")).to_contain_text("Did any pawns fall? Nothing fell")
    assert controller.message()["state"] == before
