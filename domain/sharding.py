"""Where an aggregate lives when the event store is split over shards.

Each shard is an event store of its own (a PostgreSQL server) with its own
gap-free notification log. A command saves its aggregates in one
transaction, so every aggregate one command can save together must live on
one shard; this module is the one rule that says which, from ids alone (no
directory to look up, nothing to keep):

- a tournament: the shard of its id;
- a tournament's game: its tournament's shard (T5.1 saves a game's end and
  its result on the tournament in one transaction);
- a lobby game: the shard of its own id, and with it its ``Admission``
  (saved with the game when it is created);
- the service's private aggregates (topic prefix ``domain.accounts.``):
  accounts, their names (``AccountName``, saved with the account) and the
  bot accounts: shard 0, the home shard. No command saves an account with a
  game or a tournament (domain/accounts/commands.py; ``Opus.join`` and
  ``Opus.create`` save a game with its admission only), so none crosses
  shards.

The shard of an id is the first 8 bytes of its SHA-256 as a number, modulo
the count: uniform over random ids, the same in every process and release.
One shard (today's layout) puts everything on shard 0. Changing the count
moves aggregates: re-sharding is an export and an import (not built).
"""

from __future__ import annotations

import hashlib
from uuid import UUID

HOME_SHARD = 0  # the private aggregates' (accounts, names, bot accounts)


def shard_of(key: UUID, shards: int) -> int:
    """The shard (0 … ``shards``-1) an id places its aggregates on."""
    if shards < 1:
        raise ValueError(f"{shards} shards: there must be one or more")
    if shards == 1:
        return 0
    digest = hashlib.sha256(key.bytes).digest()
    return int.from_bytes(digest[:8], "big") % shards


def game_shard(game_id: UUID, tournament_id: UUID | None, shards: int) -> int:
    """A game's shard: its tournament's if it has one, else its own id's."""
    return shard_of(tournament_id if tournament_id is not None else game_id, shards)


def tournament_shard(tournament_id: UUID, shards: int) -> int:
    return shard_of(tournament_id, shards)


def private_shard(shards: int) -> int:
    """Accounts, their names and the bot accounts: the home shard."""
    if shards < 1:
        raise ValueError(f"{shards} shards: there must be one or more")
    return HOME_SHARD
