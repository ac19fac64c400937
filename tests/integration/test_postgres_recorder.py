"""The application's PostgreSQL recorder (infra/postgres_recorder.py): one
round trip per save, with the library's table lock and its guarantees."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent

from domain.application import Opus
from infra.postgres_recorder import LockedInsertRecorder
from tests.settings import connect_test_postgres as connect
from tests.settings import test_postgres_env

pytestmark = pytest.mark.postgres


@pytest.fixture
def schema() -> Iterator[str]:
    name = f"opus_recorder_{uuid.uuid4().hex[:10]}"
    with connect() as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    yield name
    with connect() as conn:
        conn.execute(f"DROP SCHEMA {name} CASCADE")


@pytest.fixture
def app(schema: str) -> Iterator[Opus]:
    application = Opus(env={**test_postgres_env(), "POSTGRES_SCHEMA": schema})
    yield application
    application.close()


def events(originator_id: uuid.UUID, versions: range) -> list[StoredEvent]:
    return [StoredEvent(originator_id, v, "topic", b"{}") for v in versions]


def test_the_application_writes_with_it(app: Opus) -> None:
    assert type(app.recorder) is LockedInsertRecorder


def test_a_save_returns_its_positions_in_order(app: Opus) -> None:
    recorder = app.recorder
    a, b = uuid.uuid4(), uuid.uuid4()
    first = recorder.insert_events(events(a, range(1, 4)))
    second = recorder.insert_events(events(b, range(1, 3)))
    assert first is not None and second is not None
    assert list(first) == [1, 2, 3]
    assert list(second) == [4, 5]
    stored = recorder.select_notifications(start=None, limit=10)
    assert [(n.id, n.originator_id, n.originator_version) for n in stored] == [
        (1, a, 1),
        (2, a, 2),
        (3, a, 3),
        (4, b, 1),
        (5, b, 2),
    ]
    assert recorder.insert_events([]) == []


def test_a_conflicting_save_raises_and_saves_none_of_its_events(app: Opus) -> None:
    recorder = app.recorder
    a, b = uuid.uuid4(), uuid.uuid4()
    recorder.insert_events(events(a, range(1, 3)))
    with pytest.raises(IntegrityError):
        # b's events come first: the save is all or nothing
        recorder.insert_events([*events(b, range(1, 3)), *events(a, range(2, 3))])
    assert recorder.select_events(b) == []
    assert [n.originator_id for n in recorder.select_notifications(None, 10)] == [a, a]


def test_a_save_waits_for_the_table_lock(app: Opus, schema: str) -> None:
    """The lock that keeps the log safe to tail is taken inside the call: a
    save made while another transaction holds it waits for its commit."""
    done = threading.Event()

    def save() -> None:
        app.recorder.insert_events(events(uuid.uuid4(), range(1, 2)))
        done.set()

    with connect() as holder:
        with holder.transaction():
            table = f"{schema}.{app.recorder.events_table_name}"
            holder.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
            thread = threading.Thread(target=save)
            thread.start()
            assert not done.wait(0.5), "the save did not wait for the table lock"
        assert done.wait(5)
        thread.join()


def test_a_reader_tailing_the_log_never_passes_a_position_filled_later(app: Opus) -> None:
    """Concurrent saves while a reader tails the log from its last position:
    what it reads, page after page, is the whole log in the end."""
    recorder = app.recorder
    stop = threading.Event()
    seen: list[int] = []

    def tail() -> None:
        position = 0
        while True:
            finished = stop.is_set()
            page = recorder.select_notifications(position, 50, inclusive_of_start=False)
            seen.extend(n.id for n in page)
            if page:
                position = page[-1].id
            elif finished:
                return

    def write() -> None:
        for _ in range(40):
            recorder.insert_events(events(uuid.uuid4(), range(1, 4)))

    reader = threading.Thread(target=tail)
    reader.start()
    writers = [threading.Thread(target=write) for _ in range(8)]
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    stop.set()
    reader.join()
    everything = [n.id for n in recorder.select_notifications(None, 10_000)]
    assert len(everything) == 8 * 40 * 3
    assert seen == everything


def test_a_subscription_hears_a_save(app: Opus) -> None:
    """The call notifies the channel the library's subscriptions listen on."""
    with app.recorder.subscribe(gt=0) as subscription:
        time.sleep(0.2)  # listening
        app.recorder.insert_events(events(uuid.uuid4(), range(1, 2)))
        notification = next(iter(subscription))
    assert notification.id == 1


