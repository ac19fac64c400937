"""Key transitions (domain/transparency/transitions.py): a new key is
accepted only with a statement signed by the key before it and by itself;
and the signed-note rule they rest on: a known key's failing signature
rejects the whole note, whatever other known key's verifies."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from domain.transparency.note import Note, NoteError, Signature, Signer, open_note, parse_note
from domain.transparency.transitions import (
    follow_transitions,
    make_transition,
    read_transition,
    verify_transition,
)

WHEN = datetime(2026, 12, 8, 1, 2, 3, 456789, tzinfo=UTC)


def _key(name: str, byte: int) -> Signer:
    return Signer(name, bytes([byte]) * 32)


# ---- signed-note: a known key's failing signature rejects the note -------------------------


@pytest.mark.parametrize("bad_first", [True, False])
def test_a_known_keys_failing_signature_rejects_the_note_beside_a_valid_one(
    bad_first: bool,
) -> None:
    log, witness = _key("log.example", 1), _key("witness.example", 2)
    text = "log.example\n5\n" + "A" * 43 + "=\n"
    good = log.sign(text)
    forged = Signature(witness.name, witness.key_id, bytes(64))  # a known key's, failing
    signatures = (forged, good) if bad_first else (good, forged)
    note = Note(text, signatures).encode()
    with pytest.raises(NoteError, match=r"witness.example.* fails"):
        open_note(note, [log.verifier, witness.verifier])
    # the failing line's key unknown: ignored, the known one verifies
    assert open_note(note, [log.verifier])[1] == [log.verifier]


def test_a_second_signature_of_the_same_known_key_that_fails_rejects_the_note() -> None:
    log = _key("log.example", 1)
    text = "log.example\n5\n" + "A" * 43 + "=\n"
    note = Note(text, (log.sign(text), Signature(log.name, log.key_id, bytes(64)))).encode()
    with pytest.raises(NoteError, match="fails"):
        open_note(note, [log.verifier])


# ---- transitions -----------------------------------------------------------------------------


def test_a_transition_states_both_keys_and_the_time_and_is_signed_by_both() -> None:
    old, new = _key("opus.example", 1), _key("opus.example", 2)
    note = make_transition(old, new, WHEN)
    text = f"opus key transition\n{old.vkey()}\n{new.vkey()}\n2026-12-08T01:02:03Z\n"
    assert parse_note(note).text == text
    assert [s.name for s in parse_note(note).signatures] == ["opus.example"] * 2
    assert verify_transition(note, old.verifier) == new.verifier
    # a time in another zone is written in UTC
    other = make_transition(old, new, WHEN.astimezone(timezone(timedelta(hours=5))))
    assert read_transition(other)[2] == "2026-12-08T01:02:03Z"


def test_a_new_name_is_reached_by_its_transition() -> None:
    old, new = _key("opus.example", 1), _key("opus.example.v2", 2)
    assert verify_transition(make_transition(old, new, WHEN), old.verifier) == new.verifier


def _resigned(text: str, *signers: Signer) -> str:
    return Note(text, tuple(s.sign(text) for s in signers)).encode()


def test_a_transition_without_either_signature_or_with_a_failing_one_is_refused() -> None:
    old, new, other = _key("opus.example", 1), _key("opus.example", 2), _key("opus.example", 3)
    text = parse_note(make_transition(old, new, WHEN)).text
    with pytest.raises(NoteError, match="not signed by the old key"):
        verify_transition(_resigned(text, new), old.verifier)
    with pytest.raises(NoteError, match="not signed by the new key"):
        verify_transition(_resigned(text, old), old.verifier)
    with pytest.raises(NoteError, match="no signature of a known key"):
        verify_transition(_resigned(text, other), old.verifier)
    # the new key's signature forged beside the old key's valid one
    forged = Note(text, (old.sign(text), Signature(new.name, new.key_id, bytes(64)))).encode()
    with pytest.raises(NoteError, match="fails"):
        verify_transition(forged, old.verifier)
    # the old key's signature forged beside the new key's valid one
    forged = Note(text, (Signature(old.name, old.key_id, bytes(64)), new.sign(text))).encode()
    with pytest.raises(NoteError, match="fails"):
        verify_transition(forged, old.verifier)


def test_a_transition_from_another_key_is_refused() -> None:
    old, new, other = _key("opus.example", 1), _key("opus.example", 2), _key("opus.example", 3)
    with pytest.raises(NoteError, match=r"this transition is from .* not from"):
        verify_transition(make_transition(other, new, WHEN), old.verifier)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda t: t.replace("opus key transition", "opus key transitions"), "text is"),
        (lambda t: t.replace("Z\n", "Z\nmore\n"), "text is"),
        (lambda t: t.replace("2026-12-08T01:02:03Z", "2026-12-08 01:02:03"), "RFC 3339"),
        (lambda t: t.replace("2026-12-08T01:02:03Z", "2026-13-08T01:02:03Z"), "not a date"),
        (lambda t: t.replace("T01:02:03Z", "T01:02:03+00:00"), "RFC 3339"),
    ],
)
def test_a_transition_text_not_as_written_is_refused(change: object, words: str) -> None:
    old, new = _key("opus.example", 1), _key("opus.example", 2)
    text = change(parse_note(make_transition(old, new, WHEN)).text)  # type: ignore[operator]
    with pytest.raises(NoteError, match=words):
        verify_transition(_resigned(text, old, new), old.verifier)


def test_no_transition_to_the_same_key() -> None:
    old = _key("opus.example", 1)
    with pytest.raises(NoteError, match="new key"):
        make_transition(old, old, WHEN)
    text = f"opus key transition\n{old.vkey()}\n{old.vkey()}\n2026-12-08T01:02:03Z\n"
    with pytest.raises(NoteError, match="new key is its old key"):
        verify_transition(_resigned(text, old), old.verifier)


def test_a_chain_is_followed_from_the_pinned_key_and_a_break_is_named() -> None:
    k0, k1, k2, k3 = (_key("opus.example", b) for b in (1, 2, 3, 4))
    chain = [make_transition(k0, k1, WHEN), make_transition(k1, k2, WHEN)]
    assert follow_transitions(k0.verifier, chain) == [k0.verifier, k1.verifier, k2.verifier]
    # a client that pinned a later key starts from its own
    assert follow_transitions(k1.verifier, chain) == [k1.verifier, k2.verifier]
    assert follow_transitions(k2.verifier, chain) == [k2.verifier]
    assert follow_transitions(k0.verifier, []) == [k0.verifier]
    # a transition not from the key reached before breaks the chain
    broken = [chain[0], make_transition(k2, k3, WHEN)]
    with pytest.raises(NoteError, match="key transition 2 breaks the chain"):
        follow_transitions(k0.verifier, broken)
    # a transition whose old key's signature was replaced by another key's
    text = parse_note(chain[1]).text
    with pytest.raises(NoteError, match=r"key transition 2 breaks the chain.*old key"):
        follow_transitions(k0.verifier, [chain[0], _resigned(text, k3, k2)])
