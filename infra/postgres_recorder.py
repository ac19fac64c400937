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

Waiting for the store: the library retries a read or write that meets an
unreachable store 10 times, 0.2 s apart, each attempt waiting for a pooled
connection up to ``POSTGRES_CONNECT_TIMEOUT`` (30 s by default): a request
could wait minutes. The recorder retries as the library does, unless
it was made inside ``bounded(seconds)`` (the HTTP service's processes'
are, with ``OPUS_STORE_TIMEOUT``): then each connection of its pool
carries libpq's ``connect_timeout`` and PostgreSQL's
``statement_timeout``, and a failed read or write is retried only while
``seconds`` have not passed since the first attempt, after which the
library's ``OperationalError`` (or ``InterfaceError``) is raised for the
caller to answer 503. Once the pool has waited in vain for a connection,
one request at a time tries the store again and the others fail at once,
until one succeeds (``_retried``). The reads are the library's own
statements, called without its retry: each retried method's
``__wrapped__`` (the library's ``retry`` decorator keeps it): importing
this module fails if a release stops doing so, and
tests/integration/test_availability_postgres.py holds a bounded recorder
to its bound against a PostgreSQL killed under it.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar

from eventsourcing.persistence import (
    InterfaceError,
    Notification,
    OperationalError,
    ProgrammingError,
    StoredEvent,
)
from eventsourcing.postgres import (
    PostgresAggregateRecorder,
    PostgresApplicationRecorder,
    PostgresDatastore,
)
from psycopg.errors import UndefinedFunction
from psycopg.sql import SQL, Identifier, Literal
from psycopg_pool import PoolTimeout

log = logging.getLogger(__name__)
DEFINITION = 2  # the function's definition below: a change to it is a new one
ATTEMPTS = 10  # the library's retry of a read or write: this many attempts,
RETRY_WAIT = 0.2  # this many seconds apart (jittered by a tenth)
T = TypeVar("T")
# The library's reads without its retry (its decorator's functools.wraps keeps them).
_SELECT_EVENTS = PostgresAggregateRecorder.select_events.__wrapped__
_SELECT_NOTIFICATIONS = PostgresApplicationRecorder.select_notifications.__wrapped__
_MAX_NOTIFICATION_ID = PostgresApplicationRecorder.max_notification_id.__wrapped__
_LIBRARY_INSERT = PostgresApplicationRecorder.insert_events.__wrapped__


class StoreUnreachableError(OperationalError):
    """The event store was found unreachable moments ago and another call is
    trying it again: this one did not wait (a bounded recorder's)."""


_BOUND: ContextVar[float | None] = ContextVar("store_bound", default=None)


@contextlib.contextmanager
def bounded(seconds: float) -> Iterator[None]:
    """Recorders made inside wait for the store about ``seconds`` at most:
    their pool's connections time out connecting after ``seconds`` (libpq
    counts whole seconds, 2 at least) and cancel any statement running
    longer (``statement_timeout``); a failed read or write is retried only
    within ``seconds`` of its first attempt."""
    if seconds <= 0:
        raise ValueError(f"a store timeout of {seconds} s: must be more than 0")
    token = _BOUND.set(seconds)
    try:
        yield
    finally:
        _BOUND.reset(token)


def _bind(pool: Any, seconds: float) -> None:
    if not pool.closed:
        raise RuntimeError("the pool is open already: its connections would keep no bound")
    kwargs = pool.kwargs
    if not isinstance(kwargs, dict):
        raise TypeError("the pool's connection arguments are not a dict")
    kwargs["connect_timeout"] = max(2, math.ceil(seconds))
    statement = f"-c statement_timeout={math.ceil(seconds * 1000)}"
    kwargs["options"] = " ".join(filter(None, [kwargs.get("options"), statement]))


class LockedInsertRecorder(PostgresApplicationRecorder):
    """``PostgresApplicationRecorder`` whose ``insert_events`` is one call of
    a function that locks the table, inserts and notifies."""

    def __init__(
        self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events"
    ) -> None:
        # Bounded (``bounded``): before the library's recorder opens the pool
        # (it reads the database's types at once), so every connection it
        # ever makes has the bound; one made while an open pool's arguments
        # changed would keep none.
        seconds = _BOUND.get()
        if seconds is not None:
            _bind(datastore.pool, seconds)
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
        # in C, where an array of the composite type is adapted in Python;
        # in binary (%b), where the text form escapes every byte of the
        # states (about a quarter of a millisecond a move, psycopg's dump).
        self._insert_function = function
        self._without_function = False
        self._sql_call_locked_insert = SQL(
            "SELECT * FROM {schema}.{function}"
            "(%b::{id_type}[], %b::bigint[], %b::text[], %b::bytea[]) AS ids(id)"
        ).format(schema=schema, function=Identifier(function), id_type=SQL(id_type))
        self._call_text: str | None = None
        # seconds a failed read or write is retried for (None: ATTEMPTS times)
        self.retry_seconds: float | None = seconds
        # bounded: since when no pooled connection could be had (_gate)
        self._unreachable_since: float | None = None
        self._probing = threading.Lock()

    # ---- waiting for the store ---------------------------------------------------------

    def _retried(self, attempt: Callable[[], T]) -> T:
        """``attempt()``, again after the store's operational errors: as the
        library retries (ATTEMPTS times, RETRY_WAIT apart), or, bounded,
        while ``retry_seconds`` have not passed since the first attempt.

        Bounded, once the pool has waited in vain for a connection
        (PoolTimeout: PostgreSQL down or restarting, or every connection
        taken), the store is unreachable until an attempt succeeds:
        meanwhile one call at a time makes one attempt and the others raise
        ``StoreUnreachableError`` at once (503 to an HTTP caller), so
        requests do not hold the server's threads waiting on a store that
        is down, and /healthz and the rest are answered."""
        started = time.monotonic()
        attempts = 0
        while True:
            probing = self.retry_seconds is not None and self._unreachable_since is not None
            if probing and not self._probing.acquire(blocking=False):
                raise StoreUnreachableError(
                    "the event store has been unreachable for "
                    f"{time.monotonic() - (self._unreachable_since or 0):.1f} s "
                    "(another request is trying it)"
                )
            try:
                result = attempt()
            except (InterfaceError, OperationalError) as e:
                attempts += 1
                wait = RETRY_WAIT * (1 + 0.1 * (random.random() - 0.5))
                if self.retry_seconds is None:
                    if attempts >= ATTEMPTS:
                        raise
                else:
                    if isinstance(e.__cause__, PoolTimeout) and self._unreachable_since is None:
                        self._unreachable_since = time.monotonic()
                    if probing or time.monotonic() + wait - started >= self.retry_seconds:
                        raise
                time.sleep(wait)
                continue
            finally:
                if probing:
                    self._probing.release()
            if self.retry_seconds is not None:
                self._unreachable_since = None
            return result

    def select_events(self, originator_id: Any, **kwargs: Any) -> Sequence[StoredEvent]:
        events: Sequence[StoredEvent] = self._retried(
            lambda: _SELECT_EVENTS(self, originator_id, **kwargs)
        )
        return events

    def select_notifications(self, *args: Any, **kwargs: Any) -> Sequence[Notification]:
        notifications: Sequence[Notification] = self._retried(
            lambda: _SELECT_NOTIFICATIONS(self, *args, **kwargs)
        )
        return notifications

    def max_notification_id(self) -> int | None:
        head: int | None = self._retried(lambda: _MAX_NOTIFICATION_ID(self))
        return head

    # ---- saving --------------------------------------------------------------------------

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        return self._retried(lambda: self._insert_once(stored_events, **kwargs))

    def _insert_once(
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
                if self._call_text is None:  # rendered once (identifiers quoted by libpq)
                    self._call_text = self._sql_call_locked_insert.as_string(conn)
                curs.execute(self._call_text, columns, prepare=True)
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
        ids: Sequence[int] | None = _LIBRARY_INSERT(self, stored_events, **kwargs)
        return ids
