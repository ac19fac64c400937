"""Flask's JSON through orjson: every answer and every request body.

The documents are Flask's own (``DefaultJSONProvider``): keys sorted,
compact, a trailing newline, dates, dataclasses and ``__html__`` objects as
Flask writes them (orjson hands those to Flask's ``default``). What differs
is the bytes of text outside ASCII, written as UTF-8 rather than escaped;
the JSON is the same. Encoding took a few per cent of a move's CPU in the
API (bench/live.py's profile).
"""

from __future__ import annotations

from typing import Any

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
    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs:  # (an indent, say): the standard library's
            return super().dumps(obj, **kwargs)
        return orjson.dumps(obj, default=self.default, option=OPTIONS).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        if kwargs:
            return super().loads(s, **kwargs)
        return orjson.loads(s)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        compact = self.compact if self.compact is not None else not self._app.debug
        if not compact:
            return super().response(*args, **kwargs)
        obj = self._prepare_response_obj(args, kwargs)
        body = orjson.dumps(obj, default=self.default, option=OPTIONS) + b"\n"
        return self._app.response_class(body, mimetype=self.mimetype)
