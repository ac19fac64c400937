"""Every use of ``eventsourcing`` below its public API, in one place.

The rest of the code uses the library as documented (``Application``,
``Aggregate``, recorders, ``Projection``). What is here reaches further, for
speed or for what the public API lacks; tests/unit/test_internals.py and
tests/integration/test_internals_stores.py fail if a 9.x release changes
any of it:

- ``evict``: drop an aggregate from the application's cache (the
  repository's ``LRUCache`` and its ``evict`` flag);
- ``positions_by_version``: which log position each event of one aggregate
  has, by SQL on the library's own events table (the recorders offer no
  such query);
- ``select_rows``: the log's notifications as plain rows, by SQL on the
  same table: what ``select_notifications`` reads, without a
  ``Notification`` and a ``UUID`` made for each (a rebuild reads a million).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.application import Application


def on_postgres(app: Application[Any]) -> bool:
    """Whether the application's events are in PostgreSQL (by its
    ``PERSISTENCE_MODULE``, as the library chose its recorder)."""
    return str(app.env.get("PERSISTENCE_MODULE", "")).endswith("postgres")


def evict(app: Application[Any], aggregate_id: UUID) -> None:
    """Forget the cached copy of an aggregate: the next read loads it anew."""
    cache = app.repository.cache
    if cache:
        with contextlib.suppress(KeyError):
            cache.get(aggregate_id, evict=True)


def positions_by_version(
    app: Application[Any], aggregate_id: UUID, after: int = 0
) -> dict[int, int] | None:
    """Version -> log position of one aggregate's events after version
    ``after``, by an indexed lookup; None for a recorder without such a
    table (in memory)."""
    recorder: Any = app.recorder
    table = getattr(recorder, "events_table_name", None)
    datastore = getattr(recorder, "datastore", None)
    if table is None or datastore is None:
        return None
    if on_postgres(app):
        from psycopg import sql

        query = sql.SQL(
            "SELECT originator_version, notification_id FROM {}.{}"
            " WHERE originator_id = %s AND originator_version > %s"
        ).format(sql.Identifier(datastore.schema), sql.Identifier(table))
        with datastore.transaction(commit=False) as cursor:
            cursor.execute(query, (aggregate_id, after))
            return {row["originator_version"]: row["notification_id"] for row in cursor}
    with datastore.transaction(commit=False) as cursor:
        cursor.execute(
            f"SELECT originator_version, rowid FROM {table}"
            " WHERE originator_id = ? AND originator_version > ?",
            (aggregate_id.hex, after),  # the SQLite recorder keeps ids as hex
        )
        return {row[0]: row[1] for row in cursor.fetchall()}


# (position, aggregate id: a UUID or its text, version, topic, state)
Row = tuple[int, UUID | str, int, str, bytes]


def select_rows(
    app: Application[Any], after: int, limit: int, stop: int, topics: Sequence[str] = ()
) -> list[Row] | None:
    """The notifications after position ``after`` up to ``stop`` (at most
    ``limit``, of ``topics`` if any), in order, as rows: what
    ``select_notifications(after, limit, stop, topics, inclusive_of_start=False)``
    returns, each a tuple and its aggregate id as text (a UUID's text in
    any form ``UUID()`` reads). None for a recorder without such a table
    (in memory) or whose aggregate ids are not UUIDs: read notifications."""
    recorder: Any = app.recorder
    table = getattr(recorder, "events_table_name", None)
    datastore = getattr(recorder, "datastore", None)
    if table is None or datastore is None or getattr(datastore, "originator_id_type", "") != "uuid":
        return None
    if on_postgres(app):
        from psycopg import sql
        from psycopg.rows import tuple_row

        query = sql.SQL(
            "SELECT notification_id, originator_id::text, originator_version, topic, state "
            "FROM {}.{} WHERE notification_id > %s AND notification_id <= %s"
        ).format(sql.Identifier(datastore.schema), sql.Identifier(table))
        params: list[Any] = [after, stop]
        if topics:
            query += sql.SQL(" AND topic = ANY(%s)")
            params.append(list(topics))
        query += sql.SQL(" ORDER BY notification_id LIMIT %s")
        params.append(limit)
        with datastore.get_connection() as conn, conn.cursor(row_factory=tuple_row) as curs:
            curs.execute(query, params, prepare=True)
            rows: list[Row] = curs.fetchall()
            return rows
    statement = (
        f"SELECT rowid, originator_id, originator_version, topic, state FROM {table} "
        "WHERE rowid>? AND rowid<=? "
    )
    values: list[Any] = [after, stop]
    if topics:
        statement += f"AND topic IN ({','.join('?' * len(topics))}) "
        values += list(topics)
    statement += "ORDER BY rowid LIMIT ?"
    values.append(limit)
    with datastore.transaction(commit=False) as cursor:
        cursor.row_factory = None  # tuples, not the library's sqlite3.Row
        cursor.execute(statement, values)
        found: list[Row] = cursor.fetchall()
        return found
