"""One JSON error shape for every error, registered once in the factory,
and one status for each error (``status_of``), which the web pages'
refusals (api/web/pages.py) answer with too.

``{"code": <status>, "status": <reason>, "message": <text>, "errors": {...},
"rule": <rule id or null>}``: 422 invalid input (naming the field), 404
unknown id, 409 rule violation (with its rule id) or version clash, 401/403
identity, 413 body too large, 503 a view store that cannot be read or an
event store that cannot be reached (``EVENT_STORE_ERRORS``: PostgreSQL down
or restarting, a statement past its timeout; with Retry-After). Two
domain errors are answered as what they are rather than as what they
derive from: a move out of turn (``OutOfTurnError``, R3.4, a rule error) is
403, the token's seat may not act now; an idempotency key sent again with
another request (``IdempotencyConflictError``) is 422, invalid input naming
the ``Idempotency-Key`` header. No client input produces a 5xx.

A request whose Accept prefers text/html to application/json (a browser's
address bar: ``/nope``, ``/games/not-a-uuid``) is answered at the same
status, with the same headers, by the web client's error page
(api/web/error_page.py); every other request (curl's ``*/*``, API
clients) by the JSON.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from flask import Flask, Response, jsonify, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from domain.errors import (
    AccountError,
    AccountNotFoundError,
    AdmissionNotSetError,
    GameNotFoundError,
    IdempotencyConflictError,
    NameTakenError,
    NotAuthorisedError,
    OpusError,
    OutOfTurnError,
    RuleError,
    SignInError,
    TournamentNotFoundError,
    VersionClashError,
)
from infra.logthrottle import LogThrottle
from projections.ports import ViewStoreUnavailableError
from projections.runner import EVENT_STORE_ERRORS

log = logging.getLogger(__name__)
_failures = LogThrottle(log)  # a store down fails every request: once per kind an interval


class ApiError(Exception):
    """An error the API raises on purpose."""

    def __init__(self, status: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors or {}


# The status of each error the domain raises on purpose (and of the view
# store's unavailability): the first class in this order that the error is
# an instance of decides, so a subclass answered otherwise than its base
# comes before it.
STATUSES: tuple[tuple[type[Exception], int], ...] = (
    (GameNotFoundError, 404),
    (TournamentNotFoundError, 404),
    (AccountNotFoundError, 404),
    (AdmissionNotSetError, 404),  # never escapes: a join reads it as an open game
    (IdempotencyConflictError, 422),
    (SignInError, 401),
    (NotAuthorisedError, 403),
    (NameTakenError, 409),
    (AccountError, 422),
    (OutOfTurnError, 403),  # R3.4, before RuleError
    (VersionClashError, 409),
    (RuleError, 409),
    (ViewStoreUnavailableError, 503),
    # the event store cannot be reached now (PostgreSQL down or restarting)
    *((cls, 503) for cls in EVENT_STORE_ERRORS if issubclass(cls, Exception)),
)
STORE_RETRY_AFTER_SECONDS = 2  # a store that is down: when to try again
EVENTS_DOWN = "the event store cannot be reached now; retry shortly"
KEY_REUSED = {"headers": {"Idempotency-Key": ["used for another request"]}}


def status_of(error: BaseException) -> int:
    """The HTTP status of an error, for the API and the pages alike: an
    ``ApiError``'s own, an HTTP exception's code, a domain error's from
    ``STATUSES``; 500 for any other (an error no one meant)."""
    if isinstance(error, ApiError):
        return error.status
    if isinstance(error, HTTPException):
        return error.code or 500
    for cls, status in STATUSES:
        if isinstance(error, cls):
            return status
    return 500


def error_body(
    status: int, message: str, errors: dict[str, Any] | None = None, rule: str | None = None
) -> dict[str, Any]:
    return {
        "code": status,
        "status": HTTPStatus(status).phrase,
        "message": message,
        "errors": errors or {},
        "rule": rule,
    }


def prefers_html() -> bool:
    """The request's Accept ranks text/html above application/json (a
    browser's address bar); a tie (``*/*``, curl's), none or JSON first: no."""
    accept = request.accept_mimetypes
    return accept["text/html"] > accept["application/json"]


def _respond(body: dict[str, Any]) -> Response:
    """The error at its status: the web client's error page for a browser
    (``prefers_html``), else the JSON body (the API's one shape)."""
    if prefers_html():
        from api.web.error_page import error_page  # the web client (which imports this module)

        try:
            page = error_page(body["code"], body["message"], body["rule"])
            page.vary.add("Accept")
            return page
        except Exception:  # the page cannot be shown: the JSON, as ever
            log.exception("error page")
    response = jsonify(body)
    response.status_code = body["code"]
    response.vary.add("Accept")
    return response


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(Exception)
    def unexpected(e: Exception) -> ResponseReturnValue:
        log.exception("unexpected error")
        return _respond(error_body(500, "internal error"))

    @app.errorhandler(ApiError)
    def api_error(e: ApiError) -> ResponseReturnValue:
        return _respond(error_body(e.status, e.message, e.errors))

    @app.errorhandler(ViewStoreUnavailableError)
    def views_down(e: ViewStoreUnavailableError) -> ResponseReturnValue:
        _failures.failed("view store unavailable", e)
        return _unavailable(status_of(e), "the views cannot be read now; retry shortly")

    def events_down(e: Exception) -> ResponseReturnValue:
        """PostgreSQL down or restarting (the recorder gave up within
        OPUS_STORE_TIMEOUT), or a statement past its timeout."""
        _failures.failed("event store unavailable", e)
        return _unavailable(status_of(e), EVENTS_DOWN)

    for cls in EVENT_STORE_ERRORS:
        if issubclass(cls, Exception):
            app.register_error_handler(cls, events_down)

    @app.errorhandler(OpusError)
    def domain_error(e: OpusError) -> ResponseReturnValue:
        """Every domain error, at its ``status_of``, with its rule id when a
        rule refused."""
        status = status_of(e)
        if status == 500:
            return unexpected(e)
        errors = KEY_REUSED if isinstance(e, IdempotencyConflictError) else None
        rule = e.rule if isinstance(e, RuleError) else None
        return _respond(error_body(status, str(e), errors, rule))

    @app.errorhandler(HTTPException)
    def http(e: HTTPException) -> ResponseReturnValue:
        code = e.code or 500
        errors: dict[str, Any] = {}
        data = getattr(e, "data", None)  # webargs puts validation messages here
        if isinstance(data, dict) and "messages" in data:
            errors = data["messages"]
        message = e.description or HTTPStatus(code).phrase
        if message == type(e).description:  # werkzeug's words speak of "the browser"
            message = f"{HTTPStatus(code).phrase}: {HTTPStatus(code).description.lower()}"
        if code == 422 and errors:
            message = "invalid input: " + ", ".join(_fields(errors))
        response = _respond(error_body(code, message, errors))
        for name, value in e.get_headers():  # e.g. Allow on a 405
            if name.lower() not in ("content-type", "content-length"):
                response.headers[name] = value
        return response


def _unavailable(status: int, message: str) -> ResponseReturnValue:
    """A store that cannot be reached now: 503, with when to retry."""
    response = _respond(error_body(status, message))
    response.headers["Retry-After"] = str(STORE_RETRY_AFTER_SECONDS)
    return response


def _fields(errors: dict[str, Any], prefix: str = "") -> list[str]:
    names: list[str] = []
    for key, value in errors.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and key in ("json", "query", "headers", "path"):
            names.extend(_fields(value))
        elif isinstance(value, dict):
            names.extend(_fields(value, f"{name}."))
        else:
            names.append(name)
    return names
