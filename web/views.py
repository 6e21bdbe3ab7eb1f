"""The games' own views on the tablet page: ``web/static/games/<name>.js`` (and ``.css``).

A game module may ship a plain-JS view (see docs/architecture.md, "How to add a game"); the page
asks ``GET /api/games`` which games have one and loads it from ``/game-views/<name>.js``. Other
directories can be added with ``create_app(..., view_dirs=[...])`` (tests use one).
"""

from __future__ import annotations

import re
from pathlib import Path

from flask import Blueprint, Response, abort, current_app, send_from_directory

VIEWS_DIR = Path(__file__).resolve().parent / "static" / "games"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,60}\.(js|css)$")


def _dirs() -> list[Path]:
    extra = current_app.extensions["dingo"].get("view_dirs") or []
    return [*map(Path, extra), VIEWS_DIR]


def _find(filename: str) -> Path | None:
    if not _NAME.match(filename):
        return None
    return next((d for d in _dirs() if (d / filename).is_file()), None)


def view_urls(name: str) -> dict[str, str | None]:
    """``{"view": url or None, "css": url or None}`` for game ``name``."""
    out: dict[str, str | None] = {}
    for kind, ext in (("view", "js"), ("css", "css")):
        found = _find(f"{name}.{ext}")
        out[kind] = f"/game-views/{name}.{ext}" if found is not None else None
    return out


def views_blueprint() -> Blueprint:
    """``/game-views/<name>.js|.css``: the games' view files (served by the Pi, no internet)."""
    bp = Blueprint("views", __name__)

    @bp.get("/game-views/<filename>")
    def view(filename: str) -> Response:
        directory = _find(filename)
        if directory is None:
            abort(404, description=f"no game view {filename!r}")
        resp = send_from_directory(directory, filename, max_age=0)
        resp.headers["Cache-Control"] = "no-cache"
        return resp

    return bp
