"""What the OpenAPI document says beyond the schemas, and /docs's assets.

The Swagger UI at ``/docs`` loads its scripts and styles from this service
(``/docs/assets/``), out of the pinned ``swagger-ui-bundle`` package: no
third-party script runs on the API's origin, and the page works offline.
Operations that need a token name the bearer scheme, so "Try it out" sends
one; commands document ``Idempotency-Key`` and ``If-Match``, the stream
``Last-Event-ID``.
"""

from __future__ import annotations

from typing import Any

import swagger_ui_bundle
from flask import Blueprint, Response, send_from_directory

ASSETS_URL = "/docs/assets/"
assets = Blueprint("docs_assets", __name__)


@assets.route(f"{ASSETS_URL}<path:name>")
def asset(name: str) -> Response:
    return send_from_directory(swagger_ui_bundle.swagger_ui_path, name, max_age=86_400)


def _header(name: str, description: str, **schema: Any) -> dict[str, Any]:
    return {
        "in": "header",
        "name": name,
        "required": False,
        "schema": {"type": "string", **schema},
        "description": description,
    }


IDEMPOTENCY_KEY = _header(
    "Idempotency-Key",
    "Makes a retried command safe: the same key (within your token) answers the "
    "first outcome and is never applied twice.",
    minLength=1,
    maxLength=200,
)
IF_MATCH = _header(
    "If-Match",
    "The game version the command expects; 409 if it has moved on.",
    pattern=r'^(W/)?"?[0-9]{1,18}"?$',
)
LAST_EVENT_ID = _header(
    "Last-Event-ID",
    "Resume after this game version (0: from the start).",
    pattern="^[0-9]{1,18}$",
)

TOKEN: dict[str, Any] = {"security": [{"token": []}]}
COMMAND: dict[str, Any] = {"parameters": [IDEMPOTENCY_KEY]}  # create, join
TOKEN_COMMAND: dict[str, Any] = {**TOKEN, **COMMAND}  # start
MOVE: dict[str, Any] = {**TOKEN, "parameters": [IDEMPOTENCY_KEY, IF_MATCH]}
STREAM: dict[str, Any] = {"parameters": [LAST_EVENT_ID]}
