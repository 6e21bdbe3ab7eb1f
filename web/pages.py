"""The tablet page itself (one HTML page; everything else is fetched from the JSON API)."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, render_template


def pages_blueprint() -> Blueprint:
    """The ``/`` route."""
    bp = Blueprint("pages", __name__)

    @bp.get("/")
    def index() -> Response:
        history = bool(current_app.extensions["dingo"].get("history"))
        resp = Response(render_template("index.html", history=history))
        resp.headers["Cache-Control"] = "no-cache"
        return resp

    @bp.get("/healthz")
    def healthz() -> dict:
        return {"ok": True}

    return bp
