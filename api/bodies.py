"""Request bodies, checked before any handler reads them: a body is JSON,
sent as JSON, within the size limit.

webargs parses JSON bodies with the standard library and lets its
ValueErrors through (a number of more than 4,300 digits is one): read here
first, every malformed body is a 400 that says in plain words what is wrong
with it (``json_problem``: never a Python message), a body of another
content type a 415, and one past ``MAX_CONTENT_LENGTH`` (chunked or not) a
413. A body is UTF-8 (RFC 8259 §8.1) without a byte order mark: one that
begins with U+FEFF is refused, as the RFC allows (a sender MUST NOT add
it), with a message that says so, rather than read past (README, decisions).
NaN and Infinity, which the standard library reads, are not JSON either.
"""

from __future__ import annotations

import io
import json
import re
import sys

from flask import Flask, current_app, request

from api.errors import ApiError

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
# The web client's pages post forms and files, and check their own bodies
# (api/web/pages.py): these checks are the API's.
OWN_BODY_CHECKS = frozenset({"pages"})
BOM = b"\xef\xbb\xbf"  # U+FEFF in UTF-8
# Our bound on nesting: no request nests past 3 levels, and the standard
# library's parser, here and again in webargs (deeper in the stack), runs
# out of recursion near 1,000 levels, where one of them would fail alone.
MAX_DEPTH = 32
STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
BRACKETS = re.compile(r"[\[\]{}]")


def nesting(text: str) -> int:
    """How deep the arrays and objects of ``text``, valid JSON, nest (its
    strings left out)."""
    depth = deepest = 0
    for bracket in BRACKETS.findall(STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


class NotJsonError(ValueError):
    """A value the standard library reads that a JSON body may not hold."""


def _constant(constant: str) -> float:
    raise NotJsonError(f"{constant} is not a JSON value")


def _integer(digits: str) -> int:
    try:
        return int(digits)
    except ValueError:  # past sys.get_int_max_str_digits()
        limit = sys.get_int_max_str_digits()
        raise NotJsonError(f"a number has more than {limit:,} digits") from None


def json_problem(data: bytes) -> str | None:
    """What is wrong with ``data`` as a JSON body, in plain words (None if
    nothing): the standard library's reading, which webargs makes next, with
    each of its failures named for a client, never in Python's words."""
    if data.startswith(BOM):
        return (
            "the body begins with a byte order mark (U+FEFF); send the JSON "
            "without one (RFC 8259 §8.1)"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return (
            f"the body is not UTF-8 text: the byte 0x{data[e.start]:02X} at offset "
            f"{e.start} is not part of a character"
        )
    too_deep = f"arrays and objects are nested more than {MAX_DEPTH} deep"
    try:
        json.loads(text, parse_constant=_constant, parse_int=_integer)
    except RecursionError:
        return too_deep
    except json.JSONDecodeError as e:
        return f"{e.msg[:1].lower()}{e.msg[1:]} at line {e.lineno}, column {e.colno}"
    except NotJsonError as e:
        return str(e)
    if nesting(text) > MAX_DEPTH:
        return too_deep
    return None


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
        problem = json_problem(data)
        if problem:
            raise ApiError(400, f"invalid JSON body: {problem}")
