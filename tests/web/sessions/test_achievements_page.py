"""The statistics page shows each game's achievements from the logged games (Dodos Riding Dinos)."""

from __future__ import annotations

import random
from pathlib import Path

from flask import Flask

from companion.games import get_game
from companion.games.match import GameMatch
from companion.session import SessionStore
from web.sessions import create_blueprint

SETUP = {"type": "new_game", "game": "dodos-riding-dinos", "players": ["Ana", "Ben", "Cleo"], "options": {}}


def _random_finished_race(seed: int) -> GameMatch | None:
    rules = get_game("dodos-riding-dinos")
    rng = random.Random(seed)
    match = GameMatch(rules, rules.action_from_json(SETUP))
    for _ in range(3000):
        if rules.outcome(match.state) is not None:
            return match
        match.apply(rng.choice(rules.legal_actions(match.state)).action)
    return None


def test_stats_page_lists_the_achievements_a_logged_race_earned(tmp_path: Path):
    rules = get_game("dodos-riding-dinos")
    for seed in range(40):  # a seeded random race whose winner earned an achievement
        match = _random_finished_race(seed)
        if match is None:
            continue
        got = rules.achievements([match.state.to_json()])
        if any(got.values()):
            break
    else:
        raise AssertionError("no random race in 40 seeds earned an achievement")
    name, earned = next((n, f) for n, f in got.items() if f)
    store = SessionStore(tmp_path)
    history = match.to_json()["actions"]
    sid = store.start_session("dodos-riding-dinos", setup=history[0], started_at=1_790_000_000.0)
    for action in history[1:]:
        store.append_action(sid, action)
    store.end_session(sid)
    app = Flask(__name__)
    app.register_blueprint(create_blueprint(store), url_prefix="/sessions")
    page = app.test_client().get("/sessions/stats").get_data(as_text=True)
    assert "Achievements: Dodos Riding Dinos" in page
    assert f"<td>{name}</td>" in page
    for feat in earned:
        assert rules.achievement_labels[feat] in page
    assert "Not tracked (the log cannot tell)" in page
    store.close()
