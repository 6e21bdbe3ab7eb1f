"""The host's calibration wizard on the page: ``/api/calibration`` (status) and its steps.

``GET /api/calibration`` shows where the wizard is; ``POST /api/calibration/start``
(``{"weight_g"}``), ``/read`` (take the current step's reading), ``/save`` and ``/cancel``
drive it. All need the host. The wizard is ``companion.table.calwizard.CalibrationWizard``.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from companion.table.errors import RequestError


def _wizard() -> Any:
    wizard = current_app.extensions["dingo"].get("calibration")
    if wizard is None:
        raise RequestError("no calibration here: the companion does not read a live table "
                           "(a recorded trace cannot be calibrated)", 404)
    return wizard


def _call(fn: Any, *args: Any) -> Response:
    from companion.table.calwizard import WizardError

    try:
        return jsonify(fn(*args))
    except WizardError as exc:
        raise RequestError(exc.message, exc.status) from exc


def add_calibration_routes(bp: Blueprint) -> None:
    """Add the wizard's routes to the API blueprint (host only)."""
    from web.api import host_required, json_body

    @bp.get("/calibration")
    @host_required
    def calibration_status() -> Response:
        return _call(_wizard().status)

    @bp.post("/calibration/start")
    @host_required
    def calibration_start() -> Response:
        return _call(_wizard().start, json_body().get("weight_g"))

    @bp.post("/calibration/read")
    @host_required
    def calibration_read() -> Response:
        return _call(_wizard().read)

    @bp.post("/calibration/save")
    @host_required
    def calibration_save() -> Response:
        return _call(_wizard().save)

    @bp.post("/calibration/cancel")
    @host_required
    def calibration_cancel() -> Response:
        return _call(_wizard().cancel)
