"""The save function of infra/postgres_recorder.py notifies the store's
channel: a listener hears a save made by this process, within a bound.

The channel is named after the events table alone (eventsourcing's
recorder: no schema in it), so every store of the tests shares one unless
its table is named apart: here a schema and a table of this test's own,
whose channel no other test or process uses, so that nothing but this
save can wake the listener."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
from eventsourcing.persistence import StoredEvent
from psycopg.sql import SQL, Identifier

from domain.application import Opus
from infra.postgres_recorder import LockedInsertRecorder
from tests.settings import connect_test_postgres as connect
from tests.settings import test_postgres_env

pytestmark = pytest.mark.postgres

HEARD_WITHIN = 5.0  # seconds: a notification sent at the commit arrives at once
QUIET_FOR = 0.3  # seconds the channel is listened to before the save


@pytest.fixture
def recorder() -> Iterator[LockedInsertRecorder]:
    """The application's recorder on a table of its own, in a schema of its own."""
    name = uuid.uuid4().hex[:10]
    schema = f"opus_notify_{name}"
    with connect() as conn:
        conn.execute(SQL("CREATE SCHEMA {}").format(Identifier(schema)))
    app = Opus(env={**test_postgres_env(), "POSTGRES_SCHEMA": schema})
    try:
        assert type(app.recorder) is LockedInsertRecorder
        own = LockedInsertRecorder(
            app.recorder.datastore, events_table_name=f"notify_{name}_events"
        )
        own.create_table()
        yield own
    finally:
        app.close()
        with connect() as conn:
            conn.execute(SQL("DROP SCHEMA {} CASCADE").format(Identifier(schema)))


def test_a_save_notifies_its_channel_within_a_bound(recorder: LockedInsertRecorder) -> None:
    channel = recorder.channel_name
    assert channel.startswith("notify_")
    with connect() as listener:
        listener.execute(SQL("LISTEN {}").format(Identifier(channel)))
        assert list(listener.notifies(timeout=QUIET_FOR)) == []  # nobody else's
        saved = recorder.insert_events([StoredEvent(uuid.uuid4(), 1, "topic", b"{}")])
        started = time.monotonic()
        heard = list(listener.notifies(timeout=HEARD_WITHIN, stop_after=1))
        waited = time.monotonic() - started
    assert saved is not None and list(saved) == [1]
    assert not recorder._without_function  # saved by the function, not the library insert
    assert [n.channel for n in heard] == [channel], f"nothing heard in {waited:.1f} s"
    assert waited < HEARD_WITHIN
