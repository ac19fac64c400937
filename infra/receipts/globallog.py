"""The global log's tree: stored beside the events, appended from the log.

Its state is a function of the log alone: the leaves are the public events'
heads in position order (domain/transparency/logs.py), so it can be dropped
and made again (``opus receipts rebuild``) and comes out the same. It is
kept in the event store's database, so that it survives restarts and every
process of the service reads one tree:

- ``opus_tlog_nodes(level, idx, hash)``: the perfect subtrees (2 a leaf);
- ``opus_tlog_leaves(idx, position, aggregate_id, version)``: which event
  each leaf is (to prove a game's head in the global log);
- ``opus_tlog_state``: the tree's size and the last position read, written
  in the transaction that writes the nodes (a crash leaves both or neither);
- ``opus_tlog_checkpoints(size, note)``: every checkpoint published, with
  the cosignatures the witnesses gave.

One process appends at a time (PostgreSQL: a transaction-scoped advisory
lock; SQLite: a lock file beside the database), so several API processes
may all run the publisher. In memory (``eventsourcing.popo``, tests) the
same tables are dictionaries.
"""

from __future__ import annotations

import contextlib
import fcntl
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from uuid import UUID

import orjson

from domain.accounts.events import PRIVATE_TOPIC_PREFIX
from domain.application import Opus
from domain.transparency.logs import head_leaf
from domain.transparency.merkle import Frontier, Node, from_nodes, nodes_needed
from domain.transparency.merkle import NodeReader as NodeReader

PAGE = 2000  # events appended per transaction
ADVISORY_KEY = 0x6F70757374_6C6F67 & 0x7FFFFFFFFFFFFFFF  # "opustlog": the appender's lock


@dataclass(frozen=True)
class Leaf:
    index: int
    position: int
    aggregate_id: str
    version: int


class Appender(Protocol):
    def state(self) -> tuple[int, int]:
        """(tree size, last position read)."""
        ...

    def nodes(self, keys: Iterable[Node]) -> dict[Node, bytes]: ...

    def append(
        self,
        nodes: Sequence[tuple[int, int, bytes]],
        leaves: Sequence[Leaf],
        size: int,
        position: int,
    ) -> None: ...


class GlobalStore(Protocol):
    def appending(self) -> contextlib.AbstractContextManager[Appender | None]:
        """The store to append to, exclusively; None while another appends."""
        ...

    def publishing(self) -> contextlib.AbstractContextManager[bool]:
        """Whether this process holds the publisher's lock (held while inside)."""
        ...

    def state(self) -> tuple[int, int]: ...

    def nodes(self, keys: Iterable[Node]) -> dict[Node, bytes]: ...

    def index_of(self, aggregate_id: UUID, version: int) -> int | None: ...

    def keep_checkpoint(self, size: int, note: str) -> None: ...

    def checkpoint(self, size: int | None = None) -> str | None:
        """The checkpoint published at ``size`` (the latest if None)."""
        ...

    def drop(self) -> None:
        """Everything: the next append starts from the log's first event."""
        ...


# ---- in memory --------------------------------------------------------------------------


class MemoryGlobalStore:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._publishing = threading.Lock()
        self.drop()

    @contextlib.contextmanager
    def publishing(self) -> Iterator[bool]:
        if not self._publishing.acquire(blocking=False):
            yield False
            return
        try:
            yield True
        finally:
            self._publishing.release()

    def drop(self) -> None:
        self._nodes: dict[Node, bytes] = {}
        self._leaves: dict[tuple[str, int], int] = {}
        self._state = (0, 0)
        self._checkpoints: dict[int, str] = {}

    @contextlib.contextmanager
    def appending(self) -> Iterator[Appender | None]:
        if not self._lock.acquire(blocking=False):
            yield None
            return
        try:
            yield self
        finally:
            self._lock.release()

    def state(self) -> tuple[int, int]:
        return self._state

    def nodes(self, keys: Iterable[Node]) -> dict[Node, bytes]:
        return {key: self._nodes[key] for key in keys if key in self._nodes}

    def append(
        self,
        nodes: Sequence[tuple[int, int, bytes]],
        leaves: Sequence[Leaf],
        size: int,
        position: int,
    ) -> None:
        for level, index, value in nodes:
            self._nodes[(level, index)] = value
        for leaf in leaves:
            self._leaves[(leaf.aggregate_id, leaf.version)] = leaf.index
        self._state = (size, position)

    def index_of(self, aggregate_id: UUID, version: int) -> int | None:
        return self._leaves.get((str(aggregate_id), version))

    def keep_checkpoint(self, size: int, note: str) -> None:
        self._checkpoints[size] = note

    def checkpoint(self, size: int | None = None) -> str | None:
        if size is None:
            size = max(self._checkpoints, default=-1)
        return self._checkpoints.get(size)


