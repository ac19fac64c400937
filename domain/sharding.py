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


# ---- positions ------------------------------------------------------------------------
#
# Each shard numbers its own notifications 1, 2, 3 … (its gap-free log). A
# position a client sees (a command's answer, ``?after=``, an export's
# records) is one number that names both the shard and its notification:
# ``local × shards + shard``. With one shard it is the notification's own
# number, so today's positions do not change; within a shard the order is
# kept (a larger local number, a larger position). Across shards positions
# are not an order of time: a reader follows each shard's log by itself.


def position_of(shard: int, local: int, shards: int) -> int:
    """The position a client sees of a shard's notification ``local``."""
    if not 0 <= shard < shards:
        raise ValueError(f"shard {shard} of {shards}: there is no such shard")
    return local * shards + shard


def shard_position(position: int, shards: int) -> tuple[int, int]:
    """(shard, its notification) of a position a client sees: the inverse of
    ``position_of``. Position 0 (before everything) is shard 0's 0."""
    if shards < 1:
        raise ValueError(f"{shards} shards: there must be one or more")
    if position < 0:
        raise ValueError(f"position {position}: positions are 0 or more")
    local, shard = divmod(position, shards)
    return shard, local


def upstream_names(shards: int, one: str = "Opus") -> list[str]:
    """The names a view tracks each shard's log under, by shard: ``one``
    alone with one shard (a view's own application name), else
    ``upstream_name`` of each."""
    return [one] if shards == 1 else [upstream_name(k) for k in range(shards)]


def upstream_name(shard: int) -> str:
    """The name a view tracks a shard's log under: ``Opus`` for shard 0 (a
    view made before shards keeps its tracking), ``Opus.<k>`` for shard k."""
    return "Opus" if shard == 0 else f"Opus.{shard}"


# ---- one order across shards ----------------------------------------------------------
#
# What the read side folds across aggregates of different shards (an
# account's games, the last games to end, the ratings) needs one order that
# does not depend on which shard's events a reader met first. It is the
# events' own: their timestamp (the ISO 8601 text stored, in UTC, which
# sorts as time does), then the shard, then the notification. Within a
# shard it is the timestamps' order, which may differ from the log's where
# two commands' clocks cross; with one shard the log's order is used
# instead (no reader meets its events in any other).


def order_key(timestamp: str, position: int, shards: int) -> tuple[str, int, int]:
    """Where the event at ``position`` (a position a client sees), stamped
    ``timestamp``, stands in the order across shards."""
    shard, local = shard_position(position, shards)
    return timestamp, shard, local