CHILD = """
import sys, uuid
from eventsourcing.persistence import StoredEvent
from domain.application import Opus
from tests.settings import connect_test_postgres as connect
from tests.settings import test_postgres_env
schema, originator = sys.argv[1], uuid.UUID(sys.argv[2])
app = Opus(env={**test_postgres_env(), "POSTGRES_SCHEMA": schema})
app.recorder.insert_events([StoredEvent(originator, v, "topic", b"{}") for v in range(1, 6)])
"""


def test_a_client_killed_during_its_save_leaves_all_of_it_or_none(app: Opus, schema: str) -> None:
    """The save is one statement: a client killed while it runs (here,
    waiting for the table lock) cannot leave part of its events."""
    table = f"{schema}.{app.recorder.events_table_name}"
    originator = uuid.uuid4()
    waiting = f"SELECT count(*) FROM pg_locks WHERE relation = '{table}'::regclass AND NOT granted"
    with connect() as holder, holder.transaction():
        holder.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
        child = subprocess.Popen([sys.executable, "-c", CHILD, schema, str(originator)])
        deadline = time.monotonic() + 30
        while holder.execute(waiting).fetchone() == (0,):
            assert child.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait()
    time.sleep(0.5)  # the server finishes (or drops) the statement
    saved = [e.originator_version for e in app.recorder.select_events(originator)]
    assert saved in ([], [1, 2, 3, 4, 5])


def test_a_changed_setting_makes_a_new_function(app: Opus, schema: str) -> None:
    """The function is made only when missing, so its name says all it is
    made of: another lock timeout is another function."""
    other = Opus(
        env={**test_postgres_env(), "POSTGRES_SCHEMA": schema, "POSTGRES_LOCK_TIMEOUT": "5"}
    )
    try:
        names = {app.recorder._insert_function, other.recorder._insert_function}  # type: ignore[attr-defined]
        assert len(names) == 2
        with connect() as db:
            made = db.execute(
                "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                "WHERE n.nspname = %s AND p.proname LIKE 'opus_insert_events_%%'",
                (schema,),
            ).fetchall()
        assert {row[0] for row in made} == names
        originator = uuid.uuid4()
        other.recorder.insert_events(events(originator, range(1, 3)))
        assert [e.originator_version for e in app.recorder.select_events(originator)] == [1, 2]
    finally:
        other.close()


def test_a_store_opened_without_creating_saves_without_the_function(app: Opus, schema: str) -> None:
    """CREATE_TABLE=n on a store whose function is missing: the saves go
    through the library's own insert, with the same results."""
    with connect() as db:
        db.execute(f"DROP FUNCTION {schema}.{app.recorder._insert_function}")  # type: ignore[attr-defined]
    opened = Opus(env={**test_postgres_env(), "POSTGRES_SCHEMA": schema, "CREATE_TABLE": "n"})
    try:
        first = opened.recorder.insert_events(events(uuid.uuid4(), range(1, 4)))
        second = opened.recorder.insert_events(events(uuid.uuid4(), range(1, 2)))
        assert first is not None and second is not None
        assert list(first) == [1, 2, 3] and list(second) == [4]
        with pytest.raises(IntegrityError):
            opened.recorder.insert_events(events(uuid.uuid4(), range(1, 2)) * 2)
    finally:
        opened.close()
