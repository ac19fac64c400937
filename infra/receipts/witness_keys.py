"""The log keys a witness follows: pinned in its store at its first start
(``logs.json``), changed after only by a transition statement signed by a
pinned key (domain/transparency/transitions.py), or by the operator saying
a log is new (``--add-log``).

So a service that changes its key in silence cannot have the witness
cosign its new history: under the same name the witness's state for that
origin refuses it; under a new name the witness will not follow it. A key
reached by transition under a new name takes over the state of the log it
continues (its size and root), so the log it names must extend what was
cosigned.

A shard's global log is signed by the service's key named by its origin
(``<name>/shard/<k>``); a transition is between the service's keys under
their own names, so each shard's key follows its base key's transition.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from domain.transparency.logs import SHARD_INFIX
from domain.transparency.note import NoteError, Verifier
from domain.transparency.transitions import follow_transitions
from infra.receipts.files import write_atomically
from infra.receipts.witness import WitnessStore

PINNED = "logs.json"


class KeyRefused(Exception):
    """A log key the witness will not follow, said in words."""


def _base(key: Verifier) -> tuple[Verifier, str]:
    """The key under its base name, and its shard suffix ('' for none)."""
    name, infix, shard = key.name.partition(SHARD_INFIX)
    return (key.named(name), infix + shard) if infix else (key, "")


def reaches(pinned: Verifier, key: Verifier, transitions: Sequence[str]) -> bool:
    """Whether ``transitions`` hand ``pinned`` over to ``key`` (step by step)."""
    old, old_shard = _base(pinned)
    new, new_shard = _base(key)
    if old_shard != new_shard:
        return False
    try:
        return follow_transitions(old, transitions)[-1] == new
    except NoteError:
        return False


def follow_logs(
    store: WitnessStore,
    configured: Sequence[Verifier],
    transitions: Sequence[str] = (),
    add: bool = False,
) -> list[str]:
    """Pin ``configured`` (first start), or check each against the keys
    pinned: KeyRefused for a key no transition reaches (unless ``add``).
    What to tell the operator."""
    path = store.directory / PINNED
    said = []
    if not path.exists():
        _write(path, configured)
        return [f"pinned at first start: log {key.vkey()}" for key in configured]
    try:
        pinned = [Verifier.from_vkey(v) for v in json.loads(path.read_text("utf-8"))["logs"]]
    except (OSError, ValueError, KeyError, TypeError, NoteError) as e:
        raise KeyRefused(f"{path} cannot be read ({e}): the keys pinned are unknown") from None
    for key in configured:
        if key in pinned:
            continue
        before = next((old for old in pinned if reaches(old, key, transitions)), None)
        if before is not None:
            said.append(f"follows {key.vkey()}: handed over from {before.vkey()} by transition")
            if before.name != key.name:
                latest = store.latest(before.name)
                if latest is not None and store.latest(key.name) is None:
                    store.keep(key.name, latest)  # the new name continues this log
        elif add:
            said.append(f"follows a new log {key.vkey()} (--add-log)")
        else:
            raise KeyRefused(
                f"the log key {key.vkey()} is not one this witness pinned and no transition "
                "statement signed by a pinned key hands over to it: a witness takes a new key "
                "only by transition (give --transitions FILE, the statements the service "
                "serves at /.well-known/opus-receipts), or --add-log for a log that is new"
            )
        pinned.append(key)
    _write(path, pinned)
    return said


def _write(path: Path, keys: Sequence[Verifier]) -> None:
    write_atomically(path, json.dumps({"logs": [k.vkey() for k in keys]}, indent=1))
