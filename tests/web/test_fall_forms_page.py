"""The two fall forms on the real tablet page in headless Chromium (an in-process table): an unsure fall
confirmed and the last fall corrected in the Corrections dialog, the pawns counted with the big − / +
buttons of the no-fall card (nobody types; a count stays between 0 and what was on the disc).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.table.controller import TableController
from companion.table.game import DingoDiscGame

PIN = "2468"
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

pytestmark = pytest.mark.browser  # skipped where Chromium is absent (conftest.py)


@pytest.fixture
def table(served_table):
    return served_table(DingoDiscGame(), 4, PIN)


def tip_both(controller: TableController, confident: bool) -> None:
    """Anna places a large, Ben a small (typed), then a tip in which both fell (unsure or sure)."""
    controller.new_game({"version": 1, "players": ["Anna", "Ben", "Cleo"]})
    controller.apply({"type": "first_player", "seat": 0})
    for colour, size in (("blue", "large"), ("red", "small")):
        controller.enter_roll({"colour": colour, "number": 2})
        controller.apply({"type": "place", "size": size, "sensed": False})
    controller.apply({"type": "fall", "pawns": {"small": 1, "large": 1}, "tipped": True,
                      "confident": confident})


def open_page(browser, url, log_in_as_host, width=800, height=1280):
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in_as_host(page, url, PIN)
    return page, errors


def synced(page, controller) -> None:
    """Wait until the page shows the table's latest change (no wait_for_function: the CSP forbids eval)."""
    from playwright.sync_api import expect

    expect(page.locator("body")).to_have_attribute("data-version", str(controller.message()["version"]))


def assert_big(buttons) -> None:
    for i in range(buttons.count()):
        box = buttons.nth(i).bounding_box()
        assert box and box["width"] >= 48 and box["height"] >= 48, box


def test_the_host_confirms_an_unsure_fall_with_the_buttons(table, browser, log_in_as_host):
    from playwright.sync_api import expect

    url, controller = table
    tip_both(controller, confident=False)
    assert controller.message()["state"]["phase"] == "confirm_fall"
    page, errors = open_page(browser, url, log_in_as_host)
    form = page.locator("#actions .fall-form")
    expect(form).to_be_visible()
    expect(form.locator("input[type=number]")).to_have_count(0)  # nobody types
    expect(form.locator(".tap-row")).to_have_count(2)  # the sizes that were on the disc: small and large
    small, large = form.locator(".tap-row[data-size=small]"), form.locator(".tap-row[data-size=large]")
    expect(small.locator(".tap-count")).to_have_text("1")  # what the sensors think fell
    expect(large.locator(".tap-count")).to_have_text("1")
    assert_big(form.locator("button.tap-btn"))
    small.locator("button.tap-plus").click()  # at most the 1 small that was on the disc
    expect(small.locator(".tap-count")).to_have_text("1")
    large.locator("button.tap-minus").click()
    large.locator("button.tap-minus").click()  # never below 0
    expect(large.locator(".tap-count")).to_have_text("0")

    controller.apply({"type": "hand", "duration_ms": 2000})  # a change while the host counts
    synced(page, controller)
    expect(page.locator("#pending .flag")).to_have_count(1)
    expect(large.locator(".tap-count")).to_have_text("0")  # the taps are kept

    page.reload()  # the question is part of the state the page fetches
    expect(page.locator("#who")).to_have_text("host")
    expect(small.locator(".tap-count")).to_have_text("1")
    large.locator("button.tap-minus").click()
    expect(large.locator(".tap-count")).to_have_text("0")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "confirm-fall-form.png"))
    form.locator("button.big", has_text="Confirm the fall").click()

    expect(page.locator("#feed")).to_contain_text("Fall confirmed: 1 small")
    state = controller.message()["state"]
    assert state["phase"] != "confirm_fall"
    assert state["disc"] == {"small": 0, "medium": 0, "large": 1}  # Anna's large still stands
    assert page.evaluate("document.documentElement.scrollWidth") <= 800
    assert not errors, errors


def test_a_refused_confirmation_names_the_problem_and_changes_nothing(table, browser, log_in_as_host):
    from playwright.sync_api import expect

    url, controller = table
    tip_both(controller, confident=False)
    before = controller.message()["state"]
    page, errors = open_page(browser, url, log_in_as_host, 390, 844)
    small = page.locator("#actions .fall-form .tap-row[data-size=small]")
    small.locator("button.tap-minus").click()  # Ben's placed small did not fall: the rules refuse it
    expect(small.locator(".tap-count")).to_have_text("0")
    page.locator("#actions .fall-form button.big").click()
    expect(page.locator(".refusal")).to_contain_text("no small pawn fell")
    assert controller.message()["state"] == before
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert not errors, errors


def test_the_host_corrects_the_last_fall_in_the_dialog_with_the_buttons(table, browser, log_in_as_host):
    from playwright.sync_api import expect

    url, controller = table
    tip_both(controller, confident=True)  # applied at once: 1 small and 1 large back to Ben
    assert controller.message()["state"]["players"][1]["supply"]["large"] == 7
    page, errors = open_page(browser, url, log_in_as_host, 390, 844)
    page.click("#fix-btn")
    form = page.locator("#fix[open] .fall-form")
    expect(form).to_be_visible()
    expect(form.locator("input[type=number]")).to_have_count(0)
    expect(form.locator(".tap-row")).to_have_count(2)  # on the disc before the fall: small and large
    small, large = form.locator(".tap-row[data-size=small]"), form.locator(".tap-row[data-size=large]")
    expect(small.locator(".tap-count")).to_have_text("1")  # the fall as it was counted
    expect(large.locator(".tap-count")).to_have_text("1")
    assert_big(form.locator("button.tap-btn"))
    large.locator("button.tap-plus").click()  # at most the 1 large that was on the disc
    expect(large.locator(".tap-count")).to_have_text("1")
    large.locator("button.tap-minus").click()
    expect(large.locator(".tap-count")).to_have_text("0")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "fix-fall-form.png"))
    form.locator("button.big", has_text="Correct the fall").click()

    expect(page.locator("#fix")).not_to_have_attribute("open", "")
    expect(page.locator("#feed")).to_contain_text("Fall corrected: 1 small")
    state = controller.message()["state"]
    assert state["disc"] == {"small": 0, "medium": 0, "large": 1}  # Anna's large stood after all
    assert state["players"][1]["supply"] == {"small": 6, "medium": 6, "large": 6}
    assert not errors, errors


def test_with_no_fall_to_correct_the_dialog_says_so_and_the_game_refuses(table, browser, log_in_as_host):
    from playwright.sync_api import expect

    url, controller = table
    tip_both(controller, confident=True)
    controller.apply({"type": "place", "size": "medium", "sensed": False})  # Ben again: too late to correct
    before = controller.message()["state"]
    page, errors = open_page(browser, url, log_in_as_host, 390, 844)
    page.click("#fix-btn")
    form = page.locator("#fix[open] .fall-form")
    expect(page.locator("#fix-fall")).to_contain_text("No fall has just settled")
    expect(form.locator(".tap-row")).to_have_count(3)  # the page does not know the disc before it
    form.locator(".tap-row[data-size=medium] button.tap-plus").click()
    form.locator("button.big", has_text="Correct the fall").click()
    expect(page.locator(".refusal")).to_contain_text("no just-settled fall to correct")
    assert controller.message()["state"] == before
    assert not errors, errors
