"""The receipts' formats held to vectors we did not write, and to an
implementation we did not write (sigstore's checkpoint and note parser and
its RFC 6962 inclusion verifier, a test-only dependency).

- RFC 6962: the 8-leaf tree of transparency-dev/merkle's test vectors (its
  roots at every size) and its inclusion and consistency probes, each one
  that must fail failing (tests/fixtures/rfc6962_probes.json);
- signed-note: C2SP's own example vkey and note, and Go's
  golang.org/x/mod/sumdb/note vectors (a signer key that signs a note to the
  byte, its vkey, another's);
- tlog-cosignature: a cosignature's time read as transparency-dev/formats
  reads it;
- tlog-proof: Go's transparency-dev/formats layout, to the byte.
"""

from __future__ import annotations

import base64
import json
import struct
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from sigstore._internal import merkle as sigstore_merkle
from sigstore._internal.rekor.checkpoint import SignedCheckpoint as SigstoreCheckpoint

from domain.transparency import merkle
from domain.transparency.formats import Checkpoint, SignedCheckpoint, TlogProof
from domain.transparency.merkle import (
    EMPTY_ROOT,
    Frontier,
    ProofError,
    Tree,
    leaf_hash,
    verify_consistency,
    verify_inclusion,
)
from domain.transparency.note import (
    COSIGNATURE_V1,
    ED25519,
    NoteError,
    Signature,
    Signer,
    Verifier,
    cosignature_time,
    key_id,
    open_note,
    parse_note,
)

PROBES = json.loads((Path(__file__).parent.parent / "fixtures" / "rfc6962_probes.json").read_text())
# transparency-dev/merkle testonly: LeafInputs and RootHashes (RFC 6962 SHA-256)
LEAVES = [
    bytes.fromhex(h)
    for h in [
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    ]
]
ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


def b(value: str | None) -> bytes:
    return base64.b64decode(value) if value else b""


def hashes(values: list[str] | None) -> list[bytes]:
    return [b(v) for v in values or []]


# ---- RFC 6962 ---------------------------------------------------------------------------


def test_the_roots_of_the_vector_tree_at_every_size() -> None:
    tree = Tree(leaf_hash(leaf) for leaf in LEAVES)
    assert [tree.root(n).hex() for n in range(9)] == ROOTS
    frontier = Frontier()
    assert frontier.root() == EMPTY_ROOT
    for n, leaf in enumerate(LEAVES, start=1):
        frontier.append(leaf_hash(leaf))
        assert frontier.root().hex() == ROOTS[n]


@pytest.mark.parametrize("probe", PROBES["inclusion"], ids=lambda p: p["file"])
def test_inclusion_probes(probe: dict[str, Any]) -> None:
    def check() -> None:
        verify_inclusion(
            probe["leafIdx"],
            probe["treeSize"],
            b(probe["leafHash"]),
            hashes(probe["proof"]),
            b(probe["root"]),
        )

    if probe["wantErr"]:
        with pytest.raises(ProofError):
            check()
    else:
        check()


@pytest.mark.parametrize(
    "probe", [p for p in PROBES["consistency"] if p["size1"] > 0], ids=lambda p: p["file"]
)
def test_consistency_probes(probe: dict[str, Any]) -> None:
    """Every probe from a non-empty tree. The library the probes come from
    refuses any proof from size 0 ("useless"); C2SP tlog-witness takes old
    size 0 with an empty proof as consistent with any tree, and so do we
    (``test_from_the_empty_tree``)."""

    def check() -> None:
        verify_consistency(
            probe["size1"],
            probe["size2"],
            b(probe["root1"]),
            b(probe["root2"]),
            hashes(probe["proof"]),
        )

    if probe["wantErr"]:
        with pytest.raises(ProofError):
            check()
    else:
        check()


def test_from_the_empty_tree() -> None:
    root = Tree([leaf_hash(b"x")]).root()
    verify_consistency(0, 1, EMPTY_ROOT, root, [])
    verify_consistency(0, 0, EMPTY_ROOT, EMPTY_ROOT, [])
    with pytest.raises(ProofError):
        verify_consistency(0, 1, EMPTY_ROOT, root, [root])  # a proof from 0 is empty
    with pytest.raises(ProofError):
        verify_consistency(0, 1, root, root, [])  # the empty tree's root is SHA-256()


def test_the_proofs_made_are_the_vectors_proofs() -> None:
    """Every happy-path probe over the vector tree is the proof our tree makes."""
    tree = Tree(leaf_hash(leaf) for leaf in LEAVES)
    compared = 0
    for probe in PROBES["inclusion"]:
        size = probe["treeSize"]
        if probe["wantErr"] or size > 8 or b(probe["root"]) != tree.root(size):
            continue
        assert tree.inclusion(probe["leafIdx"], size) == hashes(probe["proof"])
        compared += 1
    for probe in PROBES["consistency"]:
        size = probe["size2"]
        if probe["wantErr"] or size > 8 or b(probe["root2"]) != tree.root(size):
            continue
        assert tree.consistency(probe["size1"], size) == hashes(probe["proof"])
        compared += 1
    assert compared >= 8


