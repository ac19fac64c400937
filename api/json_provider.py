"""Flask's JSON through orjson: every answer and every request body.

The documents are Flask's own (``DefaultJSONProvider``): keys sorted,
compact, a trailing newline, dates, dataclasses and ``__html__`` objects as
Flask writes them (orjson hands those to Flask's ``default``). What differs
is the bytes of text outside ASCII, written as UTF-8 rather than escaped,
and a float that is not a number, written as ``null`` (Flask writes ``NaN``,
which JSON does not have); and, read, an integer beyond 64 bits becomes a
float. The JSON is otherwise the same. Encoding took a few per cent of a
move's CPU in the API (bench/live.py's profile).
"""

from __future__ import annotations

from typing import Any, cast

import orjson
from flask import Response
from flask.json.provider import DefaultJSONProvider

OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_NON_STR_KEYS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
)


class OrjsonProvider(DefaultJSONProvider):
    """What orjson cannot write or read (an integer beyond 64 bits, text with
    a lone surrogate, NaN in a request) goes to Flask's own provider, so no
    document the standard library handles fails here. Read, bytes are UTF-8
    and nothing else, as RFC 8259 §8.1 and the API's body check
    (api/bodies.py) have it: the standard library would guess UTF-16 or
    UTF-32 and read past a byte order mark, which orjson refuses; and a
    document nested past the standard library's recursion limit is a
    ValueError like any other malformed one, never a RecursionError
    (``request.get_json(silent=True)`` answers None to both)."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if not kwargs:  # (else an indent, say: the standard library's)
            try:
                return orjson.dumps(obj, default=self.default, option=OPTIONS).decode()
            except TypeError:
                pass
        return super().dumps(obj, **kwargs)

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        if not kwargs:
            try:
                return orjson.loads(s)
            except orjson.JSONDecodeError:
                pass
        if isinstance(s, bytes):
            s = s.decode("utf-8")  # a UnicodeDecodeError is a ValueError
        try:
            return super().loads(s, **kwargs)
        except RecursionError:
            raise ValueError("arrays and objects are nested too deep") from None

    def response(self, *args: Any, **kwargs: Any) -> Response:
        compact = self.compact if self.compact is not None else not self._app.debug
        if compact:
            obj = self._prepare_response_obj(args, kwargs)
            try:
                body = orjson.dumps(obj, default=self.default, option=OPTIONS) + b"\n"
            except TypeError:
                pass
            else:
                response_class = cast("type[Response]", self._app.response_class)
                return response_class(body, mimetype=self.mimetype)
        return cast(Response, super().response(*args, **kwargs))
