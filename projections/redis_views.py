"""The Redis adapter of the view port: production.

Key layout under a prefix (``OPUS_REDIS_PREFIX``, ``opus:`` by default):
``<prefix><ns>:<key>`` for values — strings for documents, lists, sorted
sets — ``<prefix><ns>~tracking`` (a hash: application name -> position) and
``<prefix>~active:<projection>`` (the generation queries read) and
``<prefix>~heartbeats`` (a hash: projection -> its runner's last heartbeat).

A commit is one script that Redis runs whole, with nothing else between
its steps (``_COMMIT_SCRIPT``): it checks the position (and the other
shards' positions, and the active pointer), then writes the data and the new
position; on a check that fails it writes nothing. One round trip a commit,
where a WATCH, its reads and a MULTI/EXEC took four or more: the live
projector commits each of its views after every move. If the connection
drops before the reply, the outcome is unknown; the caller reloads the
position, and the compare-and-set makes a retry skip what did land.

On a Redis Cluster (``REDIS_URL=redis+cluster://…``, projections/redis_client.py)
a transaction may only touch keys of one hash slot, so every key of one
projection carries its name as a hash tag: ``<prefix>{<projection>}.<generation>:<key>``,
``<prefix>{<projection>}.<generation>~tracking`` and ``<prefix>~active:{<projection>}``.
A view's batch (its data, its position, its active pointer) is then one slot
on one master, and the commit's script runs there unchanged, on that
master's own connection: as atomic as on one Redis. The views spread over the
masters one projection each; one game's or tournament's keys of a view
share its slot.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError

from projections.ports import (
    DEFAULT_GENERATION,
    Changes,
    Commit,
    NoSuchItemError,
    TrackingConflictError,
    ViewStoreUnavailableError,
    moved,
    one_by_one,
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

# A commit, run by Redis as one script: the checks, then every write, or
# nothing. KEYS: the tracking hash, the active pointer when it is checked,
# then the keys written; ARGV: the upstream log's name, the position
# expected ("" for none), the new one, the generation that must be active
# ("" when not checked), the default generation, the count of other
# upstreams held and each one's name and position, then the writes, each a
# code and its key's index in KEYS: S value (set a document), D (delete),
# P n items (append to a list), L index value (replace a list's item,
# after the appends), R n members (remove from a sorted set), I amount
# member (add to a member's score). Before anything is written, every key
# written is checked to hold its kind of value (or none), and every
# replaced item to be in its list: a command Redis would refuse halfway
# through is refused before the first write. A refusal is returned:
# {"position", stored} | {"holds", name, stored} | {"active", current} |
# {"index", key, index} (NoSuchItemError) | {"type", key, found, wanted}
# (TypeError: a projection's bug).
_COMMIT_SCRIPT = """
local tracking = KEYS[1]
local stored = redis.call('HGET', tracking, ARGV[1])
if (stored or '') ~= ARGV[2] then return {'position', stored or ''} end
local held = tonumber(ARGV[6])
local at = 7
for _ = 1, held do
  local other = redis.call('HGET', tracking, ARGV[at])
  if (other or '') ~= ARGV[at + 1] then return {'holds', ARGV[at], other or ''} end
  at = at + 2
end
if ARGV[4] ~= '' then
  local current = redis.call('GET', KEYS[2])
  if not current or current == '' then current = ARGV[5] end
  if current ~= ARGV[4] then return {'active', current} end
end
local first = at
local lengths, types = {}, {}
local kinds = {S = 'string', P = 'list', L = 'list', R = 'zset', I = 'zset'}
while at <= #ARGV do
  local code, key = ARGV[at], KEYS[tonumber(ARGV[at + 1])]
  local kind = kinds[code]
  if kind then
    local found = types[key] or redis.call('TYPE', key).ok
    types[key] = found
    if found ~= 'none' and found ~= kind then return {'type', key, found, kind} end
  end
  if code == 'S' or code == 'L' or code == 'I' then
    if code == 'L' then
      local index = tonumber(ARGV[at + 2])
      local length = lengths[key] or redis.call('LLEN', key)
      lengths[key] = length
      if index < 0 or index >= length then return {'index', key, ARGV[at + 2]} end
      at = at + 4
    else
      at = at + (code == 'S' and 3 or 4)
    end
  elseif code == 'D' then
    lengths[key], types[key] = 0, 'none'
    at = at + 2
  else
    local n = tonumber(ARGV[at + 2])
    if code == 'P' then lengths[key] = (lengths[key] or redis.call('LLEN', key)) + n end
    at = at + 3 + n
  end
end
at = first
while at <= #ARGV do
  local code, key = ARGV[at], KEYS[tonumber(ARGV[at + 1])]
  if code == 'S' then
    redis.call('SET', key, ARGV[at + 2]); at = at + 3
  elseif code == 'D' then
    redis.call('DEL', key); at = at + 2
  elseif code == 'L' then
    redis.call('LSET', key, ARGV[at + 2], ARGV[at + 3]); at = at + 4
  elseif code == 'I' then
    redis.call('ZINCRBY', key, ARGV[at + 2], ARGV[at + 3]); at = at + 4
  else
    local n = tonumber(ARGV[at + 2])
    local verb = code == 'P' and 'RPUSH' or 'ZREM'
    for from = at + 3, at + 2 + n, 1000 do
      redis.call(verb, key, unpack(ARGV, from, math.min(from + 999, at + 2 + n)))
    end
    at = at + 3 + n
  end
