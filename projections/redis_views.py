"""The Redis adapter of the view port: production.

Key layout under a prefix (``OPUS_REDIS_PREFIX``, ``opus:`` by default):
``<prefix><ns>:<key>`` for values — strings for documents, lists, sorted
sets — ``<prefix><ns>~tracking`` (a hash: application name -> position) and
``<prefix>~active:<projection>`` (the generation queries read) and
``<prefix>~heartbeats`` (a hash: projection -> its runner's last heartbeat).

A commit WATCHes the tracking hash (and the active pointer), checks the
position, then sends the data and the new position in one MULTI/EXEC: Redis
applies all of it or none, and a concurrent writer makes EXEC fail. If the
connection drops before the reply, the outcome is unknown; the caller reloads
the position, and the compare-and-set makes a retry skip what did land.

On a Redis Cluster (``REDIS_URL=redis+cluster://…``, projections/redis_client.py)
a transaction may only touch keys of one hash slot, so every key of one
projection carries its name as a hash tag: ``<prefix>{<projection>}.<generation>:<key>``,
``<prefix>{<projection>}.<generation>~tracking`` and ``<prefix>~active:{<projection>}``.
A view's batch (its data, its position, its active pointer) is then one slot
on one master, and the commit above runs there unchanged, on that master's
own connection: as atomic as on one Redis. The views spread over the
masters one projection each; one game's or tournament's keys of a view
share its slot.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.exceptions import WatchError

from projections.ports import (
    DEFAULT_GENERATION,
    Changes,
    TrackingConflictError,
    ViewStoreUnavailableError,
    moved,
    patched,
)
from projections.redis_client import (
    CLUSTER_UNAVAILABLE,
    connect,
    for_key,
    hash_tag,
    is_cluster,
    moving,
    refresh,
)

T = TypeVar("T")
TRACKING = "~tracking"
HEARTBEATS = "~heartbeats"


@contextmanager
def _translated(url: str, cluster: Any = None) -> Iterator[None]:
    """Redis's connection errors as the port's (BusyLoadingError is one: a
    restarted server still reading its append-only file); on a ``cluster``
    also its failover's (a master gone, a slot moved), after which the
    client learns the slots again."""
    try:
        yield
    except (RedisConnectionError, RedisTimeoutError) as e:
        if cluster is not None:
            refresh(cluster)
        raise ViewStoreUnavailableError(f"Redis at {url}: {e}") from e
    except Exception as e:
        if cluster is None or not (isinstance(e, CLUSTER_UNAVAILABLE) or moving(e)):
            raise
        refresh(cluster)
        raise ViewStoreUnavailableError(f"Redis Cluster at {url}: {e}") from e


class RedisViewStore:
    """Views in Redis, every key under ``prefix``."""

    def __init__(self, url: str, prefix: str, *, timeout: float = 5.0) -> None:
        self.url = url
        self.prefix = prefix
        # Any: redis-py 5 annotates the synchronous client's replies as
        # "Awaitable[T] | T", shared with its asyncio client.
        self.redis: Any = connect(
            url, decode_responses=True, socket_timeout=timeout, socket_connect_timeout=timeout
        )
        # a Redis Cluster: keys hash-tagged by projection (the module's docstring)
        self.cluster: Any = self.redis if is_cluster(url) else None
        if self.cluster is not None:
            hash_tag(prefix)  # a prefix holding braces would be the tag: refused

    def _ns(self, ns: str) -> str:
        if self.cluster is None:
            return ns
        projection, dot, generation = ns.rpartition(".")
        return f"{hash_tag(projection)}{dot}{generation}" if dot else hash_tag(ns)

    def _key(self, ns: str, key: str) -> str:
        return f"{self.prefix}{self._ns(ns)}:{key}"

    def _tracking(self, ns: str) -> str:
        return f"{self.prefix}{self._ns(ns)}{TRACKING}"

    def _active(self, projection: str) -> str:
        tagged = projection if self.cluster is None else hash_tag(projection)
        return f"{self.prefix}~active:{tagged}"

    def _call(self, fn: Callable[[], T]) -> T:
        with _translated(self.url, self.cluster):
            return fn()

    # ---- reads ---------------------------------------------------------------

    def position(self, ns: str, application_name: str) -> int | None:
        value = self._call(lambda: self.redis.hget(self._tracking(ns), application_name))
        return None if value is None else int(value)

    def get(self, ns: str, key: str) -> str | None:
        value: str | None = self._call(lambda: self.redis.get(self._key(ns, key)))
        return value

    def items(self, ns: str, key: str, start: int = 0) -> list[str]:
        values: list[str] = self._call(lambda: self.redis.lrange(self._key(ns, key), start, -1))
        return values

    def scores(self, ns: str, key: str) -> dict[str, int]:
        pairs: list[tuple[str, float]] = self._call(
            lambda: self.redis.zrange(self._key(ns, key), 0, -1, withscores=True)
        )
        return {member: int(score) for member, score in sorted(pairs)}

    def active_generation(self, projection: str) -> str:
        value = self._call(lambda: self.redis.get(self._active(projection)))
        return str(value) if value else DEFAULT_GENERATION

    def _scan(self, pattern: str) -> list[str]:
        return self._call(lambda: list(self.redis.scan_iter(match=pattern, count=1000)))

    def namespaces(self) -> list[str]:
        start, end = len(self.prefix), -len(TRACKING)
        found = [k[start:end] for k in self._scan(f"{literal_pattern(self.prefix)}*{TRACKING}")]
        if self.cluster is not None:
            found = [ns.replace("{", "").replace("}", "") for ns in found]
        return sorted(found)

    def dump(self, ns: str) -> dict[str, Any]:
        start = len(self._key(ns, ""))
        out: dict[str, Any] = {}
        with _translated(self.url, self.cluster):
            keys = sorted(self._scan(f"{literal_pattern(self._key(ns, ''))}*"))
            pipe = self.redis.pipeline(transaction=False)
            for key in keys:
                pipe.type(key)
            kinds = pipe.execute()
            for key, kind in zip(keys, kinds, strict=True):
                if kind == "string":
                    pipe.get(key)
                elif kind == "list":
                    pipe.lrange(key, 0, -1)
                elif kind == "zset":
                    pipe.zrange(key, 0, -1, withscores=True)
                else:
                    raise TypeError(f"unexpected {kind} at {key}")
            labels = {"string": "doc", "list": "list", "zset": "zset"}
            for key, kind, value in zip(keys, kinds, pipe.execute(), strict=True):
                name = f"{labels[kind]} {key[start:]}"
                out[name] = {m: int(s) for m, s in sorted(value)} if kind == "zset" else value
            tracking: dict[str, str] = self.redis.hgetall(self._tracking(ns))
        return {**out, "tracking": {k: int(v) for k, v in tracking.items()}}

    # ---- writes --------------------------------------------------------------

    def commit(
        self,
        ns: str,
        changes: Changes,
        application_name: str,
        expected: int | None,
        position: int,
        active: tuple[str, str] | None = None,
        *,
        holds: Mapping[str, int | None] | None = None,
    ) -> None:
        tracking = self._tracking(ns)
        # one slot on a cluster: its master's own connection (redis_client.for_key)
        client = self._call(lambda: for_key(self.redis, tracking))
        with _translated(self.url, self.cluster), client.pipeline(transaction=True) as pipe:
            watched = [tracking] + ([self._active(active[0])] if active else [])
            pipe.watch(*watched)
            stored: str | None = pipe.hget(tracking, application_name)
            stored_position = None if stored is None else int(stored)
            if stored_position != expected:
                raise TrackingConflictError(
                    f"{ns} is at position {stored_position}, not {expected}"
                )
            if holds:
                others: dict[str, str] = pipe.hgetall(tracking)
                conflict = moved({k: int(v) for k, v in others.items()}, holds)
                if conflict is not None:
                    raise TrackingConflictError(f"{ns}: {conflict}")
            if active is not None:
                current = pipe.get(self._active(active[0])) or DEFAULT_GENERATION
                if current != active[1]:
                    raise TrackingConflictError(f"{active[0]} now reads generation {current}")
            # the length of each list that is appended to and has items
            # replaced: a replaced item appended in this batch is sent as it
            # ends, not sent and then set
            patching = [
                key for key, change in changes.lists.items() if change.appended and change.replaced
            ]
            lengths: dict[str, int] = {}
            if patching:
                reader = client.pipeline(transaction=False)
                for key in patching:
                    reader.llen(self._key(ns, key))
                lengths = dict(zip(patching, reader.execute(), strict=True))
            pipe.multi()
            for key, value in changes.docs.items():
                if value is None:
                    pipe.delete(self._key(ns, key))
                else:
                    pipe.set(self._key(ns, key), value)
            for key, change in changes.lists.items():
                replaced = change.replaced
                if change.cleared:
                    pipe.delete(self._key(ns, key))
                if change.appended:
                    start = 0 if change.cleared else lengths.get(key)
                    appended = change.appended
                    if start is not None:
                        appended, replaced = patched(change, start)
                    pipe.rpush(self._key(ns, key), *appended)
                for index, value in replaced.items():
                    pipe.lset(self._key(ns, key), index, value)
            for key, removed in changes.zset_removed.items():
                pipe.zrem(self._key(ns, key), *removed)
            for key, members in changes.zsets.items():
                for member, amount in members.items():
                    pipe.zincrby(self._key(ns, key), amount, member)
            pipe.hset(tracking, application_name, str(position))
            try:
                pipe.execute()
            except WatchError:
                raise TrackingConflictError(f"{ns} was written by someone else") from None

    def activate(self, projection: str, generation: str) -> None:
        self._call(lambda: self.redis.set(self._active(projection), generation))

    def drop(self, ns: str) -> None:
        keys = [*self._scan(f"{literal_pattern(self._key(ns, ''))}*"), self._tracking(ns)]
        with _translated(self.url, self.cluster):
            for i in range(0, len(keys), 1000):
                self.redis.unlink(*keys[i : i + 1000])

    def beat(self, projections: Sequence[str], at: float) -> None:
        mapping = dict.fromkeys(projections, repr(at))
        self._call(lambda: self.redis.hset(f"{self.prefix}{HEARTBEATS}", mapping=mapping))

    def beats(self) -> dict[str, float]:
        values: dict[str, str] = self._call(
            lambda: self.redis.hgetall(f"{self.prefix}{HEARTBEATS}")
        )
        return {name: float(at) for name, at in values.items()}

    def close(self) -> None:
        self.redis.close()


def literal_pattern(text: str) -> str:
    """``text`` as a literal in a SCAN MATCH pattern."""
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)
