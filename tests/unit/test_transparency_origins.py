"""The global logs' origins with shards, and the key each is signed with
(domain/transparency/logs.py): shard 0 keeps the one store's origin, shard
k's is ``<name>/shard/<k>``, signed by the service's key under that name."""

from __future__ import annotations

from uuid import uuid4

import pytest

from domain.transparency.formats import Checkpoint
from domain.transparency.logs import (
    aggregate_of,
    aggregate_origin,
    global_origin,
    global_shard,
    global_signer,
    global_verifier,
    log_verifiers,
)
from domain.transparency.merkle import EMPTY_ROOT
from domain.transparency.note import NoteError, Signer, open_note

SEED = bytes(range(32))


def test_shard_0_keeps_the_one_stores_origin_and_the_others_name_their_shard() -> None:
    assert global_origin("opus.example") == "opus.example"
    assert global_origin("opus.example", 0) == "opus.example"
    assert global_origin("opus.example", 3) == "opus.example/shard/3"
    with pytest.raises(ValueError, match="shard -1"):
        global_origin("opus.example", -1)


@pytest.mark.parametrize(
    ("origin", "shard"),
    [
        ("opus.example", 0),
        ("opus.example/shard/1", 1),
        ("opus.example/shard/12", 12),
        ("opus.example/shard/0", None),  # shard 0's origin is the name itself
        ("opus.example/shard/01", None),
        ("opus.example/shard/", None),
        ("opus.example/shard/1/x", None),
        ("opus.example/shard/١", None),  # a digit, but not an ASCII one
        ("other.example/shard/1", None),
        ("opus.example/00000000-0000-0000-0000-000000000001", None),  # a game's log
    ],
)
def test_an_origin_names_a_shards_global_log_exactly(origin: str, shard: int | None) -> None:
    assert global_shard("opus.example", origin) == shard


def test_a_shards_origin_is_never_a_games() -> None:
    game = uuid4()
    assert aggregate_of("opus.example", global_origin("opus.example", 1)) is None
    assert global_shard("opus.example", aggregate_origin("opus.example", game)) is None


def test_a_shards_checkpoints_are_signed_by_the_key_under_its_origin() -> None:
    signer = Signer("opus.example", SEED)
    assert global_signer(signer, 0) is signer
    shard = global_signer(signer, 2)
    assert shard.name == "opus.example/shard/2"  # C2SP: the key name matches the origin
    assert shard.verifier.public_key == signer.verifier.public_key
    assert shard.key_id != signer.key_id  # the key id covers the name
    note = shard.sign_note(Checkpoint(shard.name, 0, EMPTY_ROOT).text()).encode()
    open_note(note, [global_verifier(signer.verifier, 2)])
    with pytest.raises(NoteError, match="no signature of a known key"):
        open_note(note, [signer.verifier])
    with pytest.raises(NoteError, match="no signature of a known key"):
        open_note(note, [global_verifier(signer.verifier, 1)])


def test_the_keys_a_checkpoint_may_be_signed_with_follow_its_origin() -> None:
    current, retired = Signer("opus.example", SEED), Signer("opus.example", bytes(32))
    keys = [current.verifier, retired.verifier]
    shard_1 = log_verifiers(keys, "opus.example/shard/1")
    assert shard_1 == [*keys, *(global_verifier(k, 1) for k in keys)]
    assert log_verifiers(keys, "opus.example") == keys
    game = aggregate_origin("opus.example", uuid4())  # its own name, and the plain one before
    assert log_verifiers(keys, game) == [*keys, *(k.named(game) for k in keys)]
    assert log_verifiers(keys, "other.example/shard/1") == keys
