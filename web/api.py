"""The JSON API (``/api/...``) the page uses; documented in ``web/openapi.yaml`` and docs/api.md."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, session, stream_with_context

from companion.table.controller import RequestError
from web.security import AccessError, Guard, new_csrf_token, tokens_equal
from web.sse import stream


def _ctx() -> dict:
    return current_app.extensions["dingo"]


def _controller() -> Any:
    return _ctx()["controller"]


def _guard() -> Guard:
    return _ctx()["guard"]


def is_host() -> bool:
    """True if this request comes from a logged-in host session."""
    return (bool(session.get("host")) and isinstance(session.get("csrf"), str)
            and _guard().sessions.valid(session.get("sid")))


def host_required(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Allow the request only with the table PIN header, or a host cookie plus its CSRF token."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        pin = request.headers.get("X-Table-PIN")
        if pin is not None:
            if not _guard().pin_matches(pin, request.remote_addr or "?"):
                raise AccessError(403, "wrong table PIN")
        elif is_host():
            if not tokens_equal(request.headers.get("X-CSRF-Token"), session.get("csrf")):
                raise AccessError(403, "missing or wrong X-CSRF-Token header (reload the page)")
        else:
            raise AccessError(401, "changing the game needs the table PIN: log in as host first")
        return fn(*args, **kwargs)

    return wrapper


def json_body(required: bool = True) -> dict:
    """The request's JSON object body, or a 400/415 naming the problem."""
    if not request.get_data(cache=True):
        if required:
            raise RequestError("request body must be a JSON object")
        return {}
    if not request.is_json:
        raise RequestError("Content-Type must be application/json", 415)
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise RequestError("request body must be a JSON object")
    return data


def api_blueprint() -> Blueprint:
    """The ``/api`` routes."""
    bp = Blueprint("api", __name__, url_prefix="/api")

    @bp.get("/state")
    def state() -> Response:
        return jsonify(_controller().message())

    @bp.get("/games")
    def games() -> Response:
        from web.views import view_urls

        out = []
        for game in _controller().games():
            out.append({**game, **view_urls(game["name"])})
        return jsonify({"games": out})

    @bp.get("/recent-players")
    def recent_players() -> Response:
        """The players of the latest games on this table (names kept in the session log), newest first."""
        store, names = _ctx().get("store"), []
        if store is not None:
            try:
                for info in store.list_sessions(limit=20):
                    for p in info.players:
                        name = str(p.get("name", "")).strip()
                        if name and name not in names:
                            names.append(name)
            except Exception:  # noqa: BLE001 - a damaged log must not stop the start screen
                names = []
        last = []
        if store is not None:
            try:
                latest = store.list_sessions(limit=1)
                last = [str(p.get("name", "")) for p in latest[0].players] if latest else []
            except Exception:  # noqa: BLE001
                last = []
        return jsonify({"names": names[:12], "last": last})

    @bp.get("/events")
    def events() -> Response:
        heartbeat = _ctx()["heartbeat_s"]
        max_s = request.args.get("max_s", type=float)
        if _ctx().get("streams") is not None:  # web.server diverts streams; a pipelined one lands here
            max_s = min(max_s or 2.0, 2.0)  # short: the page reconnects on a connection of its own
        gen = stream_with_context(stream(_controller(), heartbeat_s=heartbeat, max_s=max_s))
        resp = Response(gen, mimetype="text/event-stream")
        resp.headers["Cache-Control"] = "no-cache"
        resp.headers["X-Accel-Buffering"] = "no"
        return resp

    @bp.get("/whoami")
    def whoami() -> Response:
        host = is_host()
        return jsonify({"host": host, "csrf_token": session.get("csrf") if host else None,
                        "mode": _controller().mode})

    @bp.post("/login")
    def login() -> Response:
        body = json_body()
        pin = body.get("pin")
        if not isinstance(pin, str):
            raise RequestError("'pin' must be a string of digits")
        if not _guard().pin_matches(pin, request.remote_addr or "?"):
            raise AccessError(403, "wrong table PIN")
        _guard().sessions.revoke(session.get("sid"))
        session.clear()
        session.permanent = True
        session["host"] = True
        session["sid"] = _guard().sessions.new()
        session["csrf"] = new_csrf_token()
        return jsonify({"host": True, "csrf_token": session["csrf"]})

    @bp.post("/logout")
    def logout() -> Response:
        _guard().sessions.revoke(session.get("sid"))  # the cookie no longer works, even replayed
        session.clear()
        return jsonify({"host": False})

    @bp.post("/game")
    @host_required
    def new_game() -> Response:
        return jsonify(_controller().new_game(json_body()))

    @bp.post("/abandon")
    @host_required
    def abandon() -> Response:
        return jsonify(_controller().abandon())

    @bp.post("/actions")
    @host_required
    def actions() -> Response:
        return jsonify(_controller().apply(json_body()))

    @bp.post("/undo")
    @host_required
    def undo() -> Response:
        return jsonify(_controller().undo())

    @bp.post("/roll")
    @host_required
    def roll() -> Response:
        body = json_body(required=False)
        if body:
            return jsonify(_controller().enter_roll(body))
        return jsonify(_controller().roll())

    @bp.post("/hint")
    @host_required
    def hint() -> Response:
        from companion.table.computer import hint

        return jsonify(hint(_controller()))

    @bp.post("/computer")
    @host_required
    def computer() -> Response:
        from companion.table.computer import computer_move

        strength = json_body(required=False).get("strength", "mcts")
        return jsonify(computer_move(_controller(), str(strength)))

    @bp.post("/prompts/<prompt_id>")
    @host_required
    def answer_prompt(prompt_id: str) -> Response:
        body = json_body()
        choice = body.get("choice")
        if not isinstance(choice, str):
            raise RequestError("'choice' must be a string")
        pawns = body.get("pawns")  # counts by size, for a choice answered with counts
        return jsonify(_controller().resolve_prompt(prompt_id, choice, pawns=pawns))

    @bp.post("/panel/<button>")
    @host_required
    def panel(button: str) -> Response:
        return jsonify(_controller().press_button(button))

    @bp.post("/sim/<command>")
    @host_required
    def sim(command: str) -> Response:
        return jsonify(_controller().sim_command(command, json_body(required=False)))

    from web.calibration import add_calibration_routes
    from web.pinroute import add_pin_route
    from web.share import add_share_routes

    add_share_routes(bp)
    add_calibration_routes(bp)
    add_pin_route(bp, host_required)

    @bp.get("/openapi.yaml")
    def openapi() -> Response:
        from web.app import OPENAPI_PATH

        return Response(OPENAPI_PATH.read_text(encoding="utf-8"), mimetype="application/yaml")

    return bp