# ---- SQL: SQLite and PostgreSQL -------------------------------------------------------


def _values(row: Any) -> tuple[Any, ...]:
    return tuple(row.values()) if isinstance(row, dict) else tuple(row)


def _bytes(value: Any) -> bytes:
    return bytes(value)


class SQLGlobalStore:
    """The tables in the event store's database, through its datastore
    (eventsourcing's: the connections, pool and timeouts it already has)."""

    def __init__(self, datastore: Any, *, postgres: bool, lock_file: str | None = None) -> None:
        self.datastore = datastore
        self.postgres = postgres
        self.mark = "%s" if postgres else "?"
        prefix = f"{datastore.schema}." if postgres else ""
        self.t = {
            name: f"{prefix}opus_tlog_{name}"
            for name in ("nodes", "leaves", "state", "checkpoints")
        }
        self._thread_lock = threading.Lock()
        self._publish_lock = threading.Lock()
        self._lock_file = lock_file
        self._create()

    @contextlib.contextmanager
    def publishing(self) -> Iterator[bool]:
        """This process's publisher lock; across processes a lock file
        (SQLite) or a transaction's advisory lock (PostgreSQL, no table
        written in it: commands never wait for it)."""
        if not self._publish_lock.acquire(blocking=False):
            yield False
            return
        try:
            if self.postgres:
                with self.datastore.transaction(commit=False) as cursor:
                    cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", (ADVISORY_KEY + 1,))
                    yield bool(_values(cursor.fetchone())[0])
                return
            if self._lock_file is None:
                yield True
                return
            with file_lock(self._lock_file + ".publish", wait=False) as held:
                yield held
        finally:
            self._publish_lock.release()

    def _sql(self, text: str) -> str:
        return text.format(**self.t).replace("?", self.mark)

    def _create(self) -> None:
        blob = "BYTEA" if self.postgres else "BLOB"
        statements = [
            f"CREATE TABLE IF NOT EXISTS {{nodes}} (level SMALLINT NOT NULL, idx BIGINT NOT NULL, "
            f"hash {blob} NOT NULL, PRIMARY KEY (level, idx))",
            "CREATE TABLE IF NOT EXISTS {leaves} (idx BIGINT PRIMARY KEY, "
            "position BIGINT NOT NULL, aggregate_id TEXT NOT NULL, version BIGINT NOT NULL)",
            "CREATE UNIQUE INDEX IF NOT EXISTS opus_tlog_leaves_head ON {leaves} "
            "(aggregate_id, version)",
            "CREATE TABLE IF NOT EXISTS {state} (id INTEGER PRIMARY KEY, size BIGINT NOT NULL, "
            "position BIGINT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS {checkpoints} (size BIGINT PRIMARY KEY, "
            "note TEXT NOT NULL)",
        ]
        for attempt in range(1, 6):
            try:
                with self._exclusive(), self.datastore.transaction(commit=True) as cursor:
                    for statement in statements:
                        cursor.execute(self._sql(statement))
                return
            except Exception as e:  # processes starting together race in the catalog
                text = str(e)
                racing = "already exists" in text or "duplicate key" in text
                if attempt == 5 or not (racing or "concurrently" in text):
                    raise
                time.sleep(0.05 * attempt)

    @contextlib.contextmanager
    def _exclusive(self, wait: bool = True) -> Iterator[bool]:
        """This process's lock, and across processes a lock file (SQLite)."""
        if not self._thread_lock.acquire(blocking=wait):
            yield False
            return
        try:
            if self._lock_file is None:
                yield True
                return
            with file_lock(self._lock_file, wait) as held:
                yield held
        finally:
            self._thread_lock.release()

    @contextlib.contextmanager
    def appending(self) -> Iterator[Appender | None]:
        with self._exclusive(wait=False) as held:
            if not held:
                yield None
                return
            with self.datastore.transaction(commit=True) as cursor:
                if self.postgres:
                    cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", (ADVISORY_KEY,))
                    if not _values(cursor.fetchone())[0]:
                        yield None
                        return
                yield _SQLAppender(self, cursor)

    def _read(self, text: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.datastore.transaction(commit=False) as cursor:
            cursor.execute(self._sql(text), params)
            return [_values(row) for row in cursor.fetchall()]

    def state(self) -> tuple[int, int]:
        rows = self._read("SELECT size, position FROM {state} WHERE id = 1")
        return (int(rows[0][0]), int(rows[0][1])) if rows else (0, 0)

    def nodes(self, keys: Iterable[Node]) -> dict[Node, bytes]:
        return _select_nodes(self, None, keys)

    def index_of(self, aggregate_id: UUID, version: int) -> int | None:
        rows = self._read(
            "SELECT idx FROM {leaves} WHERE aggregate_id = ? AND version = ?",
            (str(aggregate_id), version),
        )
        return int(rows[0][0]) if rows else None

    def keep_checkpoint(self, size: int, note: str) -> None:
        upsert = (
            "INSERT INTO {checkpoints} (size, note) VALUES (?, ?) "
            "ON CONFLICT (size) DO UPDATE SET note = excluded.note"
        )
        with self.datastore.transaction(commit=True) as cursor:
            cursor.execute(self._sql(upsert), (size, note))

    def checkpoint(self, size: int | None = None) -> str | None:
        if size is None:
            rows = self._read("SELECT note FROM {checkpoints} ORDER BY size DESC LIMIT 1")
        else:
            rows = self._read("SELECT note FROM {checkpoints} WHERE size = ?", (size,))
        return str(rows[0][0]) if rows else None

    def drop(self) -> None:
        with self._exclusive(), self.datastore.transaction(commit=True) as cursor:
            for table in self.t.values():
                cursor.execute(f"DELETE FROM {table}")


def _select_nodes(store: SQLGlobalStore, cursor: Any, keys: Iterable[Node]) -> dict[Node, bytes]:
    wanted = sorted(set(keys))
    found: dict[Node, bytes] = {}
    for start in range(0, len(wanted), 400):
        chunk = wanted[start : start + 400]
        where = " OR ".join(["(level = ? AND idx = ?)"] * len(chunk))
        params = [v for key in chunk for v in key]
        sql = store._sql("SELECT level, idx, hash FROM {nodes} WHERE " + where)
        if cursor is None:
            rows = store._read("SELECT level, idx, hash FROM {nodes} WHERE " + where, params)
        else:
            cursor.execute(sql, params)
            rows = [_values(row) for row in cursor.fetchall()]
        for level, index, value in rows:
            found[(int(level), int(index))] = _bytes(value)
    return found


# PostgreSQL: a page's nodes and leaves, each table's in one statement of
# arrays sent in binary (%b), where psycopg's executemany sent and dumped
# each row apart (a move's receipts took 6 % of the API's CPU in those two
# calls)
_NODES_FROM_ARRAYS = (
    "INSERT INTO {nodes} (level, idx, hash) "
    "SELECT * FROM unnest(%b::smallint[], %b::bigint[], %b::bytea[])"
)
_LEAVES_FROM_ARRAYS = (
    "INSERT INTO {leaves} (idx, position, aggregate_id, version) "
    "SELECT * FROM unnest(%b::bigint[], %b::bigint[], %b::text[], %b::bigint[])"
)


def _columns(rows: Sequence[tuple[Any, ...]]) -> list[list[Any]]:
    """Rows of one width as its columns."""
    return [list(column) for column in zip(*rows, strict=True)]


class _SQLAppender:
    def __init__(self, store: SQLGlobalStore, cursor: Any) -> None:
        self.store, self.cursor = store, cursor

    def state(self) -> tuple[int, int]:
        self.cursor.execute(self.store._sql("SELECT size, position FROM {state} WHERE id = 1"))
        row = self.cursor.fetchone()
        return (int(_values(row)[0]), int(_values(row)[1])) if row else (0, 0)

    def nodes(self, keys: Iterable[Node]) -> dict[Node, bytes]:
        return _select_nodes(self.store, self.cursor, keys)

    def append(
        self,
        nodes: Sequence[tuple[int, int, bytes]],
        leaves: Sequence[Leaf],
        size: int,
        position: int,
    ) -> None:
        sql = self.store._sql
        rows = [(x.index, x.position, x.aggregate_id, x.version) for x in leaves]
        if self.store.postgres:  # each table's rows in one statement, as arrays
            if nodes:
                self.cursor.execute(sql(_NODES_FROM_ARRAYS), _columns(nodes))
            if rows:
                self.cursor.execute(sql(_LEAVES_FROM_ARRAYS), _columns(rows))
        else:
            if nodes:
                self.cursor.executemany(
                    sql("INSERT INTO {nodes} (level, idx, hash) VALUES (?, ?, ?)"), list(nodes)
                )
            if rows:
                self.cursor.executemany(
                    sql(
                        "INSERT INTO {leaves} (idx, position, aggregate_id, version) "
                        "VALUES (?, ?, ?, ?)"
                    ),
                    rows,
                )
        self.cursor.execute(
            sql(
                "INSERT INTO {state} (id, size, position) VALUES (1, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET size = excluded.size, position = excluded.position"
            ),
            (size, position),
        )


def open_global_store(app: Opus) -> GlobalStore:
    """The store beside the application's events: in its database (SQLite,
    PostgreSQL), or in memory."""
    datastore = getattr(app.recorder, "datastore", None)
    if datastore is None:
        return MemoryGlobalStore()
    postgres = hasattr(datastore, "schema")
    lock_file = None
    if not postgres:
        name = str(getattr(datastore, "db_name", ""))
        if name and name != ":memory:" and not name.startswith("file:"):
            lock_file = str(Path(name).with_suffix(".receipts.lock"))
    return SQLGlobalStore(datastore, postgres=postgres, lock_file=lock_file)


# ---- appending from the log ----------------------------------------------------------------


def frontier_of(size: int, read: NodeReader) -> Frontier:
    """The frontier of the stored tree of ``size`` leaves."""
    frontier = Frontier(size)
    start = 0
    for level in range(size.bit_length() - 1, -1, -1):
        if size >> level & 1:
            frontier.levels.append(level)
            frontier.hashes.append(read(level, start >> level))
            start += 1 << level
    return frontier


def frontier_nodes(size: int) -> set[Node]:
    return nodes_needed(lambda read: frontier_of(size, read))


class Sequencer:
    """Appends the log's new public events to the global tree."""

    def __init__(self, app: Opus, store: GlobalStore) -> None:
        self.app = app
        self.store = store
        self._frontier: Frontier | None = None  # as of the last append here
        self.plain = app.mapper.cipher is None and app.mapper.compressor is None

    def step(self, limit: int = PAGE) -> int | None:
        """One transaction's appending: how many leaves (None: another
        process appended or is appending). The log is read before the write
        transaction opens (SQLite's pool may not lend a reader while its
        writer is out), and the state read is checked again inside it."""
        size, position = self.store.state()
        frontier = self._frontier
        if frontier is None or frontier.size != size:
            frontier = frontier_of(size, from_nodes(self.store.nodes(frontier_nodes(size))))
        page = self.app.recorder.select_notifications(
            start=position, limit=limit, inclusive_of_start=False
        )
        self._frontier = frontier
        if not page:
            return 0
        frontier = frontier.copy()
        nodes: list[tuple[int, int, bytes]] = []
        leaves: list[Leaf] = []
        for notification in page:
            if notification.topic.startswith(PRIVATE_TOPIC_PREFIX):
                continue
            chain = self._chain(notification)
            key, version = str(notification.originator_id), notification.originator_version
            leaves.append(Leaf(frontier.size, notification.id, key, version))
            nodes.extend(frontier.append(head_leaf(key, version, chain)))
        with self.store.appending() as appender:
            if appender is None or appender.state() != (size, position):
                return None
            appender.append(nodes, leaves, frontier.size, page[-1].id)
        self._frontier = frontier
        return len(leaves)

    def catch_up(self) -> int:
        """Every page up to the log's head as it stands now (not chasing a
        log that grows meanwhile: the publisher signs between two catch-ups);
        the leaves appended."""
        head = self.app.recorder.max_notification_id() or 0
        total = 0
        while self.store.state()[1] < head:
            appended = self.step()
            if appended is None:
                return total
            total += appended
        return total

    def _chain(self, notification: Any) -> str:
        if self.plain:
            return str(orjson.loads(notification.state)["chain"])
        return str(self.app.mapper.to_domain_event(notification).chain)  # type: ignore[attr-defined]


@contextlib.contextmanager
def file_lock(path: str, wait: bool) -> Iterator[bool]:
    """An exclusive lock on a file across processes (flock); False when
    ``wait`` is off and another process holds it."""
    with open(path, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
