"""The tournament's hashes: its seed and the values derived from it (T1.3,
T1.4, T6.1 (4)) and the Merkle root that seals a round (T9.1).

Integers inside hashes are 4 bytes big-endian; a game id is the UUID's 16
bytes; a head (a chain value) is 32 raw bytes (TOURNAMENT.md, encodings)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from uuid import UUID

from domain.shuffle import shuffle_seed


def _u32(value: int) -> bytes:
    return value.to_bytes(4, "big")


def tournament_seed(secret: bytes, contributions: Sequence[str], beacon: str) -> bytes:
    """T1.3: R9.1 over the registrations' contributions, in registration
    order, then the beacon value as one more contribution ("" when none)."""
    return shuffle_seed(secret, [*contributions, beacon])


def round_seed(seed: bytes, round_: int) -> bytes:
    """T1.4: SHA-256(tournament seed ‖ "round" ‖ r)."""
    return hashlib.sha256(seed + b"round" + _u32(round_)).digest()


def game_secret(secret: bytes, round_: int, table: int) -> bytes:
    """T1.4: the secret of the game at table ``table`` of round ``round_``:
    HMAC-SHA256(key = tournament secret, "game:<r>:<t>" in ASCII decimal)."""
    return hmac.new(secret, b"game:%d:%d" % (round_, table), hashlib.sha256).digest()


def rank_key(seed: bytes, player: int) -> bytes:
    """T6.1 (4): SHA-256(tournament seed ‖ "rank" ‖ registration number); lower ranks first."""
    return hashlib.sha256(seed + b"rank" + _u32(player)).digest()


def _tree_hash(leaves: Sequence[bytes]) -> bytes:
    # RFC 6962 §2.1: split at the largest power of two strictly below the count.
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    split = 1 << ((len(leaves) - 1).bit_length() - 1)
    left, right = _tree_hash(leaves[:split]), _tree_hash(leaves[split:])
    return hashlib.sha256(b"\x01" + left + right).digest()


def merkle_root(leaves: Sequence[tuple[UUID, str]]) -> str:
    """T9.1: the RFC 6962 Merkle tree hash, as hex, over (game id, head as
    hex) in table order: leaf = SHA-256(0x00 ‖ game id ‖ head), node =
    SHA-256(0x01 ‖ left ‖ right); no leaves: SHA-256 of the empty string."""
    data: list[bytes] = []
    for game, head in leaves:
        raw = bytes.fromhex(head)
        if len(raw) != 32:
            raise ValueError(f"T9.1: a game's head is 32 bytes, not {len(raw)} ({head!r})")
        data.append(game.bytes + raw)
    if not data:
        return hashlib.sha256(b"").hexdigest()
    return _tree_hash(data).hex()
