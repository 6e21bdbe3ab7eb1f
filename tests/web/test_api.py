"""The JSON API with Flask's test client: reading, changing, errors, access control."""

from __future__ import annotations

import json
import random

import pytest

from companion.table.controller import RequestError, TableController
from companion.table.game import DingoDiscGame
from web.app import create_app
from web.security import Guard

PIN = "4321"  # as in conftest.py


def start_game(host, players=("Anna", "Ben", "Cleo")):
    r = host.post("/api/game", json={"version": 1, "players": list(players)})
    assert r.status_code == 200, r.get_json()
    r = host.post("/api/actions", json={"type": "first_player", "seat": 0})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_state_is_open_to_watchers(client):
    r = client.get("/api/state")
    assert r.status_code == 200
    body = r.get_json()
    assert body["state"]["expected"]["kind"] == "new_game"
    assert body["mode"] == "sim" and body["layout"]["zones"][0] == "red"


def test_page_is_served_without_external_resources(client):
    r = client.get("/")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "/static/app.js" in html and "/static/disc.js" in html
    assert "http://" not in html and "https://" not in html  # no CDN, no remote fonts
    for asset in ("/static/app.js", "/static/disc.js", "/static/app.css"):
        text = client.get(asset).get_data(as_text=True)
        assert "https://" not in text and "@import" not in text and "url(http" not in text
    assert "script-src 'self'" in r.headers["Content-Security-Policy"]


def test_changing_needs_the_host(client):
    for path, body in (("/api/actions", {"type": "first_player", "seat": 0}), ("/api/roll", None),
                       ("/api/undo", None), ("/api/game", {"version": 1, "players": ["a", "b"]}),
                       ("/api/sim/knock", None), ("/api/panel/roll", None)):
        r = client.post(path, json=body)
        assert r.status_code == 401, path
        assert "PIN" in r.get_json()["error"]
    assert client.get("/api/state").get_json()["version"] == 0


def test_login_with_wrong_pin_is_refused_and_throttled(client):
    for _ in range(5):
        r = client.post("/api/login", json={"pin": "0000"})
        assert r.status_code == 403
    r = client.post("/api/login", json={"pin": PIN})
    assert r.status_code == 429  # locked out for a while, even with the right PIN


def test_cookie_without_csrf_token_is_refused(app):
    c = app.test_client()
    assert c.post("/api/login", json={"pin": PIN}).status_code == 200
    r = c.post("/api/game", json={"version": 1, "players": ["a", "b"]})
    assert r.status_code == 403 and "CSRF" in r.get_json()["error"]
    r = c.post("/api/game", json={"version": 1, "players": ["a", "b"]}, headers={"X-CSRF-Token": "nope"})
    assert r.status_code == 403


