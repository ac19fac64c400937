"""The seeded, verifiable shuffle of RULES §9, exactly as specified there.

Anyone can re-derive a game's deck from its revealed secret and the players'
contributions; tests publish a vector to check other implementations.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
_WORD = 2**64


def new_secret() -> bytes:
    """R9.1: 32 random bytes, picked by the server at creation."""
    return secrets.token_bytes(32)


def commitment(secret: bytes) -> str:
    """R9.1: the SHA-256 of the secret, recorded when the game is created."""
    return hashlib.sha256(secret).hexdigest()


def shuffle_seed(secret: bytes, contributions: Sequence[str]) -> bytes:
    """R9.1: SHA-256(secret ‖ per seat: 4-byte big-endian UTF-8 length ‖ UTF-8)."""
    h = hashlib.sha256(secret)
    for text in contributions:
        raw = text.encode("utf-8")
        h.update(len(raw).to_bytes(4, "big"))
        h.update(raw)
    return h.digest()


def random_words(seed: bytes) -> Iterator[int]:
    """R9.2: SHA-256(seed ‖ counter as 8 bytes big-endian), four 64-bit words each."""
    counter = 0
    while True:
        block = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        for i in range(0, 32, 8):
            yield int.from_bytes(block[i : i + 8], "big")
        counter += 1


def shuffle(items: Sequence[T], seed: bytes, *, words: Iterable[int] | None = None) -> list[T]:
    """R9.2: Fisher–Yates with rejection sampling; position 0 is the top.

    ``words`` is the source of 64-bit words, ``random_words(seed)`` unless
    given: tests inject words at the rejection bound, which real words
    practically never reach (fewer than 85 of the 2^64 words, for any deck)."""
    out = list(items)
    source = iter(words) if words is not None else random_words(seed)
    for i in range(len(out) - 1, 0, -1):
        bound = i + 1
        limit = _WORD - (_WORD % bound)
        word = next(source)
        while word >= limit:
            word = next(source)
        j = word % bound
        out[i], out[j] = out[j], out[i]
    return out


def sequence_seed(seed: bytes) -> bytes:
    """R2.3: the Sequence cards are shuffled with SHA-256(seed ‖ "sequences")."""
    return hashlib.sha256(seed + b"sequences").digest()
