"""schemathesis against the served OpenAPI spec: no 5xx for any input, and
every response matches its documented schema."""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings

from api.app import create_app

_app = create_app(
    {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(Path(tempfile.mkdtemp()) / "events.db"),
        "REDIS_URL": None,
        "OPUS_RUN_PROJECTIONS": "1",
    }
)
schema = schemathesis.openapi.from_wsgi("/openapi.json", _app).exclude(
    path_regex=r".*/events$"  # a live stream: it ends only with its game
)


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_gives_a_server_error_and_responses_match_the_spec(
    case: schemathesis.Case,
) -> None:
    case.call_and_validate()
