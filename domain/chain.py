"""The hash chain over a game's events (DESIGN.md, Audit).

chain(n) = SHA-256(chain(n-1) as 32 raw bytes ‖ canonical JSON of event n),
chain(0) = 32 zero bytes (the genesis). Values are written as lowercase hex.

Canonical JSON of an event is the UTF-8 encoding of the object
``{"aggregate_id": "<uuid>", "payload": {…the event's own fields…},
"timestamp": "<ISO 8601>", "type": "<event type>", "version": <n>}`` (an
exported NDJSON line without its position and chain) with keys sorted by
code point at every level, no whitespace (separators "," and ":"), strings
as UTF-8 (no \\u escapes except for control characters, JSON's own escapes
for quote and backslash), integers in decimal, true/false/null. Event fields
hold only strings, integers, booleans, null, lists and objects. The
timestamp is Python's ``datetime.isoformat()`` of the UTC time, e.g.
"2026-11-29T14:03:25.123456+00:00".

Hidden fields (declared with the events, domain/disclosure.py: the secret,
dealt and drawn cards) enter the chain sealed, never in clear: each value ``v`` is replaced
by ``"sealed:" + hex(SHA-256(salt ‖ canonical JSON of v))`` with
``salt = HMAC-SHA256(key = the game's secret, message = "<aggregate_id>:<version>")``.
A public export carries the sealed values, so anyone can check the chain of
a running game, and no one can guess a card from it: the salt needs the
secret, which GameEnded reveals; then every seal can be recomputed (R9.3).
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime
from typing import Any
from uuid import UUID

import orjson

from domain.disclosure import AUDITOR, HIDING, disclose

GENESIS = "0" * 64


def canonical_json(value: Any) -> bytes:
    """The canonical JSON above. orjson with sorted keys writes exactly what
    ``json.dumps(value, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False)`` writes for these values (tests hold it to that),
    many times faster."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def event_record(
    aggregate_id: UUID | str,
    version: int,
    type_: str,
    timestamp: datetime | str,
    payload: dict[str, Any],
) -> dict[str, Any]:
    """The object the chain hashes for one event."""
    stamp = timestamp if isinstance(timestamp, str) else timestamp.isoformat()
    return {
        "aggregate_id": str(aggregate_id),
        "version": version,
        "type": type_,
        "timestamp": stamp,
        "payload": payload,
    }


def next_chain(previous: str, record: dict[str, Any]) -> str:
    return hashlib.sha256(bytes.fromhex(previous) + canonical_json(record)).hexdigest()


SEALED = "sealed:"


def seal(secret: str, aggregate_id: UUID | str, version: int, value: Any) -> str:
    """The sealed form of one hidden value (see above)."""
    salt = hmac.new(
        bytes.fromhex(secret), f"{aggregate_id}:{version}".encode(), hashlib.sha256
    ).digest()
    return SEALED + hashlib.sha256(salt + canonical_json(value)).hexdigest()


def sealed_payload(
    secret: str, aggregate_id: UUID | str, version: int, type_: str, payload: dict[str, Any]
) -> dict[str, Any]:
    """The payload as the chain sees it: the auditor's form of a running
    game (domain/disclosure.py), hidden fields sealed. ``payload`` holds the
    event's own fields: one with no hidden field is that form already."""
    if type_ not in HIDING:
        return payload
    return disclose(
        type_,
        payload,
        AUDITOR,
        ended=False,
        seal=lambda value: seal(secret, aggregate_id, version, value),
    )