def test_every_proof_of_a_larger_tree_verifies_and_a_changed_one_does_not() -> None:
    tree = Tree(leaf_hash(str(i).encode()) for i in range(37))
    for size in range(1, 38):
        root = tree.root(size)
        for index in range(size):
            path = tree.inclusion(index, size)
            verify_inclusion(index, size, leaf_hash(str(index).encode()), path, root)
        for old in range(size + 1):
            proof = tree.consistency(old, size)
            verify_consistency(old, size, tree.root(old), root, proof)
            if proof:
                bad = [*proof[:-1], bytes(32)]
                with pytest.raises(ProofError):
                    verify_consistency(old, size, tree.root(old), root, bad)


def test_the_frontier_proves_its_newest_leaf() -> None:
    tree, frontier = Tree(), Frontier()
    for i in range(40):
        leaf = leaf_hash(bytes([i]))
        path = frontier.next_path()
        frontier.append(leaf)
        tree.append(leaf)
        assert path == tree.inclusion(i)
        assert frontier.root() == tree.root()


# ---- signed-note, keys, cosignatures --------------------------------------------------


def test_the_c2sp_example_vkey_verifies_its_note() -> None:
    vkey = Verifier.from_vkey(
        "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
    )
    note = (
        "This is an example message.\n\n"
        "— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3"
        "mFXmRKuwHjG1Yu72IneyaQM=\n"
    )
    opened, keys = open_note(note, [vkey])
    assert opened.text == "This is an example message.\n" and keys == [vkey]
    assert vkey.key_id == key_id("example.com/foo", ED25519, vkey.public_key)
    with pytest.raises(NoteError):
        open_note(note.replace("example message", "example massage"), [vkey])


PETER_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
PETER_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
PETER_NOTE = (
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n"
    "\n"
    "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotp"
    "RZb6KE6RyyBwJnAM=\n"
)
ENOCH_VKEY = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop"


def test_go_sumdb_note_vectors() -> None:
    signer = Signer.from_text(PETER_SKEY)
    assert signer.vkey() == PETER_VKEY
    assert signer.to_text().strip() == PETER_SKEY
    text = PETER_NOTE.split("\n\n")[0] + "\n"
    assert signer.sign_note(text).encode() == PETER_NOTE  # Ed25519 is deterministic
    enoch = Verifier.from_vkey(ENOCH_VKEY)
    peter = Verifier.from_vkey(PETER_VKEY)
    # an unknown key's signature is ignored; the known key's verifies
    enoch_line = (
        "— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWL"
        "ox33WWd1RvMc+QQ=\n"
    )
    opened, keys = open_note(PETER_NOTE + enoch_line, [peter])
    assert keys == [peter] and len(opened.signatures) == 2
    _, both = open_note(PETER_NOTE + enoch_line, [peter, enoch])
    assert both == [peter, enoch]
    with pytest.raises(NoteError):
        open_note(PETER_NOTE, [enoch])  # no known key
    for bad in [
        # the id is not its key's; an unknown type; a name with a space
        "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
    ]:
        with pytest.raises(NoteError):
            Verifier.from_vkey(bad)


def test_a_known_keys_bad_signature_rejects_the_note() -> None:
    peter = Verifier.from_vkey(PETER_VKEY)
    forged = PETER_NOTE.replace("x08go/ZJ", "x08go/ZK")
    with pytest.raises(NoteError):
        open_note(forged, [peter])
    for malformed in [
        PETER_NOTE.rstrip("\n"),  # no final newline
        PETER_NOTE.replace("\n\n", "\n"),  # no blank line
        PETER_NOTE.replace("— ", "- "),
        PETER_NOTE.replace("problem,\n", "problem,\x07\n"),
    ]:
        with pytest.raises(NoteError):
            parse_note(malformed)


def test_a_cosignature_time_as_transparency_dev_reads_it() -> None:
    raw = base64.b64decode(
        "ZGhGuQAAAABm/qTPeyKXD+R2rzyQsxPiP8mXum7qq/iF0u4vanlqJyocWODBt97w9uL+8qT7S5gxEHWWOworDcFi"
        "EBYJXORmnFBOBA=="
    )
    assert cosignature_time(Signature("w", raw[:4], raw[4:])) == 1727964367


