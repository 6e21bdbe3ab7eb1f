"""The hub's Flask app: the page, its JSON, the live stream and the exports (read-only).

Everything is served by the hub itself (no asset from the internet); the page uses the tablet
page's stylesheet (``web/static/app.css``) plus its own ``hub.css``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, render_template, request, send_from_directory

from companion.session.export import GAME_NAMES
from companion.table.hub import sse_frame
from companion.venue import results

TABLET_STATIC = Path(__file__).resolve().parent.parent / "static"


def create_hub_app(
    view: Any, receiver: Any = None, *, venue: str = "", since_hours: float = 12.0, heartbeat_s: float = 15.0
) -> Flask:
    """The app around a :class:`companion.venue.view.LiveView` (and the receiver, for its status)."""
    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.config.update(JSON_SORT_KEYS=False, MAX_CONTENT_LENGTH=4096)

    def games() -> list[dict[str, Any]]:
        hours = request.args.get("since_hours", type=float)
        window = since_hours if hours is None else hours
        return view.store.games(since=time.time() - window * 3600 if window > 0 else None)

    def broker() -> dict[str, Any]:
        if receiver is None:
            return {"connected": False, "problem": "no broker"}
        return {
            "connected": receiver.connected.is_set(),
            "problem": receiver.problem,
            "received": receiver.received,
            "duplicates": receiver.duplicates,
            "rejected": receiver.rejected,
        }

    @app.after_request
    def _headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; "
            "img-src 'self' data:; frame-ancestors 'none'",
        )
        return resp

    @app.get("/")
    def index() -> Response:
        resp = Response(render_template("hub.html", venue=venue or "every venue"))
        resp.headers["Cache-Control"] = "no-cache"
        return resp

    @app.get("/tablet.css")
    def tablet_css() -> Response:
        return send_from_directory(TABLET_STATIC, "app.css")

    @app.get("/healthz")
    def healthz() -> Any:
        return {"ok": True, "broker": broker(), **view.store.counts()}

    @app.get("/api/tables")
    def tables() -> Any:
        return jsonify(
            {"venue": venue or None, "now": time.time(), "broker": broker(), "tables": view.tables()}
        )

    @app.get("/api/results")
    def results_api() -> Any:
        played = [{**g, "title": GAME_NAMES.get(str(g.get("game")), g.get("game"))} for g in games()]
        return jsonify({"games": played, "standings": results.standings(played), "since_hours": since_hours})

    @app.get("/api/stream")
    def stream() -> Response:
        def frames() -> Any:
            sub = view.hub.subscribe()
            try:
                yield "retry: 2000\n\n"
                yield sse_frame("snapshot", {"tables": view.tables(), "broker": broker(), "now": time.time()})
                while True:
                    item = sub.get(heartbeat_s)
                    if item is None:
                        yield sse_frame("broker", broker())
                        continue
                    if item.kind == "closed":
                        return
                    yield item.frame
            finally:
                view.hub.unsubscribe(sub)

        return Response(
            frames(),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @app.get("/export/results.json")
    def export_json() -> Response:
        body = json.dumps(results.export_json(games(), venue), indent=2)
        return _download(body, "application/json", "venue-results.json")

    @app.get("/export/results.csv")
    def export_csv() -> Response:
        return _download(results.export_csv(games()), "text/csv", "venue-results.csv")

    @app.get("/export/bgstats.json")
    def export_bgstats() -> Response:
        body = json.dumps(results.export_bgstats(games()), indent=2)
        return _download(body, "application/json", "venue-bgstats.json")

    @app.errorhandler(404)
    def _not_found(_exc: Any) -> Any:
        return jsonify({"error": f"no such page: {request.path}"}), 404

    return app


def _download(body: str, mimetype: str, name: str) -> Response:
    resp = Response(body, mimetype=mimetype)
    resp.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return resp
