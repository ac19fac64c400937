"""Key transitions: how the service announces a new signing key so that no
key changes in silence (issue 35, item 2; README, Receipts).

A transition is a C2SP signed note whose text is exactly::

    opus key transition
    <old vkey>
    <new vkey>
    <time: RFC 3339, UTC, whole seconds, e.g. 2026-12-08T01:02:03Z>

signed by the old key under its own name (the holder of the key a client
pinned says "my successor is this key") and by the new key under its own
name (the new key's holder accepts it: nobody can name as successor a key
they do not hold). A client that pinned a key follows the chain of
transitions from it (``follow_transitions``) and accepts checkpoints signed
by a key reached so; any other key, or a new name without a transition, is
a silent key change: misbehaviour, its evidence kept.

Pure: the time is given, nothing is read or written here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime

from domain.transparency.note import ED25519, Note, NoteError, Signer, Verifier, open_note

HEADER = "opus key transition"
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


def transition_text(old: Verifier, new: Verifier, when: datetime) -> str:
    """The note text of the transition from ``old`` to ``new`` at ``when``."""
    if when.tzinfo is None:
        raise NoteError("a transition's time is an aware datetime (UTC)")
    stamp = when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"{HEADER}\n{old.vkey()}\n{new.vkey()}\n{stamp}\n"


def make_transition(old: Signer, new: Signer, when: datetime) -> str:
    """The transition from ``old`` to ``new`` at ``when``: its note signed by
    both keys, the old one's signature first."""
    if old.signature_type != ED25519 or new.signature_type != ED25519:
        raise NoteError("a transition is between two note-signing keys (Ed25519, type 0x01)")
    if old.verifier == new.verifier:
        raise NoteError(f"a transition names a new key: {new.vkey()} is the old one")
    text = transition_text(old.verifier, new.verifier, when)
    return Note(text, (old.sign(text), new.sign(text))).encode()


def read_transition(note: str) -> tuple[Verifier, Verifier, str]:
    """The old key, the new key and the time a transition's text states
    (nothing verified: ``verify_transition`` does); NoteError naming what is
    wrong otherwise."""
    try:
        text = note[: note.rindex("\n\n") + 1]
    except ValueError:
        raise NoteError(
            "a transition is a signed note: its text, a blank line, signatures"
        ) from None
    lines = text.split("\n")
    if len(lines) != 5 or lines[0] != HEADER or lines[4] != "":
        raise NoteError(
            f"a transition's text is '{HEADER}', the old vkey, the new vkey and the time, "
            "each on its line"
        )
    old, new = Verifier.from_vkey(lines[1]), Verifier.from_vkey(lines[2])
    if old.signature_type != ED25519 or new.signature_type != ED25519:
        raise NoteError("a transition is between two note-signing keys (Ed25519, type 0x01)")
    if old == new:
        raise NoteError("a transition's new key is its old key")
    if not _TIME.fullmatch(lines[3]):
        raise NoteError(f"a transition's time is RFC 3339 UTC in seconds: {lines[3][:40]!r}")
    try:
        datetime.strptime(lines[3], "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        raise NoteError(f"a transition's time is not a date and time: {lines[3]!r}") from None
    return old, new, lines[3]


def verify_transition(note: str, old: Verifier) -> Verifier:
    """The new key a transition from ``old`` names, once both keys' signatures
    on it verify; NoteError saying why it is no transition from ``old``."""
    stated_old, new, _ = read_transition(note)
    if stated_old != old:
        raise NoteError(f"this transition is from {stated_old.vkey()}, not from {old.vkey()}")
    _, verified = open_note(note, [old, new])  # a failing signature of either rejects it
    if old not in verified:
        raise NoteError(f"the transition is not signed by the old key {old.vkey()}")
    if new not in verified:
        raise NoteError(f"the transition is not signed by the new key {new.vkey()}")
    return new


def follow_transitions(pinned: Verifier, notes: Sequence[str]) -> list[Verifier]:
    """The keys reached from ``pinned`` by the chain of transitions ``notes``
    (oldest first), ``pinned`` first: the last is the key that signs now.

    Transitions before the one from ``pinned`` are passed over (a client
    pinned a later key); from there each must be from the key the one
    before reached, else NoteError naming the break. No transition from
    ``pinned``: ``[pinned]``."""
    froms = [read_transition(note)[0] for note in notes]
    if pinned not in froms:
        return [pinned]
    start = froms.index(pinned)
    keys = [pinned]
    for number, note in enumerate(notes[start:], start=start + 1):
        try:
            keys.append(verify_transition(note, keys[-1]))
        except NoteError as e:
            raise NoteError(f"key transition {number} breaks the chain: {e}") from None
    return keys