def test_a_cosignature_signs_its_time_and_the_checkpoint() -> None:
    witness = Signer.generate("witness.example/w1", COSIGNATURE_V1)
    text = Checkpoint("example.com/log", 5, bytes(32)).text()
    signature = witness.cosign(text, 1679315147)
    public = witness.verifier.public_key
    assert witness.key_id == key_id("witness.example/w1", COSIGNATURE_V1, public)
    message = b"cosignature/v1\ntime 1679315147\n" + text.encode()
    Ed25519PublicKey.from_public_bytes(witness.verifier.public_key).verify(
        signature.signature[8:], message
    )
    assert struct.unpack(">Q", signature.signature[:8])[0] == 1679315147
    assert witness.verifier.verifies(text, signature)
    assert not witness.verifier.verifies(text.replace("\n5\n", "\n6\n"), signature)
    # the same key as a note signer is another key: its id differs
    assert Verifier(witness.name, ED25519, witness.verifier.public_key).key_id != witness.key_id


# ---- checkpoints and tlog-proofs, against sigstore --------------------------------------


def receipt(size: int, index: int) -> tuple[TlogProof, Signer, list[bytes]]:
    signer = Signer.generate("opus.test")
    data = [bytes([i]) * 32 for i in range(size)]
    tree = Tree(leaf_hash(d) for d in data)
    point = Checkpoint("opus.test/game", size, tree.root())
    signed = SignedCheckpoint(point, signer.sign_note(point.text()))
    return TlogProof(index, tuple(tree.inclusion(index)), signed, data[index]), signer, data


def test_sigstore_parses_our_checkpoint_and_verifies_its_signature() -> None:
    proof, signer, _ = receipt(13, 5)
    theirs = SigstoreCheckpoint.from_text(proof.checkpoint.encode())
    assert theirs.checkpoint.origin == "opus.test/game"
    assert theirs.checkpoint.log_size == 13
    assert theirs.checkpoint.log_hash == proof.checkpoint.checkpoint.root.hex()
    (line,) = theirs.signed_note.signatures
    assert line.name == "opus.test" and line.sig_hash == signer.key_id
    Ed25519PublicKey.from_public_bytes(signer.verifier.public_key).verify(
        base64.b64decode(line.signature), theirs.signed_note.note.encode()
    )


@pytest.mark.parametrize("size", [1, 2, 3, 7, 8, 9, 31, 64, 100])
def test_sigstore_verifies_our_inclusion_proofs(size: int) -> None:
    for index in sorted({0, size // 2, size - 1}):
        proof, _, data = receipt(size, index)
        parsed = TlogProof.parse(proof.encode())
        assert parsed == proof

        def entry(body: bytes, hashes: tuple[bytes, ...], parsed: TlogProof = parsed) -> Any:
            inclusion = SimpleNamespace(
                log_index=parsed.index,
                tree_size=parsed.checkpoint.checkpoint.size,
                hashes=list(hashes),
                root_hash=parsed.checkpoint.checkpoint.root,
            )
            return SimpleNamespace(
                _inner=SimpleNamespace(inclusion_proof=inclusion, canonicalized_body=body)
            )

        sigstore_merkle.verify_merkle_inclusion(entry(data[index], parsed.hashes))
        with pytest.raises(Exception, match="inclusion proof"):
            sigstore_merkle.verify_merkle_inclusion(entry(b"\xff" * 32, parsed.hashes))
        parsed.verify_leaf(leaf_hash(data[index]))


def test_tlog_proof_layout_to_the_byte() -> None:
    """transparency-dev/formats proof.TLogProof.Marshal's layout."""
    proof, _, _ = receipt(3, 2)
    text = proof.encode()
    head, _, rest = text.partition("\n\n")
    assert head.split("\n")[0] == "c2sp.org/tlog-proof@v1"
    assert head.split("\n")[1] == "extra " + base64.b64encode(bytes([2]) * 32).decode()
    assert head.split("\n")[2] == "index 2"
    assert len(head.split("\n")) == 3 + len(proof.hashes)
    assert rest == proof.checkpoint.encode()
    assert rest.startswith("opus.test/game\n3\n")
    with pytest.raises(NoteError):
        TlogProof.parse(text.replace("index 2", "index 02"))
    with pytest.raises(NoteError):
        Checkpoint.parse("origin\n007\n" + base64.b64encode(bytes(32)).decode() + "\n")


def test_subtree_reads_can_be_listed_before_they_are_made() -> None:
    tree = Tree(leaf_hash(bytes([i])) for i in range(21))
    wanted = merkle.nodes_needed(lambda node: merkle.consistency_path(6, 21, node))
    fetched = {key: tree.node(*key) for key in wanted}
    assert merkle.consistency_path(6, 21, merkle.from_nodes(fetched)) == tree.consistency(6)