def test_cross_site_origin_is_refused(host):
    r = host.post("/api/roll", headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "cross-site" in r.get_json()["error"]
    r = host.post("/api/game", json={"version": 1, "players": ["a", "b"]}, headers={"Origin": "http://localhost"})
    assert r.status_code == 200


def test_form_posts_are_refused(host):
    r = host.post("/api/actions", data="type=roll", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 415


def test_pin_header_works_for_scripts(client):
    r = client.post("/api/game", json={"version": 1, "players": ["a", "b"]}, headers={"X-Table-PIN": PIN})
    assert r.status_code == 200
    r = client.post("/api/roll", headers={"X-Table-PIN": "9999"})
    assert r.status_code == 403


def test_unknown_host_header_is_refused(client):
    r = client.get("/api/state", headers={"Host": "attacker.example"})
    assert r.status_code == 400 and "Host" in r.get_json()["error"]
    assert client.get("/api/state", headers={"Host": "localhost:8000"}).status_code == 200


def test_whoami_and_logout(host):
    me = host.get("/api/whoami").get_json()
    assert me["host"] is True and me["csrf_token"]
    host.post("/api/logout")
    assert host.get("/api/whoami").get_json() == {"host": False, "csrf_token": None, "mode": "sim"}


def test_a_game_through_the_api(host):
    start_game(host)
    r = host.post("/api/roll", json={"colour": "blue", "number": 4})
    assert r.status_code == 200
    assert r.get_json()["state"]["expected"]["kind"] == "place"
    r = host.post("/api/actions", json={"type": "place", "size": "large"})
    body = r.get_json()
    assert body["state"]["current"] == 1 and body["state"]["players"][0]["supply"]["large"] == 5
    assert body["feed"][0]["text"].startswith("Placed a large pawn")
    r = host.post("/api/undo")
    assert r.get_json()["state"]["expected"]["kind"] == "place"


def test_illegal_action_is_409_with_rule(host):
    start_game(host)
    r = host.post("/api/actions", json={"type": "give", "giver": 2, "size": "small"})
    assert r.status_code == 409
    body = r.get_json()
    assert body["rule"] and body["reason"] and body["error"]


def test_bad_requests_are_4xx_naming_the_problem(host):
    start_game(host)
    cases = [
        ("/api/actions", {"type": "warp"}, "type"),
        ("/api/actions", {"type": "roll", "number": 9, "colour": "red"}, "number"),
        ("/api/actions", [1, 2], "JSON object"),
        ("/api/roll", {"number": "x", "colour": "red"}, "number"),
        ("/api/sim/place", {"size": "huge", "zone": "red", "number": 2}, "size"),
        ("/api/sim/place", {"size": "small", "zone": "red", "number": 9}, "number"),
        ("/api/sim/place", {"size": "small", "x_mm": 500, "y_mm": 0}, "x_mm"),
        ("/api/sim/fault", {"cell": 1, "kind": "melted"}, "kind"),
        ("/api/prompts/p99", {"choice": "x"}, "p99"),
    ]
    for path, body, word in cases:
        r = host.post(path, json=body)
        assert 400 <= r.status_code < 500, (path, body, r.status_code)
        assert word in r.get_json()["error"], (path, r.get_json())
    r = host.post("/api/actions", data="{not json", content_type="application/json")
    assert r.status_code == 400
    assert host.post("/api/sim/teleport").status_code == 404
    assert host.get("/api/nothing").status_code == 404
    assert host.get("/api/nothing").get_json()["error"]


def test_sim_commands_reach_the_simulator(host, controller):
    for path, body in (("/api/sim/place", {"size": "medium", "zone": "blue", "number": 4}),
                       ("/api/sim/place", {"size": "small", "x_mm": 10, "y_mm": -20}),
                       ("/api/sim/press", {"x_mm": 5, "y_mm": 5}), ("/api/sim/bump", None),
                       ("/api/sim/knock", None), ("/api/sim/knock_base", None), ("/api/sim/remove", None),
                       ("/api/sim/slide", None), ("/api/sim/fault", {"cell": 2, "kind": "stuck"})):
        r = host.post(path, json=body)
        assert r.status_code == 200, (path, r.get_json())
    assert [c[0] for c in controller.sim.simulator.calls] == [
        "place_at", "place", "press", "bump", "knock_over", "knock_over", "remove_last", "creep_last",
        "set_fault"]
    assert controller.sim.simulator.calls[0] == ("place_at", "medium", "blue", 4)
    assert controller.sim.simulator.calls[4:6] == [("knock_over",), ("knock_over", True)]  # knock_base


def test_sim_commands_are_404_on_real_hardware(app, host, controller):
    controller.sim = None
    r = host.post("/api/sim/knock")
    assert r.status_code == 404 and "hardware" in r.get_json()["error"]


def test_openapi_file_is_served_and_lists_the_routes(client, app):
    r = client.get("/api/openapi.yaml")
    assert r.status_code == 200
    text = r.get_data(as_text=True)
    served = {rule.rule.replace("<", "{").replace(">", "}") for rule in app.url_map.iter_rules()
              if rule.rule.startswith("/api/")}
    from companion.table.simcontrol import COMMANDS

    served = (served - {"/api/sim/{command}"}) | {f"/api/sim/{c}" for c in COMMANDS}  # one path each
    for path in served:
        assert f"  {path}:" in text, f"{path} is not documented in web/openapi.yaml"


def _frames(resp):
    for chunk in resp.response:
        yield chunk.decode() if isinstance(chunk, bytes) else chunk


def test_event_stream_gives_snapshot_then_changes(app, host):
    resp = app.test_client().get("/api/events?max_s=2", buffered=False)
    assert resp.mimetype == "text/event-stream"
    assert resp.headers["Cache-Control"] == "no-cache"
    frames = _frames(resp)
    assert next(frames).startswith("retry: ")
    snapshot = next(frames)
    assert snapshot.startswith("id: 0\nevent: snapshot\ndata: ")
    start_game(host)
    changes = []
    for frame in frames:
        if "event: change" in frame:
            changes.append(json.loads(frame.split("data: ", 1)[1]))
            if len(changes) == 2:
                break
    assert [c["version"] for c in changes] == [1, 2]
    assert changes[1]["state"]["players"][0]["name"] == "Anna"
    resp.close()


def test_event_stream_sends_heartbeats(app):
    resp = app.test_client().get("/api/events?max_s=0.3", buffered=False)
    frames = list(_frames(resp))
    assert any(f.startswith(": heartbeat") for f in frames)  # heartbeat_s is 0.05 in the fixture


def test_history_pages_are_mounted_with_a_session_log(tmp_path, controller):
    from companion.session import SessionStore
    from web.app import create_app
    from web.security import Guard

    store = SessionStore(tmp_path)
    try:
        app = create_app(controller, secret_key=b"k" * 32, guard=Guard(pin=PIN, allowed_hosts={"localhost"}),
                         session_store=store)
        c = app.test_client()
        assert c.get("/sessions/").status_code == 200
        assert 'href="/sessions/"' in c.get("/").get_data(as_text=True)
    finally:
        store.close()


def test_share_gives_the_page_address_and_its_qr_code(app, client):
    from companion.service.qr import qr_svg

    app.extensions["dingo"]["listen"] = ("127.0.0.1", 8123)
    body = client.get("/api/share").get_json()
    assert body == {"url": "http://127.0.0.1:8123/", "urls": ["http://127.0.0.1:8123/"]}
    resp = client.get("/api/share/qr.svg")
    assert resp.status_code == 200 and resp.mimetype == "image/svg+xml"
    assert resp.get_data(as_text=True) == qr_svg("http://127.0.0.1:8123/", title="QR code: http://127.0.0.1:8123/")
    assert "default-src 'self'" in resp.headers["Content-Security-Policy"]


def test_share_without_a_known_listen_address_uses_the_request_port(client):
    body = client.get("/api/share", headers={"Host": "localhost:8765"}).get_json()
    assert body["urls"] and all(u.endswith(":8765/") for u in body["urls"])
    assert body["url"] in body["urls"]
    page = client.get("/").get_data(as_text=True)
    assert 'id="share-btn"' in page and 'id="share-qr"' in page


def test_undo_after_a_logged_game_ended_reopens_its_session(tmp_path):
    from companion.session import SessionStore

    store = SessionStore(tmp_path)
    controller = TableController(DingoDiscGame(), store=store, rng=random.Random(2))
    app = create_app(controller, secret_key=b"k" * 32, guard=Guard(pin="4321", allowed_hosts={"localhost"}))
    client = app.test_client()
    controller.new_game({"version": 1, "players": ["A", "B"]})
    controller.apply({"type": "first_player", "seat": 0})
    for _ in range(200):
        exp = controller.message()["state"]["expected"]
        if exp["kind"] == "none":
            break
        if exp["kind"] == "roll":
            controller.enter_roll({"colour": "green", "number": 2})
        elif exp["kind"] == "place":
            controller.apply({"type": "place", "size": exp["sizes"][0]})
        else:
            controller.press_button("confirm")
    sid = store.list_sessions()[0].id
    assert store.session(sid).status == "finished"
    assert client.get("/api/state").get_json()["can_undo"] is True
    r = client.post("/api/undo", headers={"X-Table-PIN": "4321", "Host": "localhost"})
    assert r.status_code == 200 and r.get_json()["state"]["phase"] != "over"
    assert store.session(sid).status == "active"  # the log follows: the session goes on
    reopen = [a for a in store.actions(sid) if a.action["type"] == "reopen"]
    assert len(reopen) == 1 and reopen[0].actor == "host"
    store.close()


def _resumed_app(tmp_path):
    """A game logged and left unfinished (the companion 'crashed'), then a new controller resuming it."""
    from companion.session import SessionStore

    store = SessionStore(tmp_path)
    before = TableController(DingoDiscGame(), store=store, rng=random.Random(2))
    before.new_game({"version": 1, "players": ["Anna", "Ben"]})
    before.apply({"type": "first_player", "seat": 1})
    before.enter_roll({"colour": "blue", "number": 4})
    sid, state = before.session_id, before.message()["state"]
    controller = TableController(DingoDiscGame(), store=store, rng=random.Random(2))
    assert controller.resume_unfinished() == sid
    app = create_app(controller, secret_key=b"k" * 32, guard=Guard(pin=PIN, allowed_hosts={"localhost"}))
    return app, store, sid, state


def test_a_resumed_game_carries_on_and_the_host_may_continue(tmp_path):
    app, store, sid, state = _resumed_app(tmp_path)
    client = app.test_client()
    msg = client.get("/api/state").get_json()
    assert msg["state"] == state  # nothing lost, the table carries on
    (prompt,) = msg["pending"]
    assert prompt["kind"] == "resume" and prompt["choices"] == ["Continue", "Abandon"]
    assert prompt["title"].startswith("Continued the unfinished game from ")
    assert f"Session {sid} (Anna, Ben)" in prompt["text"]
    # play goes on with the prompt open; then the host continues and the prompt goes away
    pin = {"X-Table-PIN": PIN, "Host": "localhost"}
    r = client.post("/api/actions", json={"type": "place", "size": "small"}, headers=pin)
    assert r.status_code == 200
    r = client.post(f"/api/prompts/{prompt['id']}", json={"choice": "Continue"}, headers=pin)
    assert r.status_code == 200 and r.get_json()["pending"] == []
    assert store.session(sid).status == "active"
    assert [a["type"] for a in store.effective_actions(sid)][-1] == "place"
    store.close()


def test_abandoning_the_resumed_game_goes_back_to_the_setup(tmp_path):
    app, store, sid, _ = _resumed_app(tmp_path)
    client = app.test_client()
    prompt = client.get("/api/state").get_json()["pending"][0]
    pin = {"X-Table-PIN": PIN, "Host": "localhost"}
    assert client.post(f"/api/prompts/{prompt['id']}", json={"choice": "Abandon"}).status_code == 401
    r = client.post(f"/api/prompts/{prompt['id']}", json={"choice": "Abandon"}, headers=pin)
    assert r.status_code == 200
    msg = r.get_json()
    assert msg["state"]["phase"] == "setup" and msg["state"]["expected"]["kind"] == "new_game"
    assert msg["pending"] == [] and msg["can_undo"] is False
    assert any(f"Abandoned the game (session {sid}" in e["text"] for e in msg["feed"])
    assert store.session(sid).status == "abandoned" and store.unfinished() == []
    # nothing left to abandon; a new game starts in a new session
    assert client.post("/api/abandon", headers=pin).status_code == 409
    r = client.post("/api/game", json={"version": 1, "players": ["C", "D"]}, headers=pin)
    assert r.status_code == 200
    assert store.unfinished()[0].id != sid
    store.close()


def test_abandon_route_gives_up_the_game_in_progress(tmp_path):
    app, store, sid, _ = _resumed_app(tmp_path)
    client = app.test_client()
    pin = {"X-Table-PIN": PIN, "Host": "localhost"}
    assert client.post("/api/abandon").status_code == 401
    r = client.post("/api/abandon", headers=pin)
    assert r.status_code == 200 and r.get_json()["state"]["phase"] == "setup"
    assert store.session(sid).status == "abandoned"
    store.close()


def test_nothing_to_resume_shows_no_prompt(tmp_path):
    from companion.session import SessionStore

    store = SessionStore(tmp_path)
    controller = TableController(DingoDiscGame(), store=store)
    assert controller.resume_unfinished() is None
    assert controller.message()["pending"] == []
    with pytest.raises(RequestError) as err:
        controller.abandon()
    assert err.value.status == 409 and "no game in progress" in err.value.message
    store.close()


def test_sim_commands_refuse_fields_they_do_not_take(host):
    r = host.post("/api/sim/knock", json={"size": "small"})
    assert r.status_code == 400 and "'knock' takes no field 'size'" in r.get_json()["error"]
    r = host.post("/api/sim/fault", json={})
    assert r.status_code == 400 and "cell" in r.get_json()["error"]
