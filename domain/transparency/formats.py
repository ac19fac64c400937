"""C2SP tlog-checkpoint and C2SP tlog-proof.

A checkpoint's note text is the origin, the tree size in decimal (no
leading zero), the root hash in base64, each on its own line; extension
lines may follow (the service writes none). A tlog-proof is
``c2sp.org/tlog-proof@v1``, an optional ``extra <base64>`` line, ``index
<n>``, the inclusion proof's hashes in base64 one a line from the leaf's
sibling up, a blank line, then the signed checkpoint verbatim.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from domain.transparency.merkle import HASH_SIZE, verify_inclusion
from domain.transparency.note import Note, NoteError, b64, b64decode, parse_note

PROOF_HEADER = "c2sp.org/tlog-proof@v1"
_DECIMAL = re.compile(r"0|[1-9][0-9]*")


def _decimal(text: str, what: str) -> int:
    if not _DECIMAL.fullmatch(text):
        raise NoteError(f"{what} is a decimal with no leading zero: {text[:30]!r}")
    return int(text)


@dataclass(frozen=True)
class Checkpoint:
    origin: str
    size: int
    root: bytes
    extensions: tuple[str, ...] = ()

    def text(self) -> str:
        lines = [self.origin, str(self.size), b64(self.root), *self.extensions]
        return "\n".join(lines) + "\n"

    @classmethod
    def parse(cls, text: str) -> Checkpoint:
        """From a note's text (tlog-checkpoint)."""
        if not text.endswith("\n"):
            raise NoteError("a checkpoint's text ends with a newline")
        lines = text[:-1].split("\n")
        if len(lines) < 3 or any(not line for line in lines):
            raise NoteError("a checkpoint is at least three non-empty lines")
        origin, size, root, *extensions = lines
        digest = b64decode(root)
        if len(digest) != HASH_SIZE:
            raise NoteError(f"a checkpoint's root is {HASH_SIZE} bytes")
        return cls(origin, _decimal(size, "the tree size"), digest, tuple(extensions))


@dataclass(frozen=True)
class SignedCheckpoint:
    checkpoint: Checkpoint
    note: Note

    @classmethod
    def parse(cls, data: str) -> SignedCheckpoint:
        note = parse_note(data)
        return cls(Checkpoint.parse(note.text), note)

    def encode(self) -> str:
        return self.note.encode()


@dataclass(frozen=True)
class TlogProof:
    """A receipt: the index of a leaf, its inclusion proof and the signed
    checkpoint it is proven in; ``extra``: the leaf's data (here, the
    event's chain value: 32 bytes)."""

    index: int
    hashes: tuple[bytes, ...]
    checkpoint: SignedCheckpoint
    extra: bytes | None = None

    def encode(self) -> str:
        lines = [PROOF_HEADER]
        if self.extra is not None:
            lines.append(f"extra {b64(self.extra)}")
        lines.append(f"index {self.index}")
        lines.extend(b64(h) for h in self.hashes)
        return "\n".join(lines) + "\n\n" + self.checkpoint.encode()

    @classmethod
    def parse(cls, data: str) -> TlogProof:
        head, sep, rest = data.partition("\n\n")
        if not sep:
            raise NoteError("a tlog-proof's hashes and checkpoint are parted by a blank line")
        lines = head.split("\n")
        if lines[0] != PROOF_HEADER:
            raise NoteError(f"a tlog-proof starts with {PROOF_HEADER}")
        lines = lines[1:]
        extra = None
        if lines and lines[0].startswith("extra "):
            extra = b64decode(lines[0][len("extra ") :])
            lines = lines[1:]
        if not lines or not lines[0].startswith("index "):
            raise NoteError("a tlog-proof names its index")
        index = _decimal(lines[0][len("index ") :], "the index")
        hashes = []
        for line in lines[1:]:
            digest = b64decode(line)
            if len(digest) != HASH_SIZE:
                raise NoteError(f"a proof hash is {HASH_SIZE} bytes")
            hashes.append(digest)
        return cls(index, tuple(hashes), SignedCheckpoint.parse(rest), extra)

    def verify_leaf(self, leaf_hash: bytes) -> None:
        """That ``leaf_hash`` is leaf ``index`` of the checkpoint's tree
        (the checkpoint's signatures are the caller's to check)."""
        point = self.checkpoint.checkpoint
        verify_inclusion(self.index, point.size, leaf_hash, self.hashes, point.root)