end
redis.call('HSET', tracking, ARGV[1], ARGV[3])
return false
"""


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


def _refusal(
    ns: str,
    refused: list[str],
    expected: int | None,
    active: tuple[str, str] | None,
    holds: Mapping[str, int | None],
) -> str:
    """What a commit's script refused, said."""
    kind, *said = refused
    if kind == "position":
        return f"{ns} is at position {int(said[0]) if said[0] else None}, not {expected}"
    if kind == "holds":
        stored = {said[0]: int(said[1]) if said[1] else None}
        return f"{ns}: {moved(stored, {said[0]: holds.get(said[0])})}"
    return f"{active[0] if active else ns} now reads generation {said[0]}"


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
        self._commit_script: Any = self.redis.register_script(_COMMIT_SCRIPT)

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

    def items_and_doc(
        self, ns: str, key: str, start: int, doc: str
    ) -> tuple[list[str], str | None]:
        def read() -> tuple[list[str], str | None]:
            pipe = self.redis.pipeline(transaction=False)  # one slot: one projection's keys
            pipe.lrange(self._key(ns, key), start, -1)
            pipe.get(self._key(ns, doc))
            values, text = pipe.execute()
            return values, text

        found: tuple[list[str], str | None] = self._call(read)
        return found

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
        made = Commit(ns, changes, application_name, expected, position, active, holds)
        keys, args = self._script_arguments(made)
        # one slot on a cluster: its master's own connection (redis_client.for_key)
        client = self._call(lambda: for_key(self.redis, keys[0]))
        with _translated(self.url, self.cluster):
            refused = self._commit_script(keys=keys, args=args, client=client)
        error = self._refused(made, refused)
        if error is not None:
            raise error

    def commit_many(self, commits: Sequence[Commit]) -> list[Exception | None]:
        """The commits' scripts in one pipeline, one round trip (a cluster's
        views are on several masters: one commit after another there)."""
        if self.cluster is not None or len(commits) < 2:
            return one_by_one(self, commits)
        prepared = [self._script_arguments(c) for c in commits]
        sha = self._commit_script.sha
        with _translated(self.url, self.cluster):
            pipe = self.redis.pipeline(transaction=False)
            for keys, args in prepared:
                pipe.evalsha(sha, len(keys), *keys, *args)
            replies = pipe.execute(raise_on_error=False)
        outcomes: list[Exception | None] = []
        for made, reply in zip(commits, replies, strict=True):
            if isinstance(reply, NoScriptError):  # not run: the script is loaded, and it runs
                outcomes.extend(one_by_one(self, [made]))
            elif isinstance(reply, Exception):
                outcomes.append(reply)
            else:
                outcomes.append(self._refused(made, reply))
        return outcomes

    def _script_arguments(self, c: Commit) -> tuple[list[str], list[Any]]:
        """The commit script's KEYS and ARGV (``_COMMIT_SCRIPT``)."""
        keys = [self._tracking(c.ns)] + ([self._active(c.active[0])] if c.active else [])
        holds = c.holds or {}
        args: list[Any] = [
            c.application_name,
            "" if c.expected is None else c.expected,
            c.position,
            c.active[1] if c.active else "",
            DEFAULT_GENERATION,
            len(holds),
        ]
        for name, believed in sorted(holds.items()):
            args += [name, "" if believed is None else believed]
        changes = c.changes
        for key, value in changes.docs.items():
            keys.append(self._key(c.ns, key))
            args += ["D", len(keys)] if value is None else ["S", len(keys), value]
        for key, change in changes.lists.items():
            keys.append(self._key(c.ns, key))
            if change.cleared:
                args += ["D", len(keys)]
            if change.appended:
                args += ["P", len(keys), len(change.appended), *change.appended]
            for index, value in change.replaced.items():
                args += ["L", len(keys), index, value]
        for key, removed in changes.zset_removed.items():
            keys.append(self._key(c.ns, key))
            args += ["R", len(keys), len(removed), *removed]
        for key, members in changes.zsets.items():
            keys.append(self._key(c.ns, key))
            for member, amount in members.items():
                args += ["I", len(keys), amount, member]
        return keys, args

    def _refused(self, c: Commit, refused: list[str] | None) -> Exception | None:
        """The error a script's refusal stands for (None: it committed)."""
        if not refused:
            return None
        if refused[0] in ("index", "type"):
            key = refused[1][len(self._key(c.ns, "")) :]
            if refused[0] == "type":
                return TypeError(f"{c.ns}: {key} holds a {refused[2]}, not a {refused[3]}")
            return NoSuchItemError(f"{c.ns}: {key} has no item {refused[2]} to replace")
        return TrackingConflictError(_refusal(c.ns, refused, c.expected, c.active, c.holds or {}))

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
