"""schemathesis against the served OpenAPI spec: no 5xx for any input, and
every response matches its documented schema. The app is built by a fixture
when the test runs, never at import (collecting the tests starts nothing);
schemathesis is imported there too, and its pytest plugin is not loaded
(pyproject.toml): a second of every pytest run's start-up, none of it used."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from tests.apps import embedded_app


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    import schemathesis

    folder: Path = tmp_path_factory.mktemp("fuzz")
    app = embedded_app(folder, run_projections=True)
    yield schemathesis.openapi.from_wsgi("/openapi.json", app).exclude(
        path_regex=r".*/events$"  # a live stream: it ends only with its game
    )
    app.extensions["opus"].close()


def test_no_input_gives_a_server_error_and_responses_match_the_spec(api_schema: Any) -> None:
    import schemathesis

    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) > 15
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
        def check(case: schemathesis.Case) -> None:
            case.call_and_validate()

        check()
