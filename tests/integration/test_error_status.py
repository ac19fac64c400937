"""One status for each error (api/errors.py ``status_of``): every error class
of domain/errors.py, raised in a request, is answered with the same status
by the API's error handling and by the web pages' refusal (``refused``, as
JSON and as a page), and none of them is a 500."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from api.errors import status_of
from api.web.pages import refused
from domain import errors
from domain.errors import OpusError, RuleError
from projections.ports import ViewStoreUnavailableError
from tests.apps import embedded_app

UNKNOWN = "00000000-0000-4000-8000-000000000000"
# Every class the domain raises, found in the module: a new one is walked too.
DOMAIN_ERRORS = sorted(
    (
        cls
        for _, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, OpusError) and cls is not OpusError
    ),
    key=lambda cls: cls.__name__,
)
# The statuses the API documents (README, HTTP API; api/errors.py).
PROMISED = {
    errors.GameNotFoundError: 404,
    errors.TournamentNotFoundError: 404,
    errors.VersionClashError: 409,
    errors.IdempotencyConflictError: 422,
    errors.NotAuthorisedError: 403,
    errors.NotSeatedError: 403,
    errors.OutOfTurnError: 403,  # R3.4
    errors.PassNotAllowedError: 409,  # a rule violation
    errors.TooFewPlayersError: 409,
}


def instance(cls: type[Exception]) -> Exception:
    """An error of the class, with a message when its constructor takes one."""
    if inspect.signature(cls.__init__).parameters.keys() == {"self"}:
        return cls()
    return cls(f"a {cls.__name__}")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    folder: Path = tmp_path_factory.mktemp("errors")
    flask_app = embedded_app(folder, run_projections=False)
    raised = {cls.__name__: cls for cls in [*DOMAIN_ERRORS, ViewStoreUnavailableError]}

    def raise_it(name: str) -> str:
        raise instance(raised[name])

    flask_app.add_url_rule("/test-raise/<name>", view_func=raise_it)
    yield flask_app
    flask_app.extensions["opus"].close()


def test_every_error_class_of_the_domain_is_walked() -> None:
    assert len(DOMAIN_ERRORS) >= 30
    assert set(PROMISED) <= set(DOMAIN_ERRORS)
    assert RuleError in DOMAIN_ERRORS and errors.CallError in DOMAIN_ERRORS


@pytest.mark.parametrize(
    "cls", [*DOMAIN_ERRORS, ViewStoreUnavailableError], ids=lambda cls: cls.__name__
)
def test_the_api_and_the_pages_answer_an_error_with_one_status(
    app: Flask, cls: type[Exception]
) -> None:
    error = instance(cls)
    status = status_of(error)
    if cls in PROMISED:
        assert status == PROMISED[cls]
    elif issubclass(cls, RuleError):
        assert status == 409  # a rule violation, with its rule id
    assert 400 <= status < 500 or (cls is ViewStoreUnavailableError and status == 503)

    answer = app.test_client().get(f"/test-raise/{cls.__name__}")
    assert answer.status_code == status, answer.json
    assert answer.json["code"] == status
    assert answer.json["rule"] == (error.rule if isinstance(error, RuleError) else None)

    with app.test_request_context(
        f"/table/{UNKNOWN}/move", method="POST", headers={"Accept": "application/json"}
    ):
        as_json = refused(error)
    assert as_json.status_code == status
    assert as_json.json["code"] == status
    assert as_json.json["rule"] == (error.rule if isinstance(error, RuleError) else None)

    with app.test_request_context(f"/tournament/{UNKNOWN}", method="GET"):
        page, page_status = refused(error)
    assert page_status == status and "<html" in page


def test_an_error_no_one_meant_is_a_500_in_both() -> None:
    assert status_of(KeyError("x")) == 500
    assert status_of(type("NewError", (OpusError,), {})("new")) == 500  # until it is given one
