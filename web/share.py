"""Where to open the page: ``GET /api/share`` (the URLs) and ``GET /api/share/qr.svg`` (a QR code).

The QR code is drawn on the Pi (``companion.service``), so the page needs nothing from outside.
The addresses come from the address the server listens on (set by ``dingo-companion run`` in
``app.extensions["dingo"]["listen"]``); without it, from the port the request came in on.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from companion.table.controller import RequestError


def _listen() -> tuple[str, int]:
    """``(listen host, port)`` of the server, or a wildcard host and the request's port."""
    listen = current_app.extensions["dingo"].get("listen")
    if listen:
        return str(listen[0]), int(listen[1])
    host = request.host
    port_text = host.rsplit(":", 1)[1] if ":" in host and not host.endswith("]") else ""
    port = int(port_text) if port_text.isdigit() else (443 if request.scheme == "https" else 80)
    return "0.0.0.0", port


def share_target() -> dict[str, Any]:
    """``{"url", "urls"}``: the URL for the QR code (a numeric address if any) and all of them."""
    from companion.service.addresses import page_urls
    from companion.service.banner import qr_target

    host, port = _listen()
    try:
        urls = page_urls(port, host)
        return {"url": qr_target(urls), "urls": urls}
    except (ValueError, OSError) as exc:
        raise RequestError(f"cannot tell the page's address: {exc}", 503) from exc


def add_share_routes(bp: Blueprint) -> None:
    """Add ``/share`` and ``/share/qr.svg`` to the API blueprint (public: watching is open)."""

    @bp.get("/share")
    def share() -> Response:
        resp = jsonify(share_target())
        resp.headers["Cache-Control"] = "no-cache"
        return resp

    @bp.get("/share/qr.svg")
    def share_qr() -> Response:
        from companion.service.qr import qr_svg

        url = share_target()["url"]
        resp = Response(qr_svg(url, title=f"QR code: {url}"), mimetype="image/svg+xml")
        resp.headers["Cache-Control"] = "no-cache"
        return resp
