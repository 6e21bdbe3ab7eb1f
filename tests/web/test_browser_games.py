"""The start screen and the generic game section in real headless Chromium.

An in-process table whose registry holds the real games plus a tiny test-only module (tiny-race)
with a view of its own (a file in a test directory of game views): the host chooses the game on
the start screen, sets it up with big buttons, plays it with the big buttons built from the legal
actions, lets the companion draw the chance outcomes or enters them, taps the game's own view, sees
the winner, undoes; then starts a Dingo Disc game, whose page is as it has always been.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path

import pytest

from companion.games import GAMES
from companion.table.controller import TableController
from companion.table.game import ModuleGame
from web.app import create_app
from web.security import Guard

PIN = "2468"
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

pytestmark = pytest.mark.browser  # skipped where Chromium is absent (conftest.py)

VIEW = """
window.DingoViews = window.DingoViews || {};
window.DingoViews["tiny-race"] = {
  render(state, el, ctx) {
    el.replaceChildren();
    const track = document.createElement("div");
    track.className = "track";
    track.textContent = "track: " + state.positions.join(" / ") + " (to " + state.target + ")";
    el.append(track);
    if (ctx.host && state.phase === "step") {
      const b = document.createElement("button");
      b.type = "button"; b.className = "tap-step"; b.textContent = "Tap the track: step 1";
      b.addEventListener("click", () => ctx.send({ type: "step", by: 1 }));
      el.append(b);
    }
  },
};
"""


def _tiny():
    if "tiny_game" in sys.modules:
        return sys.modules["tiny_game"]
    path = Path(__file__).parents[1] / "companion" / "games" / "tiny_game.py"
    spec = importlib.util.spec_from_file_location("tiny_game", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["tiny_game"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def table(tmp_path, serve):
    views = tmp_path / "views"
    views.mkdir()
    (views / "tiny-race.js").write_text(VIEW)
    controller = TableController(ModuleGame({**GAMES, "tiny-race": _tiny().TinyRace()}), rng=random.Random(3))
    app = create_app(controller, secret_key=b"g" * 32, guard=Guard(pin=PIN, allowed_hosts={"127.0.0.1"}),
                     heartbeat_s=0.5, view_dirs=[views])
    yield serve(app), controller
    controller.close()


def test_the_start_screen_chooses_the_game_and_its_buttons_play_it(table, browser, log_in_as_host):
    from playwright.sync_api import expect

    url, controller = table
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    log_in_as_host(page, url, PIN)

    # the start screen: every registered game, the Disc first (its fields as always)
    page.click("#actions button")
    expect(page.locator("#setup-games button")).to_have_count(len(GAMES) + 1)
    expect(page.locator("#setup-games button.on")).to_have_text("Dingo Disc")
    expect(page.locator("#setup-count")).to_be_visible()
    page.click("#setup-games button:has-text('Tiny race')")
    expect(page.locator("#setup-disc")).to_be_hidden()
    page.click("#setup-gcount button[data-count='3']")
    expect(page.locator("#setup-gnames input")).to_have_count(3)
    for i, name in enumerate(("Ann", "Bob", "Cy")):
        page.fill(f"#setup-gnames input >> nth={i}", name)
    page.click("#setup-goptions button[data-option=target][data-value='6']")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "games-1-start-screen.png"))
    page.click("#setup-start")

    # the generic section: banner, next step, big buttons from legal, the game's own view
    expect(page.locator("#turn")).to_have_text("Ann's turn")
    expect(page.locator("#next")).to_have_text("Ann: step 1 or 2")
    expect(page.locator("#actions button.legal")).to_have_text(["Ann: step 1", "Ann: step 2"])
    expect(page.locator(".col-disc")).to_be_hidden()
    expect(page.locator("#view .track")).to_have_text("track: 0 / 0 / 0 (to 6)")
    state = controller.message()["state"]
    assert state["game"] == "tiny-race" and state["target"] == 6 and state["players"] == ["Ann", "Bob", "Cy"]

    page.click("#actions button:has-text('Ann: step 2')")
    expect(page.locator("#view .track")).to_have_text("track: 2 / 0 / 0 (to 6)")
    expect(page.locator("#prompt")).to_have_text("Toss the coin")
    page.click("#actions button:has-text('Let the companion draw')")  # the companion tosses
    expect(page.locator("#feed")).to_contain_text("Coin:")
    expect(page.locator("#turn")).to_have_text("Bob's turn")
    page.click("#view button.tap-step")  # the view itself is tappable: ctx.send
    expect(page.locator("#view .track")).to_contain_text("/ 1 /")
    page.click("#actions details.enter summary")  # a real coin: the host enters what came
    page.click("#actions details.enter button:has-text('Tails')")
    expect(page.locator("#turn")).to_have_text("Cy's turn")
    page.screenshot(path=str(SHOTS / "games-2-generic-buttons.png"))

    # play to the end with the buttons; the winner shows, undo takes the last action back
    for _ in range(40):
        if controller.message()["state"]["outcome"] is not None:
            break
        version = controller.version
        if page.locator("#actions button:has-text('Let the companion draw')").count():
            page.click("#actions button:has-text('Let the companion draw')")
        else:
            page.click("#actions button.legal >> nth=-1")
        page.wait_for_function(f"fetch('/api/state').then(r => r.json()).then(m => m.version > {version})")
    outcome = controller.message()["state"]["outcome"]
    assert outcome is not None
    winner = ["Ann", "Bob", "Cy"][outcome["winners"][0]]
    expect(page.locator("#turn")).to_have_text(f"{winner} wins!")
    expect(page.locator("#players")).to_contain_text("WINNER")
    page.screenshot(path=str(SHOTS / "games-3-generic-winner.png"))
    page.click(".panel-buttons button[data-button=undo]")
    expect(page.locator("#turn")).not_to_contain_text("wins")

    # a new game: the Dingo Disc, whose own page is as before
    page.click("#new-game-btn")
    page.click("#setup-games button:has-text('Dingo Disc')")
    expect(page.locator("#setup-generic")).to_be_hidden()
    page.select_option("#setup-count", "2")
    page.fill("#setup-names input >> nth=0", "Anna")
    page.fill("#setup-names input >> nth=1", "Ben")
    page.click("#setup-start")
    expect(page.locator("#actions")).to_contain_text("Who plays first?")
    expect(page.locator(".col-disc")).to_be_visible()
    expect(page.locator("#view")).to_be_hidden()
    page.click("#actions button:has-text('Anna')")
    expect(page.locator("#turn")).to_have_text("Anna's turn")
    assert controller.message()["state"]["game"] == "dingo-disc"
    assert not errors, errors


def test_a_computer_seat_chosen_at_setup_plays_by_itself_on_the_page(table, browser):
    """Issue 18: the start screen gives seat 1 to the computer (Monte-Carlo search); the host enters the
    real dice; the page says "Computer is thinking", hides the host's buttons, then shows its move."""
    from playwright.sync_api import expect

    url, controller = table
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    page.fill("#pin", PIN)
    page.click("#login button")
    expect(page.locator("#who")).to_have_text("host")
    page.click("#actions button")
    page.click("#setup-games button:has-text('Pinuid Dobbal')")
    page.fill("#setup-gnames input >> nth=0", "Robo")
    page.fill("#setup-gnames input >> nth=1", "Bob")
    page.click("#setup-goptions button[data-option=seat_1][data-value='computer-mcts']")
    page.click("#setup-start")
    expect(page.locator("#actions details.enter")).to_be_visible()  # Robo's dice first
    assert controller.message()["computer"]["seats"] == {"0": "mcts"}
    page.click("#actions details.enter summary")  # real dice: the host enters what came
    page.click("#actions details.enter button >> nth=5")
    expect(page.locator("#actions .computer-thinking")).to_contain_text("Computer is thinking (Robo)")
    expect(page.locator("#actions button.legal")).to_have_count(0)  # the computer's step, not the host's
    expect(page.locator("#actions .computer-last")).to_contain_text("Computer (Monte-Carlo search)",
                                                                    timeout=20000)
    expect(page.locator("#actions .computer-thinking")).to_have_count(0, timeout=20000)
    expect(page.locator("#actions details.enter")).to_be_visible()  # Bob's dice now: the computer is done
    assert controller.message()["state"]["current"] == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert not errors, errors
