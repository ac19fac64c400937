"""The PostgreSQL recorder the application writes with: eventsourcing's, with
one command's events saved in one round trip.

The library's recorder saves in a pipeline: ``SET LOCAL lock_timeout``,
``LOCK TABLE … IN EXCLUSIVE MODE``, ``NOTIFY``, the ``INSERT``, a sync to
read the notification ids, then ``COMMIT``: two round trips with the table
lock held across both, and across the time the Python process takes between
them. The lock is what makes the log safe to tail (no transaction is given
notification ids while another that has ids has not committed, so a reader
never passes a gap that fills in later); it also makes every concurrent save
wait in line for the one that holds it. With many API threads on few cores,
the holder is often descheduled between its round trips, and the line grows.

Here the same statements run inside one function, called as one statement in
autocommit: the lock is taken, the events inserted, the channel notified and
the transaction committed (durably, as before) on the server, without a
round trip in between. The lock is the same lock, held for as short a time
as it can be. (The library's own ``POSTGRES_ENABLE_DB_FUNCTIONS`` function
drops the lock, and with it the guarantee: it is not used.)

Errors are the library's: a duplicate version raises ``IntegrityError`` as
the library's recorder does, which the application turns into its
concurrency error. A store opened without creating its tables
(``CREATE_TABLE=n``) may lack the function: the recorder then saves as the
library does. As with any commit, a client that loses its connection while
its save runs does not learn whether it was committed (here the server
finishes a statement it has begun, where the library's transaction rolls
back unless its COMMIT was sent): a command retried with its
Idempotency-Key is answered from the command ids the events record.
tests/integration/test_postgres_recorder.py holds the recorder to the
ordering guarantee, atomicity and notification.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import (
    InterfaceError,
    OperationalError,
    ProgrammingError,
    StoredEvent,
)
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.utils import retry
from psycopg.errors import UndefinedFunction
from psycopg.sql import SQL, Identifier, Literal

log = logging.getLogger(__name__)
DEFINITION = 2  # the function's definition below: a change to it is a new one


class LockedInsertRecorder(PostgresApplicationRecorder):
    """``PostgresApplicationRecorder`` whose ``insert_events`` is one call of
    a function that locks the table, inserts and notifies."""

    def __init__(
        self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events"
    ) -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        # Named for what it is: a process opening the store creates it only
        # if it is missing (a CREATE OR REPLACE run by processes starting
        # together fails with "tuple concurrently updated"), so its name
        # carries a digest of all it is made of (the definition's version,
        # the table, the channel, the lock timeout, the id type); any change
        # is a new function beside the old.
        id_type = self.datastore.originator_id_type
        made_of = (
            DEFINITION,
            self.datastore.schema,
            self.events_table_name,
            self.channel_name,
            self.datastore.lock_timeout,
            id_type,
        )
        digest = hashlib.sha256(repr(made_of).encode()).hexdigest()[:12]
        function = f"opus_insert_events_{digest}"
        schema = Identifier(self.datastore.schema)
        self._sql_create_locked_insert = SQL(
            "DO $DO$ BEGIN "
            "IF NOT EXISTS (SELECT FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = {schema_name} AND p.proname = {function_name}) THEN "
            "CREATE FUNCTION {schema}.{function}"
            "(ids {id_type}[], versions bigint[], topics text[], states bytea[]) "
            "RETURNS SETOF bigint LANGUAGE plpgsql AS $BODY$ "
            "BEGIN "
            "SET LOCAL lock_timeout = '{lock_timeout}s'; "
            "LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE; "
            "NOTIFY {channel}; "
            "RETURN QUERY INSERT INTO {schema}.{table} "
            "(originator_id, originator_version, topic, state) "
            "SELECT * FROM unnest(ids, versions, topics, states) "
            "RETURNING notification_id; "
            "END; $BODY$; "
            "END IF; "
            "END $DO$"
        ).format(
            schema=schema,
            schema_name=Literal(self.datastore.schema),
            function=Identifier(function),
            function_name=Literal(function),
            id_type=SQL(id_type),
            lock_timeout=self.datastore.lock_timeout,
            table=Identifier(self.events_table_name),
            channel=Identifier(self.channel_name),
        )
        self.sql_create_statements.append(self._sql_create_locked_insert)
        # The events go as four arrays of plain types: psycopg adapts those
        # in C, where an array of the composite type is adapted in Python.
        self._insert_function = function
        self._without_function = False
        self._sql_call_locked_insert = SQL(
            "SELECT * FROM {schema}.{function}(%s, %s, %s, %s) AS ids(id)"
        ).format(schema=schema, function=Identifier(function))

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        if not stored_events:
            return []
        if self._without_function:
            return self._library_insert(stored_events, **kwargs)
        columns = (
            [e.originator_id for e in stored_events],
            [e.originator_version for e in stored_events],
            [e.topic for e in stored_events],
            [e.state for e in stored_events],
        )
        try:
            with self.datastore.get_connection() as conn, conn.cursor() as curs:
                curs.execute(self._sql_call_locked_insert, columns, prepare=True)
                return [row["id"] for row in curs.fetchall()]
        except ProgrammingError as e:
            if not isinstance(e.__cause__, UndefinedFunction):
                raise
        # The function is missing: the store was opened without creating
        # tables (CREATE_TABLE=n, a user without the right to create). The
        # library's own insert works without it.
        log.warning("%s is missing: saving with the library's recorder", self._insert_function)
        self._without_function = True
        return self._library_insert(stored_events, **kwargs)

    def _library_insert(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        ids: Sequence[int] | None = super().insert_events(stored_events, **kwargs)
        return ids
