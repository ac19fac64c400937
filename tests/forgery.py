"""Logs as a forger would rewrite them: a record changed and every chain
value after it recomputed, so that only the rules can tell the log from a
true one (the tests of ``opus verify``)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
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
