"""The Dingo card game view in real headless Chromium at phone width (390 px), fed by the real core.

The page is the view alone (web/static/games/dingo-cards.js + .css) with the JSON the platform's
GET /api/state serves (state + legal + to_move + next); each button press goes through ``ctx.send``
back to the core, which applies it, and the view is drawn again. Screenshots go to
``artifacts/screenshots/``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.games.dingo_cards import DingoCardsRules, Discard, Pass, Play

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
RULES = DingoCardsRules()

pytestmark = pytest.mark.browser  # skipped where Chromium is absent (conftest.py)


def view_json(state) -> dict:
    """What GET /api/state serves for a game (GAMES.md)."""
    out = state.to_json()
    out["legal"] = [{"action": la.action.to_json(), "label": la.label, "chance": la.chance}
                    for la in RULES.legal_actions(state)]
    out["to_move"] = RULES.to_move(state).to_json()
    out["next"] = RULES.describe_next(state)
    result = RULES.outcome(state)
    out["outcome"] = None if result is None else result.to_json()
    return out


@pytest.fixture
def page(browser):
    pg = browser.new_page(viewport={"width": 390, "height": 844})
    css = (ROOT / "web/static/games/dingo-cards.css").read_text()
    js = (ROOT / "web/static/games/dingo-cards.js").read_text()
    pg.set_content(f"<!doctype html><html><head><meta charset='utf-8'><style>{css}</style></head>"
                   "<body style='margin:0;padding:6px'><div id='view'></div>"
                   f"<script>{js}</script></body></html>")
    pg.evaluate("window.sent = []")
    return pg


def show(page, state) -> None:
    page.evaluate("""s => window.DingoViews['dingo-cards'].render(s, document.getElementById('view'),
                       {send: a => window.sent.push(a)})""", view_json(state))


def press(page, state, aria_label: str):
    """Press the button named ``aria_label`` and apply what the view sent."""
    page.evaluate("window.sent = []")
    page.click(f"button[aria-label={json.dumps(aria_label)}]")
    sent = page.evaluate("window.sent")
    assert len(sent) == 1, sent
    return RULES.apply(state, RULES.action_from_json(sent[0]))


def fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth") <= 390


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"dingo-cards-{name}.png"), full_page=True)


def test_the_view_drives_a_deal_from_the_dealer_to_a_scored_hunt(page):
    s = RULES.initial_state(RULES.example_setups()[3])
    show(page, s)
    assert "Choose the first dealer" in page.inner_text("#view")
    s = press(page, s, "Cleo deals first")
    show(page, s)
    assert "Dealer: Cleo" in page.inner_text("#view")
    s = press(page, s, "Cleo: cards dealt")
    show(page, s)
    # the discard grid: pick the player, then the card; aces are never offered
    page.click("button.dc-seat:has-text('Ben')")
    assert page.locator("button[aria-label='Ben: discard club 5']").count() == 1
    assert page.locator("button[aria-label='Ben: discard heart ace']").count() == 0
    assert page.locator("button[aria-label='Ana: four aces!']").count() == 0  # folded away until asked
    shot(page, "discard-grid")
    assert fits(page)
    s = press(page, s, "Ben: discard club 5")
    assert s.discards == ("C5",)
    show(page, s)
    assert "Ben" not in [t.strip() for t in page.locator("button.dc-seat").all_inner_texts()]
    shot(page, "discard")
    for seat, card in ((0, "C2"), (2, "C3"), (3, "C4")):
        s = RULES.apply(s, Discard(seat=seat, card=card))
    show(page, s)
    text = page.inner_text("#view")
    assert "Exchange 1 of 3, to the left" in text and "Cleo → Dev" in text
    shot(page, "exchange")
    s = press(page, s, "Cleo gave a card to Dev")
    for _ in range(3):
        s = RULES.apply(s, RULES.legal_actions(s)[0].action)
    later = iter(c + r for r in "6789" for c in "CSH")
    for _ in range(3):
        for seat in range(4):
            s = RULES.apply(s, Discard(seat=seat, card=next(later)))
        while s.phase == "exchange":
            s = RULES.apply(s, RULES.legal_actions(s)[0].action)
    assert s.phase == "hunt" and s.rank == "2"
    show(page, s)
    text = page.inner_text("#view")
    assert "HUNTING" in text.upper() and "Cleo announces 2" in text and "♦2" in text
    s = press(page, s, "Dev: heart 2")
    s = RULES.apply(s, Pass(seat=0))
    show(page, s)
    assert page.locator("button[aria-label='Ben: spade 2']").count() == 1
    assert page.locator("button[aria-label='Ben: club 2']").count() == 0  # Ana discarded it
    shot(page, "hunt")
    assert fits(page)
    s = press(page, s, "Ben: spade 2")
    assert s.rank == "3" and s.points[1] == ("S2", "D2") and s.points[3] == ("H2",)


def test_the_view_shows_piles_totals_and_the_top_discard_only(page):
    s = RULES.initial_state(RULES.example_setups()[3])
    for a in RULES.legal_actions(s)[:1]:
        s = RULES.apply(s, a.action)
    s = RULES.apply(s, RULES.legal_actions(s)[0].action)
    cards = [c + r for r in "23456789" for c in "CS"]
    for r in range(4):
        for seat in range(4):
            s = RULES.apply(s, Discard(seat=seat, card=cards[4 * r + seat]))
        while s.phase == "exchange":
            s = RULES.apply(s, RULES.legal_actions(s)[0].action)
    s = RULES.apply(s, Play(seat=1, cards=("H2",)))  # no wolf left: Ben scores the heart, -1 the rabbit
    show(page, s)
    piles = page.locator(".dc-player").nth(1).inner_text()
    assert "♥2" in piles and "♦2" in piles and "This deal: 0" in piles
    discards = page.locator(".dc-discards").inner_text()
    assert "♠9" in discards and "♣2" not in discards  # only the top discard
    assert "16 cards" in discards.lower()
    shot(page, "piles")
    assert fits(page)


def test_the_view_shows_the_ace_hunt_and_the_end_of_the_game(page):
    s = RULES.initial_state({**RULES.example_setups()[0], "options": {"deals": 1}})
    s = RULES.apply(s, RULES.legal_actions(s)[0].action)
    s = RULES.apply(s, RULES.legal_actions(s)[0].action)
    cards = [c + r for r in "23456789" for c in "CS"]
    for r in range(4):
        for seat in range(4):
            s = RULES.apply(s, Discard(seat=seat, card=cards[4 * r + seat]))
        while s.phase == "exchange":
            s = RULES.apply(s, RULES.legal_actions(s)[0].action)
    for k, r in enumerate(["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]):
        s = RULES.apply(s, Play(seat=k % 4, cards=("H" + r,)))
        while s.phase == "hunt" and s.rank == r:
            s = RULES.apply(s, Pass(seat=s.lap[0]))
    assert s.phase == "aces"
    s = RULES.apply(s, Play(seat=0, cards=("HA",)))
    show(page, s)
    text = page.inner_text("#view")
    assert "ACE HUNT" in text.upper() and "Ben: play the club ace or the spade ace" in text
    assert page.locator("button[aria-label='Ben: club ace + spade ace + diamond ace']").count() == 1
    shot(page, "aces")
    assert fits(page)
    s = press(page, s, "Ben: club ace + spade ace + diamond ace")
    assert s.phase == "over"
    show(page, s)
    text = page.inner_text("#view")
    assert "Game over after 1 deal" in text and "Ben wins" in text
    assert page.locator(".dc-history").count() == 1
    shot(page, "over")
    assert fits(page)
