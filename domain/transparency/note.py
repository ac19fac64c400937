"""C2SP signed-note (Ed25519, signature type 0x01) and C2SP
tlog-cosignature (timestamped Ed25519 cosignatures, type 0x04).

A note is its text (ending in a newline), a blank line, then signature
lines ``— <key name> base64(key id ‖ signature)``; the text is everything
before the last blank line. A key id is the first 4 bytes of
SHA-256(key name ‖ 0x0A ‖ signature type ‖ public key). A verifier key
(vkey) is ``<name>+<hex key id>+base64(type ‖ public key)``; a signer key is
written as Go's golang.org/x/mod/sumdb/note writes one:
``PRIVATE+KEY+<name>+<hex key id>+base64(0x01 ‖ 32-byte seed)``.

A cosignature signs ``cosignature/v1\\ntime <t>\\n`` followed by the
checkpoint's note text, and its signature bytes are the 8-byte big-endian
timestamp followed by the Ed25519 signature.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ED25519 = 0x01
COSIGNATURE_V1 = 0x04
DASH = "\u2014"
MAX_SIGNATURES = 100  # signed-note: at least 16 must be accepted
_RAW = serialization.Encoding.Raw
_PUBLIC_RAW = serialization.PublicFormat.Raw


class NoteError(ValueError):
    """A note, key or signature that is not well formed, or does not verify."""


def key_id(name: str, signature_type: int, public_key: bytes) -> bytes:
    """SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4] (signed-note, tlog-cosignature)."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([signature_type]) + public_key).digest()[:4]


def check_name(name: str) -> None:
    if not name or "+" in name or any(c.isspace() for c in name):
        raise NoteError(f"a key name must be non-empty, without spaces or '+': {name!r}")


def b64decode(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise NoteError(f"not base64: {text[:40]!r}") from None


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@dataclass(frozen=True)
class Signature:
    """One signature line of a note."""

    name: str
    key_id: bytes
    signature: bytes

    def line(self) -> str:
        return f"{DASH} {self.name} {b64(self.key_id + self.signature)}\n"


@dataclass(frozen=True)
class Note:
    text: str  # ends with a newline
    signatures: tuple[Signature, ...] = ()

    def encode(self) -> str:
        return self.text + "\n" + "".join(s.line() for s in self.signatures)

    def with_signatures(self, more: Iterable[Signature]) -> Note:
        """This note with ``more`` signatures (one per key: a key's newer one replaces)."""
        known = {(s.name, s.key_id): s for s in self.signatures}
        for signature in more:
            known[(signature.name, signature.key_id)] = signature
        return Note(self.text, tuple(known.values()))


_SIGNATURE_LINE = re.compile(r"\u2014 (\S+) (\S+)")


def parse_note(data: str) -> Note:
    """The note's text and signatures, as signed-note lays them out; NoteError
    otherwise (nothing is verified here: ``Verifier.open`` does)."""
    if any(ord(c) < 0x20 and c != "\n" for c in data):
        raise NoteError("a note holds no control character but newline")
    if not data.endswith("\n"):
        raise NoteError("a note ends with a newline")
    split = data.rfind("\n\n")
    if split < 0:
        raise NoteError("a note's text and its signatures are parted by a blank line")
    text, block = data[: split + 1], data[split + 2 :]
    lines = block.split("\n")[:-1]
    if not lines:
        raise NoteError("a note has at least one signature")
    if len(lines) > MAX_SIGNATURES:
        raise NoteError(f"more than {MAX_SIGNATURES} signatures")
    signatures = []
    for line in lines:
        found = _SIGNATURE_LINE.fullmatch(line)
        if found is None:
            raise NoteError(f"not a signature line: {line[:60]!r}")
        name, encoded = found.groups()
        check_name(name)
        raw = b64decode(encoded)
        if len(raw) < 5:
            raise NoteError("a signature holds a key id and at least one byte")
        signatures.append(Signature(name, raw[:4], raw[4:]))
    return Note(text, tuple(signatures))


# ---- keys ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Verifier:
    """A public key of one signature type: 0x01 (note signatures) or 0x04
    (cosignatures)."""

    name: str
    signature_type: int
    public_key: bytes

    @property
    def key_id(self) -> bytes:
        return key_id(self.name, self.signature_type, self.public_key)

    def vkey(self) -> str:
        encoded = b64(bytes([self.signature_type]) + self.public_key)
        return f"{self.name}+{self.key_id.hex()}+{encoded}"

    @classmethod
    def from_vkey(cls, vkey: str) -> Verifier:
        parts = vkey.strip().split("+", 2)
        if len(parts) != 3 or not re.fullmatch(r"[0-9a-f]{8}", parts[1]):
            raise NoteError(f"a vkey is <name>+<8 hex digits>+<base64>: {vkey[:60]!r}")
        name, hex_id, encoded = parts
        check_name(name)
        raw = b64decode(encoded)
        if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE_V1):
            raise NoteError("only Ed25519 vkeys (type 0x01 or 0x04, 32 bytes) are known here")
        verifier = cls(name, raw[0], raw[1:])
        if verifier.key_id.hex() != hex_id:
            raise NoteError(f"the vkey's key id {hex_id} is not its key's")
        return verifier

    def named(self, name: str) -> Verifier:
        """The same public key under another name (its key id is the name's):
        a shard's global log is signed so (domain/transparency/logs.py)."""
        check_name(name)
        return Verifier(name, self.signature_type, self.public_key)

    def matches(self, signature: Signature) -> bool:
        return signature.name == self.name and signature.key_id == self.key_id

    def verifies(self, text: str, signature: Signature) -> bool:
        """Whether ``signature`` (this key's name and id) signs ``text``."""
        if not self.matches(signature):
            return False
        message, sig = text.encode(), signature.signature
        if self.signature_type == COSIGNATURE_V1:
            if len(sig) != 72:
                return False
            (timestamp,) = struct.unpack(">Q", sig[:8])
            message, sig = cosigned_message(timestamp, text), sig[8:]
        try:
            Ed25519PublicKey.from_public_bytes(self.public_key).verify(sig, message)
        except (InvalidSignature, ValueError):
            return False
        return True


