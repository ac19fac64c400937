"""Request bodies, checked before any handler reads them: a body is JSON,
sent as JSON, within the size limit.

webargs parses JSON bodies with the standard library and lets its
ValueErrors through (a number of more than 4,300 digits is one): read here
first, every malformed body is a 400 that says so, a body of another content
type a 415, and one past ``MAX_CONTENT_LENGTH`` (chunked or not) a 413.
"""

from __future__ import annotations

import io
import json

from flask import Flask, current_app, request

from api.errors import ApiError

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
# The web client's pages post forms and files, and check their own bodies
# (api/web/pages.py): these checks are the API's.
OWN_BODY_CHECKS = frozenset({"pages"})


def limit_chunked_body(limit: int | None = None) -> None:
    """A chunked body has no length to check before it is read, and werkzeug
    cuts it at the limit silently: read one byte past the limit here, refuse
    it (413) if it is longer, else hand it on with its length known. The
    limit is the app's (``MAX_CONTENT_LENGTH``) unless one is given."""
    if limit is None:
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
    environ = request.environ
    if limit is None or request.content_length is not None:
        return
    if "chunked" not in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
        return
    body = environ["wsgi.input"].read(limit + 1)
    if len(body) > limit:
        raise ApiError(413, f"the body is larger than {limit} bytes")
    environ["wsgi.input"] = io.BytesIO(body)
    environ["CONTENT_LENGTH"] = str(len(body))
    del environ["HTTP_TRANSFER_ENCODING"]


def register_body_checks(app: Flask) -> None:
    @app.before_request
    def check_body() -> None:
        if request.method not in BODY_METHODS or request.url_rule is None:
            return  # routing errors (404, 405) come first
        if request.blueprint in OWN_BODY_CHECKS:
            return
        limit_chunked_body()
        data = request.get_data(cache=True)  # 413 past the limit
        if not data.strip():
            return
        if not request.is_json:
            raise ApiError(
                415,
                f"the body must be JSON, sent with Content-Type: application/json "
                f"(not {request.mimetype or 'none'})",
            )
        try:
            json.loads(data)
        except (ValueError, RecursionError) as e:  # too many digits; nested too deep
            raise ApiError(400, f"invalid JSON body: {e}") from None
