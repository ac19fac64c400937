"""What the service's logs hold, and what they are called.

- An aggregate's log (a game's, a tournament's): leaf i (from 0) is the
  chain value of its event of version i + 1, as 32 raw bytes; the tree's
  size is the aggregate's version. Its origin is ``<name>/<aggregate id>``.
  Chain values cover hidden fields sealed (domain/chain.py), so a tree
  discloses nothing the public export does not.
- The global log: one leaf per event of a game or a tournament, in commit
  order (the log's positions; the service's private aggregates, accounts,
  are left out as every public reader leaves them), each leaf the 56 bytes
  aggregate id (16, as a UUID's bytes) ‖ version (8, big-endian) ‖ chain
  value (32): the aggregate's head after that event. Its origin is
  ``<name>``, the service's key name.
"""

from __future__ import annotations

import struct
from uuid import UUID

from domain.transparency.merkle import leaf_hash


def chain_leaf(chain: str) -> bytes:
    """The leaf hash of an event in its aggregate's log."""
    return leaf_hash(bytes.fromhex(chain))


def head_data(aggregate_id: UUID | str, version: int, chain: str) -> bytes:
    key = aggregate_id if isinstance(aggregate_id, UUID) else UUID(aggregate_id)
    return key.bytes + struct.pack(">Q", version) + bytes.fromhex(chain)


def head_leaf(aggregate_id: UUID | str, version: int, chain: str) -> bytes:
    """The leaf hash of an event in the global log."""
    return leaf_hash(head_data(aggregate_id, version, chain))


def read_head(data: bytes) -> tuple[UUID, int, str]:
    if len(data) != 56:
        raise ValueError("a global leaf is 56 bytes")
    (version,) = struct.unpack(">Q", data[16:24])
    return UUID(bytes=data[:16]), version, data[24:].hex()


def aggregate_origin(name: str, aggregate_id: UUID | str) -> str:
    return f"{name}/{aggregate_id}"


def aggregate_of(name: str, origin: str) -> UUID | None:
    """The aggregate an origin names; None for the global log's or another's."""
    prefix = name + "/"
    if not origin.startswith(prefix):
        return None
    try:
        return UUID(origin[len(prefix) :])
    except ValueError:
        return None
