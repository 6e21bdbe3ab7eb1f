"""``POST /api/pin``: the host changes the table PIN; every host session (this one too) ends."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, session

from companion.table.controller import RequestError
from web.security import validate_pin, write_private


def add_pin_route(bp: Blueprint, host_required: Callable[..., Any]) -> None:
    """Register the route on the ``/api`` blueprint."""

    @bp.post("/pin")
    @host_required
    def change_pin() -> Response:
        body = request.get_json(silent=True)
        if not isinstance(body, dict) or set(body) != {"pin"} or not isinstance(body["pin"], str):
            raise RequestError("body must be {\"pin\": \"<4 to 12 digits>\"}")
        try:
            pin = validate_pin(body["pin"])
        except ValueError as exc:
            raise RequestError(str(exc)) from None
        ctx = current_app.extensions["dingo"]
        pin_file: Path | None = ctx.get("pin_file")
        if pin_file is not None:
            write_private(pin_file, pin.encode())
        ctx["guard"].change_pin(pin)
        session.clear()
        return jsonify({"host": False, "message": "PIN changed; every host session has ended, log in again"})
