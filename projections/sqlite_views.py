"""The SQLite adapter of the view port: the embedded default.

One file holds every namespace, in four tables by kind of value (documents,
lists, sorted sets, tracking) keyed by namespace, and the active generation
of each projection, and the heartbeat of each projection's runner. A
commit is one ``BEGIN IMMEDIATE`` transaction: the
position check, the data and the new position together, so a crash leaves
either all of a batch or none of it.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import count, repeat
from pathlib import Path
from typing import Any

from projections.ports import (
    DEFAULT_GENERATION,
    Changes,
    Commit,
    NoSuchItemError,
    TrackingConflictError,
    ViewStoreUnavailableError,
    moved,
    one_by_one,
    patched,
)

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS view_docs (ns TEXT NOT NULL, key TEXT NOT NULL, "
    "value TEXT NOT NULL, PRIMARY KEY (ns, key)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS view_lists (ns TEXT NOT NULL, key TEXT NOT NULL, "
    "idx INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (ns, key, idx)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS view_zsets (ns TEXT NOT NULL, key TEXT NOT NULL, "
    "member TEXT NOT NULL, score INTEGER NOT NULL, PRIMARY KEY (ns, key, member)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS view_tracking (ns TEXT NOT NULL, application_name TEXT NOT NULL, "
    "notification_id INTEGER NOT NULL, PRIMARY KEY (ns, application_name)) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS view_active (projection TEXT PRIMARY KEY, "
    "generation TEXT NOT NULL) WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS view_heartbeats (projection TEXT PRIMARY KEY, "
    "at REAL NOT NULL) WITHOUT ROWID",
)
TABLES = ("view_docs", "view_lists", "view_zsets", "view_tracking")
PAGE_SIZE = 16384


_DOC = "SELECT value FROM view_docs WHERE ns=? AND key=?"
_ITEMS = "SELECT value FROM view_lists WHERE ns=? AND key=? AND idx>=? ORDER BY idx"


class SQLiteViewStore:
    """Views in one SQLite file (WAL mode: readers never wait for the writer)."""

    def __init__(self, path: str, *, timeout: float = 30.0) -> None:
        self.path = path
        if path != ":memory:" and not path.startswith("file:"):
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(
            path, timeout=timeout, isolation_level=None, check_same_thread=False
        )
        self._lock = threading.Lock()
        with self._lock:
            # 16 KiB pages for a new file (an existing one keeps its own): a
            # move log entry is a few hundred bytes, and rows that size fill
            # 4 KiB pages of a WITHOUT ROWID table a few at a time
            self._conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
            self._conn.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a power cut may lose the last commits, never
            # split one, and data and position always travel together.
            self._conn.execute("PRAGMA synchronous=NORMAL")
            for statement in SCHEMA:
                self._conn.execute(statement)

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """The connection, for one read; SQLite's operational errors (a file
        locked past the timeout, gone, or unreadable) as the port's, as the
        Redis adapter translates Redis's connection errors."""
        with self._lock:
            try:
                yield self._conn
            except sqlite3.DatabaseError as e:  # OperationalError is one
                raise ViewStoreUnavailableError(f"{self.path}: {e}") from e

    def _one(self, sql: str, params: tuple[Any, ...]) -> Any:
        with self._reading() as c:
            row = c.execute(sql, params).fetchone()
        return None if row is None else row[0]

    # ---- reads ---------------------------------------------------------------

    def position(self, ns: str, application_name: str) -> int | None:
        sql = "SELECT notification_id FROM view_tracking WHERE ns=? AND application_name=?"
        value: int | None = self._one(sql, (ns, application_name))
        return value

    def get(self, ns: str, key: str) -> str | None:
        value: str | None = self._one(_DOC, (ns, key))
        return value

    def items(self, ns: str, key: str, start: int = 0) -> list[str]:
        with self._reading() as c:
            return [row[0] for row in c.execute(_ITEMS, (ns, key, start))]

    def items_and_doc(
        self, ns: str, key: str, start: int, doc: str
    ) -> tuple[list[str], str | None]:
        with self._reading() as c:
            values = [row[0] for row in c.execute(_ITEMS, (ns, key, start))]
            row = c.execute(_DOC, (ns, doc)).fetchone()
        return values, None if row is None else row[0]

    def scores(self, ns: str, key: str) -> dict[str, int]:
        sql = "SELECT member, score FROM view_zsets WHERE ns=? AND key=? ORDER BY member"
        with self._reading() as c:
            return {member: score for member, score in c.execute(sql, (ns, key))}

    def active_generation(self, projection: str) -> str:
        sql = "SELECT generation FROM view_active WHERE projection=?"
        value: str | None = self._one(sql, (projection,))
        return value or DEFAULT_GENERATION

    def namespaces(self) -> list[str]:
        union = " UNION ".join(f"SELECT DISTINCT ns FROM {table}" for table in TABLES)
        with self._reading() as c:
            return sorted(row[0] for row in c.execute(union))

    def dump(self, ns: str) -> dict[str, Any]:
        with self._reading() as c:
            docs = c.execute("SELECT key, value FROM view_docs WHERE ns=? ORDER BY key", (ns,))
            out: dict[str, Any] = {f"doc {key}": value for key, value in docs}
            lists: dict[str, list[str]] = {}
            sql = "SELECT key, value FROM view_lists WHERE ns=? ORDER BY key, idx"
            for key, value in c.execute(sql, (ns,)):
                lists.setdefault(f"list {key}", []).append(value)
            zsets: dict[str, dict[str, int]] = {}
            sql = "SELECT key, member, score FROM view_zsets WHERE ns=? ORDER BY key, member"
            for key, member, score in c.execute(sql, (ns,)):
                zsets.setdefault(f"zset {key}", {})[member] = score
            sql = "SELECT application_name, notification_id FROM view_tracking WHERE ns=?"
            tracking = dict(c.execute(sql, (ns,)).fetchall())
        return {**out, **lists, **zsets, "tracking": tracking}

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
        with self._lock:
            c = self._conn
            try:
                c.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as e:  # locked past the timeout
                raise ViewStoreUnavailableError(f"{self.path}: {e}") from e
            try:
                self._check(ns, application_name, expected, active)
                if holds:
                    sql = "SELECT application_name, notification_id FROM view_tracking WHERE ns=?"
                    conflict = moved(dict(c.execute(sql, (ns,)).fetchall()), holds)
                    if conflict is not None:
                        raise TrackingConflictError(f"{ns}: {conflict}")
                self._write(ns, changes)
                c.execute(
                    "INSERT INTO view_tracking VALUES (?, ?, ?) ON CONFLICT (ns, application_name) "
                    "DO UPDATE SET notification_id=excluded.notification_id",
                    (ns, application_name, position),
                )
            except BaseException:
                c.execute("ROLLBACK")
                raise
            c.execute("COMMIT")

    def commit_many(self, commits: Sequence[Commit]) -> list[Exception | None]:
        return one_by_one(self, commits)

    def _check(
        self, ns: str, application_name: str, expected: int | None, active: tuple[str, str] | None
    ) -> None:
        c = self._conn
        sql = "SELECT notification_id FROM view_tracking WHERE ns=? AND application_name=?"
        row = c.execute(sql, (ns, application_name)).fetchone()
        stored = None if row is None else row[0]
        if stored != expected:
            raise TrackingConflictError(f"{ns} is at position {stored}, not {expected}")
        if active is not None:
            sql = "SELECT generation FROM view_active WHERE projection=?"
            row = c.execute(sql, (active[0],)).fetchone()
            current = DEFAULT_GENERATION if row is None else row[0]
            if current != active[1]:
                raise TrackingConflictError(f"{active[0]} now reads generation {current}")

    def _write(self, ns: str, changes: Changes) -> None:
        c = self._conn
        puts = [(ns, key, value) for key, value in changes.docs.items() if value is not None]
        deletes = [(ns, key) for key, value in changes.docs.items() if value is None]
        c.executemany("INSERT OR REPLACE INTO view_docs VALUES (?, ?, ?)", puts)
        c.executemany("DELETE FROM view_docs WHERE ns=? AND key=?", deletes)
        rows: list[tuple[str, str, int, str]] = []
        updates: list[tuple[str, str, str, int]] = []
        for key, change in changes.lists.items():
            if change.cleared:
                c.execute("DELETE FROM view_lists WHERE ns=? AND key=?", (ns, key))
            replaced = change.replaced
            if change.appended:
                sql = "SELECT COALESCE(MAX(idx) + 1, 0) FROM view_lists WHERE ns=? AND key=?"
                start = c.execute(sql, (ns, key)).fetchone()[0]
                appended, replaced = patched(change, start)
                rows.extend(zip(repeat(ns), repeat(key), count(start), appended))
            updates.extend((value, ns, key, index) for index, value in replaced.items())
        c.executemany("INSERT INTO view_lists VALUES (?, ?, ?, ?)", rows)
        updated = c.executemany(
            "UPDATE view_lists SET value=? WHERE ns=? AND key=? AND idx=?", updates
        ).rowcount
        if updates and updated != len(updates):
            missing = next(
                (key, index)
                for _, _, key, index in updates
                if c.execute(
                    "SELECT 1 FROM view_lists WHERE ns=? AND key=? AND idx=?", (ns, key, index)
                ).fetchone()
                is None
            )
            raise NoSuchItemError(f"{ns}: {missing[0]} has no item {missing[1]} to replace")
        c.executemany(
            "DELETE FROM view_zsets WHERE ns=? AND key=? AND member=?",
            [(ns, key, m) for key, members in changes.zset_removed.items() for m in members],
        )
        c.executemany(
            "INSERT INTO view_zsets VALUES (?, ?, ?, ?) ON CONFLICT (ns, key, member) "
            "DO UPDATE SET score=score+excluded.score",
            [
                (ns, key, member, amount)
                for key, members in changes.zsets.items()
                for member, amount in members.items()
            ],
        )

    def activate(self, projection: str, generation: str) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT INTO view_active VALUES (?, ?) ON CONFLICT (projection) "
                "DO UPDATE SET generation=excluded.generation",
                (projection, generation),
            )

    def drop(self, ns: str) -> None:
        with self._lock:
            c = self._conn
            c.execute("BEGIN IMMEDIATE")
            for table in TABLES:
                c.execute(f"DELETE FROM {table} WHERE ns=?", (ns,))
            c.execute("COMMIT")

    def beat(self, projections: Sequence[str], at: float) -> None:
        with self._reading() as c:  # a write of its own, translated as a read's errors
            c.executemany(
                "INSERT INTO view_heartbeats VALUES (?, ?) ON CONFLICT (projection) "
                "DO UPDATE SET at=excluded.at",
                [(name, at) for name in projections],
            )

    def beats(self) -> dict[str, float]:
        with self._reading() as c:
            return dict(c.execute("SELECT projection, at FROM view_heartbeats").fetchall())

    def close(self) -> None:
        with self._lock:
            self._conn.close()
