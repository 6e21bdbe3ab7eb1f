"""The Dodos Riding Dinos tablet view in real headless Chromium, 390 px wide: the track picture, the
table, the entry buttons (a click posts the action), the special-hex prompt as big buttons."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from companion.games.dodos import DodosRules
from companion.games.dodos.actions import ChallengerCard, Reveal

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "web" / "static" / "games"
RULES = DodosRules()

pytestmark = pytest.mark.browser  # skipped where Chromium is absent (conftest.py)


def api_json(state) -> dict:
    """What GET /api/state serves for a game (the platform's shape, per GAMES.md)."""
    return {**state.to_json(),
            "legal": [{"action": la.action.to_json(), "label": la.label, "chance": la.chance}
                      for la in RULES.legal_actions(state)],
            "to_move": RULES.to_move(state).to_json(), "next": RULES.describe_next(state), "outcome": None}


PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<style>body{margin:0;padding:8px;font-family:sans-serif} %s</style></head>
<body><div id="view"></div><script>%s</script><script>
window.sent = [];
window.show = (s) => window.DingoViews["dodos-riding-dinos"].render(s, document.getElementById("view"),
  {send: (a) => window.sent.push(a)});
</script></body></html>"""


@pytest.fixture(scope="module")
def phone(module_browser):
    context = module_browser.new_context(viewport={"width": 390, "height": 844})
    yield context
    context.close()


@pytest.fixture
def page(phone):
    pg = phone.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.set_content(PAGE % ((STATIC / "dodos-riding-dinos.css").read_text(),
                           (STATIC / "dodos-riding-dinos.js").read_text()))
    yield pg, errors
    pg.close()


def show(pg, state) -> None:
    pg.evaluate("s => window.show(s)", api_json(state))


def test_view_draws_the_track_and_a_table_of_every_racer(page):
    pg, errors = page
    s = RULES.initial_state({"type": "new_game", "players": ["Ana", "Ben", "Cleo"],
                             "options": {"track": "ignis-volcano", "extra_challengers": 2}})
    show(pg, s)
    assert pg.locator(".ddr-table tbody tr").count() == 5
    hexes = s.to_json()["view"]["tracks"]["inner"]["hexes"]
    assert pg.locator("circle.ddr-hex").count() == hexes
    assert pg.locator("circle.ddr-flame").count() == 3
    assert pg.locator(".ddr-token").count() == 5
    assert "★ Ana" in pg.locator(".ddr-table tbody tr").first.inner_text()
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    assert not errors, errors


def test_view_reveal_buttons_post_the_action(page):
    pg, errors = page
    s = RULES.initial_state({"type": "new_game", "players": ["Ana"], "options": {}})
    show(pg, s)
    pg.locator(".ddr-row", has_text="Ana: Aggressive").locator("button", has_text="3").first.click()
    assert pg.evaluate("window.sent") == [Reveal(0, "aggressive", 3).to_json()]
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    assert not errors, errors


def test_view_glass_ramp_prompt_as_big_buttons_and_derby_two_tracks(page):
    pg, errors = page
    s = RULES.initial_state({"type": "new_game", "players": ["Ana"], "options": {"track": "boreal-sky",
                                                                                 "side": "inner"}})
    g = s.dict()
    g["racers"][0]["p"] = 8
    from companion.games.dodos import state_from_json
    s = state_from_json(g)
    s = RULES.apply(s, Reveal(0, "normal", 5))
    s = RULES.apply(RULES.apply(s, ChallengerCard(1, "normal", 0)), ChallengerCard(2, "normal", 0))
    assert s.dict()["prompt"]["kind"] == "glass"
    show(pg, s)
    assert pg.locator("button.ddr-big").count() == 4
    pg.locator("button", has_text="Egg missed").click()
    assert pg.evaluate("window.sent") == [{"type": "glass_jump", "landing": None}]
    d = RULES.initial_state({"type": "new_game", "players": list("ABCDEFGH"), "options": {}})
    show(pg, d)
    assert pg.locator(".ddr-token").count() == 8 and pg.locator(".ddr-table tbody tr").count() == 8
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    if os.environ.get("DODOS_SHOT"):
        pg.screenshot(path=os.environ["DODOS_SHOT"], full_page=True)
    assert not errors, errors


def test_view_window_two_big_buttons_then_one_row_per_racer(page):
    pg, errors = page
    s = RULES.initial_state({"type": "new_game", "players": ["Ana", "Ben"], "options": {}})
    for a in (Reveal(0, "normal", 2), Reveal(1, "normal", 1), ChallengerCard(2, "normal", 1)):
        s = RULES.apply(s, a)
    show(pg, s)
    assert pg.locator("button.ddr-big").all_inner_texts() == ["End the turn", "Reactions and effects…"]
    pg.locator("button", has_text="Reactions and effects").click()
    assert pg.evaluate("window.sent") == [{"type": "open_entries"}]
    from companion.games.dodos.actions import OpenEntries
    show(pg, RULES.apply(s, OpenEntries()))
    assert pg.locator("button.ddr-big").all_inner_texts() == ["End the turn"]
    ben = pg.locator(".ddr-row").filter(has=pg.locator(".ddr-row-label", has_text=re.compile("^Ben$")))
    ben.locator("button", has_text="takes 2 damage").click()
    assert pg.evaluate("window.sent")[-1] == {"type": "damage", "racer": 1, "cards": 2}
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390
    assert not errors, errors