def cosigned_message(timestamp: int, text: str) -> bytes:
    """What a cosignature signs (tlog-cosignature, Ed25519 signed message)."""
    if timestamp >= 1 << 63:
        raise NoteError("a cosignature's time is below 2^63")
    return f"cosignature/v1\ntime {timestamp}\n{text}".encode()


def cosignature_time(signature: Signature) -> int:
    """The timestamp a cosignature (type 0x04) carries."""
    if len(signature.signature) != 72:
        raise NoteError("a cosignature is an 8-byte time and a 64-byte signature")
    return int(struct.unpack(">Q", signature.signature[:8])[0])


def open_note(data: str, verifiers: Iterable[Verifier]) -> tuple[Note, list[Verifier]]:
    """The note, and the known keys whose signatures on it verify (signed-note's
    rules: an unknown key's signature is ignored; a known key's that fails
    rejects the whole note; a note with none verified is rejected)."""
    note = parse_note(data)
    keys = list(verifiers)
    verified: list[Verifier] = []
    for signature in note.signatures:
        for key in keys:
            if key.matches(signature):
                if not key.verifies(note.text, signature):
                    raise NoteError(f"the signature of {key.name}+{key.key_id.hex()} fails")
                if key not in verified:
                    verified.append(key)
    if not verified:
        raise NoteError("no signature of a known key on this note")
    return note, verified


class Signer:
    """An Ed25519 key that signs notes (type 0x01) or cosigns (type 0x04)."""

    def __init__(self, name: str, seed: bytes, signature_type: int = ED25519) -> None:
        check_name(name)
        if len(seed) != 32:
            raise NoteError("an Ed25519 seed is 32 bytes")
        self.name = name
        self.signature_type = signature_type
        self._key = Ed25519PrivateKey.from_private_bytes(seed)
        self._seed = seed
        public = self._key.public_key().public_bytes(_RAW, _PUBLIC_RAW)
        self.verifier = Verifier(name, signature_type, public)
        self.key_id = self.verifier.key_id

    @classmethod
    def generate(cls, name: str, signature_type: int = ED25519) -> Signer:
        key = Ed25519PrivateKey.generate()
        raw = serialization.PrivateFormat.Raw
        seed = key.private_bytes(_RAW, raw, serialization.NoEncryption())
        return cls(name, seed, signature_type)

    @classmethod
    def from_text(cls, text: str, signature_type: int = ED25519) -> Signer:
        """A key written as ``PRIVATE+KEY+<name>+<hex id>+base64(0x01 ‖ seed)``
        (the type byte in the file is Ed25519's; ``signature_type`` says
        whether it signs notes or cosigns, as Go's cosigner reads the same)."""
        parts = text.strip().split("+", 4)
        if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
            raise NoteError("a signer key is PRIVATE+KEY+<name>+<hex key id>+<base64>")
        _, _, name, hex_id, encoded = parts
        raw = b64decode(encoded)
        if len(raw) != 33 or raw[0] not in (ED25519, COSIGNATURE_V1):
            raise NoteError("only Ed25519 signer keys (33 bytes with their type) are known here")
        signer = cls(name, raw[1:], signature_type)
        written = Verifier(name, raw[0], signer.verifier.public_key).key_id.hex()
        if written != hex_id:
            raise NoteError(f"the signer key's id {hex_id} is not its key's")
        return signer

    def to_text(self) -> str:
        written = Verifier(self.name, ED25519, self.verifier.public_key).key_id.hex()
        return f"PRIVATE+KEY+{self.name}+{written}+{b64(bytes([ED25519]) + self._seed)}\n"

    def vkey(self) -> str:
        return self.verifier.vkey()

    def as_type(self, signature_type: int) -> Signer:
        """The same key signing as another type (a witness's key file is an
        Ed25519 key; it cosigns, type 0x04, as Go's cosigner reads the same)."""
        return Signer(self.name, self._seed, signature_type)

    def named(self, name: str) -> Signer:
        """The same key under another name (``Verifier.named``)."""
        return Signer(name, self._seed, self.signature_type)

    def sign(self, text: str) -> Signature:
        """A note signature (type 0x01) on ``text``."""
        if self.signature_type != ED25519:
            raise NoteError("this key cosigns: use cosign")
        return Signature(self.name, self.key_id, self._key.sign(text.encode()))

    def cosign(self, text: str, timestamp: int) -> Signature:
        """A cosignature (type 0x04) on a checkpoint's note text at ``timestamp``."""
        if self.signature_type != COSIGNATURE_V1:
            raise NoteError("this key signs notes: use sign")
        if len(text.split("\n")) < 4:  # three lines and the final newline at least
            raise NoteError("only a checkpoint's text is cosigned")
        signed = self._key.sign(cosigned_message(timestamp, text))
        return Signature(self.name, self.key_id, struct.pack(">Q", timestamp) + signed)

    def sign_note(self, text: str) -> Note:
        return Note(text, (self.sign(text),))
