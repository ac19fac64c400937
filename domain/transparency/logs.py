"""What the service's logs hold, and what they are called.

- An aggregate's log (a game's, a tournament's): leaf i (from 0) is the
  chain value of its event of version i + 1, as 32 raw bytes; the tree's
  size is the aggregate's version. Its origin is ``<name>/<aggregate id>``,
  and its checkpoints are signed by the service's key under that origin as
  the key's name (C2SP tlog-checkpoint: the key name SHOULD match the
  origin): ``aggregate_signer``, ``aggregate_verifier``. Checkpoints signed
  before under the plain ``<name>`` (receipts kept, exports) still verify:
  ``log_verifiers`` gives both.
  Chain values cover hidden fields sealed (domain/chain.py), so a tree
  discloses nothing the public export does not.
- The global log: one leaf per event of a game or a tournament, in commit
  order (the log's positions; the service's private aggregates, accounts,
  are left out as every public reader leaves them), each leaf the 56 bytes
  aggregate id (16, as a UUID's bytes) ‖ version (8, big-endian) ‖ chain
  value (32): the aggregate's head after that event. Its origin is
  ``<name>``, the service's key name.
- With the event store split over shards (domain/sharding.py) there is one
  global log per shard, over that shard's own notification log: shard 0's
  origin is ``<name>`` (a store that grows shards keeps its witnessed
  history), shard k's ``<name>/shard/<k>``. Each is signed by the
  service's key under its origin as the key's name (C2SP tlog-checkpoint:
  the key name SHOULD match the origin), so a witness follows a shard's log
  by its vkey as it follows the one store's: ``global_signer``,
  ``global_verifier``. A shard's origin can never be a game's: ``shard/<k>``
  is not a UUID.
"""

from __future__ import annotations

import struct
from uuid import UUID

from domain.transparency.merkle import leaf_hash
from domain.transparency.note import Signer, Verifier

SHARD_INFIX = "/shard/"


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


def global_origin(name: str, shard: int = 0) -> str:
    """The origin of shard ``shard``'s global log (the one store's: shard 0)."""
    if shard < 0:
        raise ValueError(f"shard {shard}: shards are numbered from 0")
    return name if shard == 0 else f"{name}{SHARD_INFIX}{shard}"


def global_shard(name: str, origin: str) -> int | None:
    """The shard whose global log ``origin`` names under the key ``name``;
    None for an aggregate's log or another key's."""
    if origin == name:
        return 0
    prefix = name + SHARD_INFIX
    tail = origin[len(prefix) :] if origin.startswith(prefix) else ""
    if not tail.isdigit() or tail.startswith("0") or not tail.isascii():
        return None
    return int(tail)


def global_signer(signer: Signer, shard: int) -> Signer:
    """The service's key signing shard ``shard``'s global checkpoints: itself
    for shard 0, the same key named by the shard's origin for the others."""
    return signer if shard == 0 else signer.named(global_origin(signer.name, shard))


def global_verifier(verifier: Verifier, shard: int) -> Verifier:
    """The key a client checks shard ``shard``'s global checkpoints with."""
    return verifier if shard == 0 else verifier.named(global_origin(verifier.name, shard))


def aggregate_signer(signer: Signer, origin: str) -> Signer:
    """The service's key signing the checkpoints of ``origin``: named by the
    origin for a game's or tournament's log, itself for any other."""
    return signer.named(origin) if aggregate_of(signer.name, origin) is not None else signer


def aggregate_verifier(verifier: Verifier, aggregate_id: UUID | str) -> Verifier:
    """The key a client checks a game's (or tournament's) checkpoints with."""
    return verifier.named(aggregate_origin(verifier.name, aggregate_id))


def log_verifiers(verifiers: list[Verifier], origin: str) -> list[Verifier]:
    """The keys that may sign a checkpoint of ``origin``: ``verifiers`` (the
    service's, current or retired, under their own names: a shard 0's log,
    and an aggregate's checkpoints signed before they were named by their
    origin), and each of them under the origin's name for a shard's global
    log or a game's or tournament's log."""
    found = list(verifiers)
    for verifier in verifiers:
        shard = global_shard(verifier.name, origin)
        if shard:
            found.append(global_verifier(verifier, shard))
        elif aggregate_of(verifier.name, origin) is not None:
            found.append(verifier.named(origin))
    return found
