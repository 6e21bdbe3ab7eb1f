"""The Pinuid Dobbal tablet view in real headless Chromium, fed states from the real rules core.

The view is loaded on its own (the generic page is the platform's): a fake ``ctx`` records what the
view sends. Taps move pins, the double's choice removes a pin, dice are entered, skips are explained,
the hint is drawn, and everything fits a 390 px wide screen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.games.pinuid_dobbal import PinuidDobbalRules, Roll, apply
from companion.games.pinuid_dobbal.state import Options, State

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "web" / "static" / "games"
RULES = PinuidDobbalRules()

pytestmark = pytest.mark.browser  # skipped where Chromium is absent (conftest.py)


def view_state(s) -> dict:
    js = s.to_json()
    js["legal"] = [{"action": la.action.to_json(), "label": la.label, "chance": la.chance}
                   for la in RULES.legal_actions(s)]
    js["to_move"] = RULES.to_move(s).to_json()
    js["next"] = RULES.describe_next(s)
    out = RULES.outcome(s)
    js["outcome"] = None if out is None else out.to_json()
    return js


def start():
    return RULES.initial_state({"type": "new_game", "players": ["Anna", "Bob"]})


@pytest.fixture(scope="module")
def page(module_browser):
    pg = module_browser.new_page(viewport={"width": 390, "height": 844})
    pg.set_content("<!doctype html><html><body style='margin:0'><div id='app'></div></body></html>")
    pg.add_style_tag(path=str(STATIC / "pinuid-dobbal.css"))
    pg.add_script_tag(path=str(STATIC / "pinuid-dobbal.js"))
    yield pg
    pg.context.close()


def show(page, s, hint=None):
    page.evaluate("""([state, hint]) => {
        window.sent = [];
        const ctx = {send: (a) => window.sent.push(a)};
        if (hint) ctx.hint = () => Promise.resolve(hint);
        window.DingoViews["pinuid-dobbal"].render(state, document.getElementById("app"), ctx);
    }""", [view_state(s), hint])


def sent(page):
    return page.evaluate("window.sent")


def test_dice_are_entered_with_big_buttons_or_rolled(page):
    show(page, start())
    assert page.locator(".pd-enter").is_disabled()
    for die, face in ((0, 1), (1, 2), (2, 3)):
        page.click(f".pd-face[data-die='{die}'][data-face='{face}']")
    page.click(".pd-enter")
    assert sent(page) == [{"type": "roll", "dice": [1, 2, 3]}]
    show(page, start())
    page.click(".pd-roll")
    (roll,) = sent(page)
    assert roll["type"] == "roll" and all(1 <= d <= 3 for d in roll["dice"])
    page.evaluate("""(state) => {
        window.sent = []; window.rolled = 0;
        const ctx = {send: (a) => window.sent.push(a), roll: () => { window.rolled += 1; }};
        window.DingoViews["pinuid-dobbal"].render(state, document.getElementById("app"), ctx);
    }""", view_state(start()))
    page.click(".pd-roll")  # the platform's chance roll when it offers one
    assert page.evaluate("window.rolled") == 1 and sent(page) == []


def test_a_tap_on_a_pin_then_on_a_highlighted_square_moves_it(page):
    s = apply(start(), Roll((1, 2, 1)))
    show(page, s)
    assert page.locator(".pd-movable").count() == 5
    page.click("[data-square='b1']")
    targets = set(page.eval_on_selector_all(".pd-target", "els => els.map(e => e.dataset.square)"))
    assert targets == {"a2", "b2", "c2", "b3", "d3"}
    page.click("[data-square='b3']")
    assert sent(page) == [{"type": "move", "from": "b1", "to": "b3"}]


def test_pins_that_cannot_move_are_greyed_and_a_forced_skip_is_explained(page):
    o = Options()
    b = o.board()
    mask = [sum(1 << b.index[q] for q in g.split()) for g in ("a1 e4", "a2 b2")]
    s = State(options=o, names=("Anna", "Bob"), pins=(mask[0], mask[1]), play=b.index["b1"])
    s = apply(s, Roll((1, 1, 1)))  # a1 is walled in, e4 may move; the double offers removals too
    show(page, s)
    assert page.locator("[data-square='a1'].pd-stuck").count() == 1
    assert page.locator("[data-square='e4'].pd-movable").count() == 1
    s = apply(s, RULES.action_from_json({"type": "move", "from": "e4", "to": "e5"}))
    show(page, s)  # the play-pin on b1 is next to a1 only... and has room: c1, c2
    t = apply(start(), Roll((1, 2, 1)))
    t = apply(t, RULES.action_from_json({"type": "move", "from": "f1", "to": "f3"}))
    show(page, t)  # the play-pin c1 is next to b1, d1: it may move
    assert page.locator("[data-square='c1'].pd-movable").count() == 1
    u = State(options=o, names=("Anna", "Bob"), pins=(mask[0], mask[1]), play=b.index["f7"])
    u = apply(u, Roll((1, 2, 1)))  # step 1 e4, then the play-pin (far away) is skipped
    u = apply(u, RULES.action_from_json({"type": "move", "from": "e4", "to": "e5"}))
    show(page, u)
    skipped = page.locator(".pd-skipped").inner_text()
    assert "Step 2" in skipped and "not next to one of Anna's running pins" in skipped


def test_the_double_choice_removes_a_pin_with_a_tap(page):
    s = apply(start(), Roll((2, 2, 1)))
    show(page, s)
    page.get_by_text("Remove a pin of Bob").click()
    assert page.locator(".pd-remove").count() == 5
    page.click("[data-square='a7']")
    assert sent(page) == [{"type": "remove", "at": "a7"}]


def test_show_the_best_move_marks_it_on_the_board(page):
    s = apply(start(), Roll((1, 2, 1)))
    best = {"action": {"type": "move", "from": "d1", "to": "d2"}, "text": "Best: Anna moves d1 to d2"}
    show(page, s, hint=best)
    page.click(".pd-hint")
    page.wait_for_selector(".pd-hint-to")
    assert page.locator("[data-square='d2'].pd-hint-to").count() == 1
    assert "Best: Anna" in page.locator(".pd-hint-text").inner_text()


def test_the_view_fits_a_390_px_wide_screen(page):
    for s in (start(), apply(start(), Roll((2, 2, 3))),
              RULES.initial_state({"type": "new_game", "players": ["Anna", "Bob"],
                                   "options": {"width": 9, "height": 12, "dice": "1-6"}})):
        show(page, s)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        box = page.locator(".pd-cell").first.bounding_box()
        assert box["width"] >= 30  # a child's finger still hits a square
    show(page, apply(start(), Roll((1, 2, 1))))
    page.click("[data-square='d1']")
    (ROOT / "artifacts" / "screenshots").mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ROOT / "artifacts" / "screenshots" / "pinuid-dobbal-390.png"), full_page=True)


def test_the_win_is_shown(page):
    o = Options()
    b = o.board()
    mask = [sum(1 << b.index[q] for q in g.split()) for g in ("b6 f1", "e7 f7 d5")]
    s = State(options=o, names=("Anna", "Bob"), pins=(mask[0], mask[1]), play=b.index["c6"])
    s = apply(s, Roll((1, 1, 1)))
    for frm, to in (("b6", "b7"), ("c6", "c7"), ("f1", "f2")):
        s = apply(s, RULES.action_from_json({"type": "move", "from": frm, "to": to}))
    show(page, s)
    assert page.locator(".pd-win").inner_text() == "Anna wins!"
    assert json.loads(json.dumps(view_state(s)["outcome"]))["winners"] == [0]
