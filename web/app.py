"""The Flask app of the tablet page: page, JSON API, event stream, access control.

``create_app(controller, secret_key=..., guard=...)`` builds one app around one
:class:`companion.table.TableController`; nothing is kept at module level.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from companion.table.controller import RequestError
from web.jsonlimits import LimitedJSONProvider
from web.security import AccessError, Guard

log = logging.getLogger(__name__)

WEB_DIR = Path(__file__).resolve().parent
OPENAPI_PATH = WEB_DIR / "openapi.yaml"


class SafeResponse(Response):
    """A response whose text body never fails to encode (stored text from an old log may not be UTF-8)."""

    def set_data(self, value: bytes | str) -> None:
        """Set the body; ``str`` is encoded with unencodable characters replaced."""
        if isinstance(value, str):
            value = value.encode("utf-8", "replace")
        super().set_data(value)


def create_app(
    controller: Any,
    *,
    secret_key: bytes,
    guard: Guard,
    session_store: Any = None,
    heartbeat_s: float = 15.0,
    calibration: Any = None,
    view_dirs: list[Any] | None = None,
) -> Flask:
    """Build the app; ``session_store`` (a SessionStore) adds the history pages if available.

    ``calibration``: the table's calibration wizard (``companion.table.calwizard``), if any.
    ``view_dirs``: more directories of game views besides ``web/static/games`` (``web.views``).
    """
    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.response_class = SafeResponse
    app.json = LimitedJSONProvider(app)
    app.config.update(
        SECRET_KEY=secret_key,
        SESSION_COOKIE_NAME="dingo_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        PERMANENT_SESSION_LIFETIME=timedelta(days=1),
        MAX_CONTENT_LENGTH=64 * 1024,
        JSON_SORT_KEYS=False,
    )
    app.extensions["dingo"] = {"controller": controller, "guard": guard, "heartbeat_s": heartbeat_s,
                               "calibration": calibration, "view_dirs": list(view_dirs or []),
                               "store": session_store}

    from web.api import api_blueprint
    from web.pages import pages_blueprint
    from web.views import views_blueprint

    app.register_blueprint(pages_blueprint())
    app.register_blueprint(views_blueprint())
    app.register_blueprint(api_blueprint())
    _register_sessions(app, session_store)

    @app.before_request
    def _check_host_and_origin() -> Response | None:
        try:
            guard.check_host(request.host)
            if request.method not in ("GET", "HEAD", "OPTIONS"):
                guard.check_origin(request.headers.get("Origin"), request.host)
        except AccessError as exc:
            return _access_error(exc)
        return None

    @app.after_request
    def _headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        if request.blueprint in ("pages", "api", "views"):  # other blueprints set their own policy
            resp.headers.setdefault(
                "Content-Security-Policy",
                "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                "connect-src 'self'; frame-ancestors 'none'",
            )
        return resp

    @app.errorhandler(RequestError)
    def _request_error(exc: RequestError) -> Response:
        return _error(exc.status, exc.message, **exc.extra)

    @app.errorhandler(AccessError)
    def _access_error(exc: AccessError) -> Response:
        resp = _error(exc.status, exc.message)
        if exc.retry_after is not None:
            resp.headers["Retry-After"] = str(exc.retry_after)
        return resp

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Response:
        resp = _error(exc.code or 500, exc.description or exc.name)
        for name, value in exc.get_headers():  # e.g. Allow on a 405
            if name.lower() != "content-type":
                resp.headers[name] = value
        return resp

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        log.exception("unexpected error in %s %s", request.method, request.path)
        return _error(500, f"internal error: {type(exc).__name__}")

    return app


def _error(status: int, message: str, **extra: Any) -> Response:
    resp = jsonify({"error": message, **extra})
    resp.status_code = status
    return resp


def _register_sessions(app: Flask, store: Any) -> None:
    """Mount the session-history blueprint of ``web.sessions`` when it and a store are present."""
    if store is None:
        return
    try:
        from web import sessions
    except ImportError:
        log.info("web.sessions not available: no history pages")
        return
    if not hasattr(sessions, "create_blueprint"):
        log.info("web.sessions has no create_blueprint yet: no history pages")
        return
    try:
        app.register_blueprint(sessions.create_blueprint(store))
        app.extensions["dingo"]["history"] = True
    except Exception:  # noqa: BLE001 - the live table must run without the history pages
        log.exception("web.sessions blueprint failed to register")
