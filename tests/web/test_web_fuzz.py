"""Fuzzing the API from its own OpenAPI schema (schemathesis): no request, however odd, gets a 5xx,
and every error has the one error shape."""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings

from demine.web.app import create_app
from demine.web.limits import ServeLimits

# rates off: the fuzzer is one client sending thousands of requests
APP = create_app(
    limits=ServeLimits(games=None, moves=None, hints=None, analyses=None, views=None, exports=None)
)
schema = schemathesis.openapi.from_asgi("/api/openapi.json", APP)


@schema.parametrize()
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_request_gets_a_server_error(case: Any) -> None:
    response = case.call()
    assert response.status_code < 500, (case.method, case.formatted_path, case.body, response.text)
    if response.status_code >= 400:
        assert set(response.json()) == {"error"}, response.text
