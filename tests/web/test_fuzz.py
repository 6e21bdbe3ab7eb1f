"""Fuzz every documented operation of web/openapi.yaml against the app: no request gives a 5xx.

Schemathesis generates the requests from the OpenAPI file (so the file and the app must agree);
hypothesis drives each operation in turn.
"""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

PIN = "4321"  # as in conftest.py
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def operations(app, method=None):
    schema = schemathesis.openapi.from_wsgi("/api/openapi.yaml", app)
    for result in schema.get_all_operations():
        op = result.ok()
        if op.path == "/api/events":  # a stream; covered by test_api and the browser tests
            continue
        if method is None or op.method.upper() == method:
            yield op


def test_no_server_error_as_host(controller):
    """As the host (every state-changing route reachable), any input gives a 2xx/4xx answer."""
    from web.app import create_app
    from web.security import Guard

    # no PIN lock-out here: fuzzing /api/login with wrong PINs must not lock the other routes out
    app = create_app(controller, secret_key=b"k" * 32,
                     guard=Guard(pin=PIN, allowed_hosts={"localhost"}, max_failures=10**9))
    ops = list(operations(app))
    assert len(ops) == 18  # every route of openapi.yaml but the stream
    statuses: dict[str, set[int]] = {}
    for op in ops:
        @FUZZ
        @given(case=op.as_strategy())
        def run(case):
            response = case.call_and_validate(headers={"X-Table-PIN": PIN}, checks=[not_a_server_error])
            statuses.setdefault(f"{case.method} {case.path}", set()).add(response.status_code)

        run()
    # the fuzzer got through to the game, not only to the validation errors
    ok = {route for route, codes in statuses.items() if 200 in codes}
    assert {"GET /api/state", "POST /api/game", "POST /api/sim/{command}"} <= ok, statuses


def test_watchers_cannot_change_anything(app, controller):
    """Without the PIN or a cookie no POST changes the table (only login/logout may answer 2xx)."""
    for op in operations(app, "POST"):
        @settings(FUZZ, max_examples=15)
        @given(case=op.as_strategy())
        def run(case):
            before = controller.version
            response = case.call()
            assert response.status_code < 500, response.text
            if case.path not in ("/api/login", "/api/logout"):
                assert 400 <= response.status_code < 500, (case.path, response.text)
            assert controller.version == before

        run()
