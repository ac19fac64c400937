"""Logs as a forger would rewrite them: a record changed and every chain
value after it recomputed, so that only the rules can tell the log from a
true one (the tests of ``opus verify``)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from domain.audit import Record
from domain.chain import GENESIS, event_record, next_chain, sealed_payload


def rechain(records: list[Record]) -> list[Record]:
    """Versions renumbered and every chain value recomputed, hidden fields
    sealed with the aggregate's secret (its first record's) as the service
    seals them: a log that only the rules can tell from a true one."""
    secret = str((records[0].payload or {}).get("secret", ""))
    out: list[Record] = []
    previous = GENESIS
    for version, r in enumerate(records, start=1):
        assert r.payload is not None
        chained = r.payload
        if not r.redacted:
            chained = sealed_payload(secret, r.aggregate_id, version, r.type, r.payload)
        chain = next_chain(
            previous, event_record(r.aggregate_id, version, r.type, r.timestamp, chained)
        )
        out.append(replace(r, version=version, chain=chain))
        previous = chain
    return out


def rewritten(
    records: list[Record], version: int, change: Callable[[dict[str, Any]], Any]
) -> list[Record]:
    """``change`` applied to the payload of the record at ``version``, the
    chain recomputed from there on."""
    out = list(records)
    payload = copy.deepcopy(out[version - 1].payload) or {}
    change(payload)
    out[version - 1] = replace(out[version - 1], payload=payload)
    return rechain(out)


def removed(records: list[Record], version: int) -> list[Record]:
    """The record at ``version`` left out (a constraint dropped from the
    log, say), the versions renumbered and the chain recomputed."""
    return rechain([r for r in records if r.version != version])


def retimed(records: list[Record], version: int, timestamp: str) -> list[Record]:
    """The record at ``version`` given another timestamp (a drop moved in
    time), the chain recomputed: the timestamp is in every chain value."""
    out = [replace(r, timestamp=timestamp) if r.version == version else r for r in records]
    return rechain(out)


def moved_between(earlier: str, later: str) -> str:
    """An ISO 8601 time strictly between two recorded ones (a forger's pick)."""
    start, end = datetime.fromisoformat(earlier), datetime.fromisoformat(later)
    return (start + (end - start) / 2).isoformat()
