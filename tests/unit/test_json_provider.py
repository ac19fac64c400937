"""The API's JSON (api/json_provider.py) is Flask's own, through orjson."""

from __future__ import annotations

import dataclasses
import json
import uuid
from datetime import UTC, date, datetime
from typing import Any

import pytest
from flask import Flask, request
from flask.json.provider import DefaultJSONProvider
from markupsafe import Markup

from api.json_provider import OrjsonProvider


@dataclasses.dataclass
class SeatValue:
    name: str
    seat: int


DOCUMENTS: list[Any] = [
    {"b": 1, "a": [1, 2.5, None, True], "c": {"z": "x", "y": []}},
    {"name": "Ада Лавлейс", "emoji": "⚗", "quote": 'say "hi"\n'},
    {"when": datetime(2026, 11, 30, 21, 0, tzinfo=UTC), "day": date(2026, 11, 30)},
    {"id": uuid.UUID(int=7), "seat": SeatValue("Boris", 1), "html": Markup("<b>x</b>")},
    {3: "three", 1: "one"},
    [],
    "text",
]


@pytest.fixture
def app() -> Flask:
    return Flask("t")


@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_same_json_as_flasks_own(app: Flask, document: Any) -> None:
    ours, flasks = OrjsonProvider(app), DefaultJSONProvider(app)
    assert json.loads(ours.dumps(document)) == json.loads(flasks.dumps(document))
    with app.app_context():
        mine, theirs = ours.response(document), flasks.response(document)
    assert mine.mimetype == theirs.mimetype == "application/json"
    assert mine.get_data().endswith(b"\n")
    assert json.loads(mine.get_data()) == json.loads(theirs.get_data())


def test_keys_sorted_compact_and_text_as_utf8(app: Flask) -> None:
    text = OrjsonProvider(app).dumps({"b": "Ада", "a": 1})
    assert text == '{"a":1,"b":"Ада"}'
    assert OrjsonProvider(app).loads(text.encode()) == {"a": 1, "b": "Ада"}


def test_a_value_json_cannot_hold_is_refused(app: Flask) -> None:
    with pytest.raises(TypeError):
        OrjsonProvider(app).dumps({"x": object()})


@pytest.mark.parametrize("document", [{"big": 2**70}, {"\ud800": 1}, ["\udfff"]])
def test_what_orjson_cannot_write_is_written_as_flask_writes_it(app: Flask, document: Any) -> None:
    ours, flasks = OrjsonProvider(app), DefaultJSONProvider(app)
    assert ours.dumps(document) == flasks.dumps(document)
    with app.app_context():
        assert ours.response(document).get_data() == flasks.response(document).get_data()


@pytest.mark.parametrize("text", ['{"n": NaN}', '{"n": Infinity}', '["\\ud800"]'])
def test_what_orjson_cannot_read_is_read_as_flask_reads_it(app: Flask, text: str) -> None:
    ours, flasks = OrjsonProvider(app), DefaultJSONProvider(app)
    assert repr(ours.loads(text)) == repr(flasks.loads(text))


@pytest.mark.parametrize(
    "body",
    [
        b'\xef\xbb\xbf{"a": 1}',  # a byte order mark: the standard library reads past it
        '{"a": 1}'.encode("utf-16"),  # UTF-16: the standard library guesses it
        '{"a": 1}'.encode("utf-32-le"),
        b'{"a": "\xed\xa0\x80"}',  # a surrogate encoded as if UTF-8
    ],
)
def test_bytes_are_read_as_utf8_without_a_byte_order_mark_or_not_at_all(
    app: Flask, body: bytes
) -> None:
    """As the API's body check (api/bodies.py) and RFC 8259 §8.1 have it."""
    with pytest.raises(ValueError):
        OrjsonProvider(app).loads(body)


def test_a_document_nested_too_deep_is_a_value_error_never_a_recursion_error(app: Flask) -> None:
    """``request.get_json(silent=True)`` (the pages' moves) answers None to a
    ValueError; a RecursionError would be a 500."""
    with pytest.raises(ValueError, match="nested too deep"):
        OrjsonProvider(app).loads(b"[" * 50_000)
    app.json = OrjsonProvider(app)
    with app.test_request_context(
        "/", method="POST", data=b"[" * 50_000, content_type="application/json"
    ):
        assert request.get_json(silent=True) is None
