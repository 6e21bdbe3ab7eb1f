"""Bad text and deep JSON get a 400 that says why; stored text never fails a page (issue 16 #2, #3)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from companion.session import SessionError, SessionStore
from companion.textcheck import MAX_NAME, name_problem
from web.app import create_app
from web.security import Guard

from .conftest import PIN


@pytest.mark.parametrize("bad, why", [
    ("\ud800", "lone surrogate"), ("A\x00B", "control character"), ("A\nB", "control character"),
    ("\u202eevil", "control character"), ("x" * (MAX_NAME + 1), "at most 40"), ("   ", "empty"),
])
def test_one_player_name_breaks_the_history_for_good(host, bad, why):
    """A bad name is refused with a 400 naming the problem; nothing is stored."""
    body = json.dumps({"version": 1, "players": ["A", bad]})
    r = host.post("/api/game", data=body, content_type="application/json")
    assert r.status_code == 400, r.data
    assert why in r.get_json()["error"] and "players[1]" in r.get_json()["error"]


def test_good_names_are_kept():
    for name in ("Ann", "Zoë", "李雷", "👩‍👩‍👧", "O'Brien-Smith", "x" * MAX_NAME):
        assert name_problem(name) is None, name


def test_the_store_refuses_bad_names_too(tmp_path: Path):
    store = SessionStore(tmp_path)
    with pytest.raises(SessionError, match="lone surrogate"):
        store.start_session("dingo-disc", ["A", "\ud800"], version="1")


def test_pages_never_fail_on_stored_text(tmp_path: Path, controller):
    """A log written before names were checked (a lone surrogate, a control byte) still shows."""
    store = SessionStore(tmp_path)
    sid = store.start_session("dingo-disc", ["A", "B"], version="1")
    store.append_action(sid, {"type": "new_game", "version": 1, "players": ["A", "B"]})
    db = sqlite3.connect(tmp_path / "sessions.db")
    db.execute("UPDATE sessions SET players=? WHERE id=?",
               (json.dumps([{"name": "A", "seat": 0}, {"name": "\ud800\x07", "seat": 1}]), sid))
    db.commit()
    db.close()
    store = SessionStore(tmp_path)
    app = create_app(controller, secret_key=b"k" * 32, guard=Guard(pin=PIN, allowed_hosts={"localhost"}),
                     session_store=store)
    c = app.test_client()
    for path in ("/sessions/", f"/sessions/{sid}", f"/sessions/{sid}/stats", f"/sessions/{sid}/export.json"):
        r = c.get(path)
        assert r.status_code < 500, (path, r.status_code)
    assert "\ufffd" in c.get("/sessions/").get_data(as_text=True)


@pytest.mark.parametrize("path", ["/api/login", "/api/game", "/api/actions"])
def test_deep_json_gives_a_400(client, host, path, caplog):
    body = "[" * 1000 + "]" * 1000
    deep_obj = '{"pin": ' + body + "}"
    for c in (client, host):
        r = c.post(path, data=deep_obj, content_type="application/json", headers={"X-Table-PIN": PIN})
        assert r.status_code == 400, (path, r.status_code, r.data)
        assert "nested" in r.get_json()["error"]
    assert "RecursionError" not in caplog.text and "Traceback" not in caplog.text
