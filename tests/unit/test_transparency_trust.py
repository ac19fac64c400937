"""What a client trusts (domain/transparency/trust.py): a global checkpoint
is witnessed only with fresh cosignatures of a quorum of distinct trusted
witnesses; the trust file reads back as written and refuses what cannot be
used, in words."""

from __future__ import annotations

import pytest

from domain.transparency.formats import Checkpoint
from domain.transparency.merkle import leaf_hash
from domain.transparency.note import COSIGNATURE_V1, Note, Signature, Signer
from domain.transparency.trust import (
    CLOCK_SKEW,
    NotWitnessed,
    Trust,
    TrustedWitness,
    TrustError,
    witnessed,
)

NOW = 1_800_000_000
LOG = Signer.generate("opus.test")
WITNESSES = [Signer.generate(f"witness-{n}.test", COSIGNATURE_V1) for n in range(3)]


def trust(quorum: int, max_age: int = 600) -> Trust:
    listed = tuple(
        TrustedWitness(f"https://w{n}.example", w.vkey()) for n, w in enumerate(WITNESSES)
    )
    return Trust("https://opus.example", LOG.vkey(), listed, quorum, max_age)


def cosigned(*by: tuple[Signer, int]) -> str:
    text = Checkpoint("opus.test", 7, leaf_hash(b"seven")).text()
    note = LOG.sign_note(text)
    return note.with_signatures(w.cosign(text, t) for w, t in by).encode()


def test_a_quorum_of_fresh_cosignatures_is_witnessed() -> None:
    note = cosigned((WITNESSES[0], NOW - 10), (WITNESSES[1], NOW - 599))
    fresh = witnessed(note, [LOG.verifier], trust(2), NOW)
    assert sorted(c.witness.name for c in fresh) == ["witness-0.test", "witness-1.test"]


def test_too_few_too_old_or_too_far_ahead_is_not_witnessed() -> None:
    with pytest.raises(NotWitnessed, match="1 of the 2 trusted witnesses"):
        witnessed(cosigned((WITNESSES[0], NOW)), [LOG.verifier], trust(2), NOW)
    with pytest.raises(NotWitnessed, match="within the last 600 s; too old"):
        witnessed(cosigned((WITNESSES[0], NOW - 601)), [LOG.verifier], trust(1), NOW)
    ahead = cosigned((WITNESSES[0], NOW + CLOCK_SKEW + 1))
    with pytest.raises(NotWitnessed, match="ahead of this clock"):
        witnessed(ahead, [LOG.verifier], trust(1), NOW)


def test_one_witness_counts_once_and_a_stranger_not_at_all() -> None:
    text = Checkpoint("opus.test", 7, leaf_hash(b"seven")).text()
    twice = LOG.sign_note(text).with_signatures([WITNESSES[0].cosign(text, NOW)])
    again = Signature(
        WITNESSES[0].name, WITNESSES[0].key_id, WITNESSES[0].cosign(text, NOW - 1).signature
    )
    note = Note(twice.text, (*twice.signatures, again)).encode()
    with pytest.raises(NotWitnessed, match="1 of the 2"):
        witnessed(note, [LOG.verifier], trust(2), NOW)
    stranger = Signer.generate("witness-0.test", COSIGNATURE_V1)  # a trusted name, another key
    with pytest.raises(NotWitnessed, match="0 of the 1"):
        witnessed(cosigned((stranger, NOW)), [LOG.verifier], trust(1), NOW)


def test_a_trusted_witness_failing_cosignature_rejects_the_checkpoint() -> None:
    text = Checkpoint("opus.test", 7, leaf_hash(b"seven")).text()
    other = Checkpoint("opus.test", 7, leaf_hash(b"other")).text()
    good = WITNESSES[1].cosign(text, NOW)
    bad = WITNESSES[0].cosign(other, NOW)  # its key, another checkpoint's signature
    note = LOG.sign_note(text).with_signatures([good, bad]).encode()
    with pytest.raises(NotWitnessed, match="does not verify"):
        witnessed(note, [LOG.verifier], trust(1), NOW)


def test_a_checkpoint_the_log_did_not_sign_is_not_witnessed() -> None:
    text = Checkpoint("opus.test", 7, leaf_hash(b"seven")).text()
    impostor = Signer.generate("opus.test")
    note = impostor.sign_note(text).with_signatures([WITNESSES[0].cosign(text, NOW)]).encode()
    with pytest.raises(NotWitnessed, match="not signed by the log's key"):
        witnessed(note, [LOG.verifier], trust(1), NOW)


def test_the_trust_file_reads_back_and_refuses_what_cannot_be_used() -> None:
    pinned = trust(2, max_age=90)
    assert Trust.from_json(pinned.to_json()) == pinned
    with pytest.raises(TrustError, match="a quorum of 4 needs that many"):
        trust(4)
    with pytest.raises(TrustError, match="not a trust file"):
        Trust.from_json('{"log": 1}')
    with pytest.raises(TrustError, match="not a cosignature key"):
        TrustedWitness.parse(f"https://w.example {LOG.vkey()}")
    with pytest.raises(TrustError, match="'<http"):
        TrustedWitness.parse("w.example")
    assert any("2 of 3 witnesses must cosign" in line for line in pinned.describe())
