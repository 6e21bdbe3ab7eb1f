"""Schemathesis against the running server (waitress + stream server), positive and negative data.

Fails on any 5xx and on any response the OpenAPI file does not allow (status, content type,
headers, body schema). Bounded: ``DINGO_SCHEMA_EXAMPLES`` examples per operation and mode (CI: 15).
"""

from __future__ import annotations

import os
import threading

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from web.app import create_app
from web.security import Guard, PinThrottle
from web.server import make_server

from .conftest import PIN

EXAMPLES = int(os.environ.get("DINGO_SCHEMA_EXAMPLES", "15"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_headers_conformance, response_schema_conformance]
# Stricter: schema-valid data accepted, schema-violating data refused. Not yet all true (see
# docs/api.md, "Where the OpenAPI file is looser than the server"); run with DINGO_SCHEMA_STRICT=1.
if os.environ.get("DINGO_SCHEMA_STRICT"):
    CHECKS += [positive_data_acceptance, negative_data_rejection]
SKIP = {"/api/events", "/api/pin", "/api/openapi.yaml"}  # a stream; a PIN change locks the run out


@pytest.fixture(scope="module")
def server():
    import random

    from companion.table.controller import TableController
    from companion.table.game import DingoDiscGame

    from .conftest import FakeSimulator, Header

    controller = TableController(DingoDiscGame(), simulator=FakeSimulator(), header=Header(),
                                 rng=random.Random(5), sensing=lambda: {"cop_mm": None, "tilt": 0.0})
    guard = Guard(pin=PIN, throttle=PinThrottle(max_failures=10**9, global_burst=10**9))
    app = create_app(controller, secret_key=b"k" * 32, guard=guard)
    srv, streams = make_server(app, host="127.0.0.1", port=0, controller=controller, guard=guard, threads=4)
    threading.Thread(target=srv.run, daemon=True).start()
    yield f"http://127.0.0.1:{int(srv.effective_port)}"
    streams.stop()
    srv.close()
    srv.task_dispatcher.shutdown()


def _operations(base: str):
    schema = schemathesis.openapi.from_url(f"{base}/api/openapi.yaml")
    schema.config.base_url = base
    for result in schema.get_all_operations():
        op = result.ok()
        if op.path not in SKIP:
            yield op


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_the_openapi_file_and_the_server_agree(server, mode, record_property):
    failures: list[str] = []
    count = 0
    for op in _operations(server):
        @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
                  database=None)
        @given(case=op.as_strategy(generation_mode=mode))
        def run(case):
            nonlocal count
            count += 1
            try:
                case.call_and_validate(base_url=server, headers={"X-Table-PIN": PIN}, checks=CHECKS)
            except Exception as exc:  # noqa: BLE001 - collect every disagreement, then fail once
                failures.append(f"{case.method} {case.path}: {str(exc).splitlines()[0][:300]}")
                raise

        try:
            run()
        except Exception as exc:  # noqa: BLE001
            name = type(exc).__name__
            if name in ("Unsatisfiable",) or "no negative" in str(exc).lower():
                continue  # nothing negative to generate for this operation
            if not any(f.startswith(f"{op.method.upper()} {op.path}") for f in failures):
                failures.append(f"{op.method.upper()} {op.path}: {name}: {str(exc).splitlines()[0][:300]}")
    record_property("cases", count)
    print(f"schemathesis {mode.value}: {count} cases, {len(failures)} failing")
    assert not failures, "\n".join(sorted(set(failures))[:30])
