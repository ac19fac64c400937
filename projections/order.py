"""Views that fold events of several aggregates, in an order that does not
depend on arrival when the event store has several shards.

A runner meets each shard's events in that shard's order, but the shards'
among themselves as they come (one lags, one is down, a rebuild reads them
one after another). What a view keeps in an order across aggregates (an
account's games, the last games to end, the name a player last played
under, the ratings, an account's tokens from their adoption on) is kept in
``domain.sharding.order_key``'s order instead: the event's timestamp, then
its shard, then its notification. With one shard nothing changes: the
log's order is the arrival, and no key is kept.

A view keeps each ordered list's keys beside it, under ``<key>@order``
(a document, one key per item), and finds where an item goes with
``place``; a "latest" value keeps the key of the event that set it.
"""

from __future__ import annotations

import bisect
from typing import Any

from domain.sharding import order_key
from projections.base import Fields
from projections.view import Transaction, View

Key = list[Any]  # [timestamp, shard, notification], as a view stores it


def key_of(view: View, fields: Fields, position: int) -> Key | None:
    """The event's place in the order across shards; None with one shard
    (arrival is the order)."""
    if view.shards == 1:
        return None
    return list(order_key(fields["timestamp"], position, view.shards))


def keys_key(key: str) -> str:
    """Where the keys of the ordered list ``key`` are kept."""
    return f"{key}@order"


def place(tx: Transaction, key: str, at: Key | None, items: list[Any]) -> int:
    """Where an item of order ``at`` goes in ``items`` (the list kept under
    ``key``): its end with one shard, else after every item that sorts
    before or with it; its key is recorded there."""
    if at is None:
        return len(items)
    keys: list[Key] = tx.doc(keys_key(key), [])
    index = bisect.bisect_right(keys, at)
    keys.insert(index, at)
    return index


def remove(tx: Transaction, key: str, index: int) -> None:
    """The item at ``index`` of the ordered list ``key`` was removed (by a
    view of several shards)."""
    del tx.doc(keys_key(key), [])[index]


def trim(tx: Transaction, key: str, keep: int) -> None:
    """The ordered list ``key`` keeps its last ``keep`` items (a view of
    several shards)."""
    del tx.doc(keys_key(key), [])[:-keep]


def is_latest(tx: Transaction, key: str, at: Key | None) -> bool:
    """Is the event of order ``at`` the latest to set the value ``key``? It
    is then recorded as such. With one shard, every event is."""
    if at is None:
        return True
    kept: Key | None = tx.peek(keys_key(key))
    if kept is not None and kept > at:
        return False
    tx.put(keys_key(key), at)
    return True
