"""One JSON error shape for every error, registered once in the factory.

``{"code": <status>, "status": <reason>, "message": <text>, "errors": {...},
"rule": <rule id or null>}``: 422 invalid input (naming the field), 404
unknown id, 409 rule violation (with its rule id) or version clash, 401/403
identity, 413 body too large, 503 a view store that cannot be read. No
client input produces a 5xx.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from flask import Flask, jsonify
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from domain.errors import (
    GameNotFoundError,
    IdempotencyConflictError,
    NotAuthorisedError,
    OutOfTurnError,
    RuleError,
    TournamentNotFoundError,
    VersionClashError,
)
from projections.ports import ViewStoreUnavailableError

log = logging.getLogger(__name__)


class ApiError(Exception):
    """An error the API raises on purpose."""

    def __init__(self, status: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors or {}


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


def _respond(body: dict[str, Any]) -> ResponseReturnValue:
    response = jsonify(body)
    response.status_code = body["code"]
    return response


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def api_error(e: ApiError) -> ResponseReturnValue:
        return _respond(error_body(e.status, e.message, e.errors))

    @app.errorhandler(GameNotFoundError)
    @app.errorhandler(TournamentNotFoundError)
    def not_found(e: GameNotFoundError | TournamentNotFoundError) -> ResponseReturnValue:
        return _respond(error_body(404, str(e)))

    @app.errorhandler(VersionClashError)
    def clash(e: VersionClashError) -> ResponseReturnValue:
        return _respond(error_body(409, str(e)))

    @app.errorhandler(ViewStoreUnavailableError)
    def views_down(e: ViewStoreUnavailableError) -> ResponseReturnValue:
        log.warning("view store unavailable: %s", e)
        return _respond(error_body(503, "the views cannot be read now; retry shortly"))

    @app.errorhandler(IdempotencyConflictError)
    def key_reused(e: IdempotencyConflictError) -> ResponseReturnValue:
        errors = {"headers": {"Idempotency-Key": ["used for another request"]}}
        return _respond(error_body(422, str(e), errors))

    @app.errorhandler(NotAuthorisedError)
    def not_authorised(e: NotAuthorisedError) -> ResponseReturnValue:
        return _respond(error_body(403, str(e)))

    @app.errorhandler(OutOfTurnError)
    def out_of_turn(e: OutOfTurnError) -> ResponseReturnValue:
        return _respond(error_body(403, str(e), rule=e.rule))

    @app.errorhandler(RuleError)
    def rule(e: RuleError) -> ResponseReturnValue:
        return _respond(error_body(409, str(e), rule=e.rule))

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
        response = jsonify(error_body(code, message, errors))
        response.status_code = code
        for name, value in e.get_headers():  # e.g. Allow on a 405
            if name.lower() not in ("content-type", "content-length"):
                response.headers[name] = value
        return response

    @app.errorhandler(Exception)
    def unexpected(e: Exception) -> ResponseReturnValue:
        log.exception("unexpected error")
        return _respond(error_body(500, "internal error"))


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
