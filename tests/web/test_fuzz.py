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


def documented_operations() -> int:
    """How many operations web/openapi.yaml documents (the stream included)."""
    from pathlib import Path

    import yaml

    doc = yaml.safe_load((Path(__file__).parents[2] / "web" / "openapi.yaml").read_text())
    methods = {"get", "post", "put", "patch", "delete"}
    return sum(1 for item in doc["paths"].values() for m in item if m in methods)


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
    from web.security import Guard, PinThrottle

    # no PIN lock-out here: fuzzing /api/login with wrong PINs must not lock the other routes out
    app = create_app(controller, secret_key=b"k" * 32,
                     guard=Guard(pin=PIN, allowed_hosts={"localhost"},
                                 throttle=PinThrottle(max_failures=10**9, global_burst=10**9)))
    # a PIN change would lock the rest of the run out: /api/pin has its own tests
    ops = [op for op in operations(app) if op.path != "/api/pin"]
    # every route of openapi.yaml but the stream, the PIN change and the schema file
    assert len(ops) == documented_operations() - 3
    statuses: dict[str, set[int]] = {}
    for op in ops:
        @FUZZ
        @given(case=op.as_strategy())
        def run(case):
            response = case.call_and_validate(headers={"X-Table-PIN": PIN}, checks=[not_a_server_error])
            statuses.setdefault(f"{case.method} {case.path}", set()).add(response.status_code)

        run()
    # the fuzzer got through to the game, not only to the validation errors
    # (a 409 is the rules core's own refusal, e.g. two players of the same name: past validation)
    ok = {route for route, codes in statuses.items() if codes & {200, 409}}
    assert {"GET /api/state", "POST /api/game", "POST /api/sim/place", "POST /api/sim/fault"} <= ok, statuses


def _logged_sessions(data_dir):
    """A session log with a finished game (actions, events, a raw trace) and an unfinished one."""
    from companion.sensing.trace import CellSpec, Sample, TraceHeader
    from companion.session import SessionStore

    cells = tuple(CellSpec(x, y, 1000, 100) for x, y in ((120, 0), (0, 120), (-120, 0), (0, -120)))
    header = TraceHeader(rate_hz=80, cells=cells, pawn_mass_g={"small": 2.1, "medium": 4.6, "large": 7.9})
    store = SessionStore(data_dir, chunk_ms=1000)
    a = store.start_session("dingo-disc", ["Ann", "Bob"], version="1", header=header)
    store.append_action(a, {"type": "roll", "number": 4, "colour": "blue"})
    placed = {"event": "placed", "t_ms": 500, "size": "large", "zone": "blue", "number": 4}
    store.append_action(a, {"type": "place", "size": "large", "sensed": True}, sensed=[placed])
    store.append_events(a, [{"event": "tipped", "t_ms": 900}])
    store.append_samples(a, [Sample(i * 12, (1000 + i % 7, 1000, 1200, 1000)) for i in range(300)])
    store.end_session(a, ranking=[1, 2], outcome={"winner": 0})
    b = store.start_session("dingo-disc", ["Cy", "Dee"], version="1")
    store.append_action(b, {"type": "roll", "number": 2, "colour": "red"})
    return store, a


def _fuzz(op, codes: set[int]) -> None:
    """Fuzz one operation (no credentials); every answer's status goes into ``codes``; no 5xx."""
    @FUZZ
    @given(case=op.as_strategy())
    def run(case):
        codes.add(case.call_and_validate(checks=[not_a_server_error]).status_code)

    run()


def test_no_server_error_on_the_session_routes(controller, tmp_path):
    """With a session log mounted, the /sessions routes answer 2xx/4xx for any id or format."""
    from web.app import create_app
    from web.security import Guard, PinThrottle

    store, logged = _logged_sessions(tmp_path)
    try:
        app = create_app(controller, secret_key=b"k" * 32, session_store=store,
                         guard=Guard(pin=PIN, allowed_hosts={"localhost"},
                                 throttle=PinThrottle(max_failures=10**9, global_burst=10**9)))
        ops = [op for op in operations(app) if op.path.startswith("/sessions")]
        assert len(ops) == 4
        statuses: dict[str, set[int]] = {}
        for op in ops:
            _fuzz(op, statuses.setdefault(op.path, set()))
            # the logged session itself is served (the fuzzer rarely guesses its id)
            path = op.path.replace("{sid}", str(logged)).replace("{fmt}", "json")
            code = app.test_client().get(path, headers={"Host": "localhost"}).status_code
            statuses.setdefault(op.path, set()).add(code)
        assert all(200 in codes for codes in statuses.values()), statuses
        assert all(404 in codes for path, codes in statuses.items() if "{sid}" in path), statuses
    finally:
        store.close()


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
