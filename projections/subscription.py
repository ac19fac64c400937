"""A subscription for eventsourcing's SQLite recorder, which has none in 9.5.

``SubscribableSQLiteApplicationRecorder`` is the library's SQLite recorder
with ``subscribe``: select it with the environment variable
``APPLICATION_RECORDER_TOPIC`` (infra/bootstrap.py does, for every SQLite store).
Its subscription is the library's own ``ListenNotifySubscription`` — the
pull loop PostgreSQL's subscription runs on — woken by polling instead of
LISTEN: every ``interval`` seconds across processes, and at once when a
recorder of the same file in this process inserts events.

SQLite admits one writer at a time and a notification id is its rowid, so
ids become visible in order: reading after the last id seen never skips
an event committed later.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any

from eventsourcing.persistence import (
    ApplicationRecorder,
    ListenNotifySubscription,
    StoredEvent,
    Subscription,
)
from eventsourcing.sqlite import SQLiteApplicationRecorder

POLL_INTERVAL = 0.02  # seconds: how late another process's event may be seen

_wakers: dict[str, weakref.WeakSet[threading.Event]] = {}
_wakers_lock = threading.Lock()


def _register(db_name: str, waker: threading.Event) -> None:
    with _wakers_lock:
        _wakers.setdefault(db_name, weakref.WeakSet()).add(waker)


def wake(db_name: str) -> None:
    """Wake every subscription of this process on ``db_name``."""
    with _wakers_lock:
        wakers = list(_wakers.get(db_name, ()))
    for waker in wakers:
        waker.set()


class PollingSubscription(ListenNotifySubscription[SQLiteApplicationRecorder]):
    """Notifications after ``gt``: what is recorded, then what comes."""

    def __init__(
        self,
        recorder: SQLiteApplicationRecorder,
        gt: int | None = None,
        topics: Sequence[str] = (),
        interval: float = POLL_INTERVAL,
    ) -> None:
        self._interval = interval
        self._waker = threading.Event()
        _register(recorder.datastore.pool.db_name, self._waker)
        super().__init__(recorder=recorder, gt=gt, topics=topics)
        self._poll_thread = threading.Thread(target=self._poll, daemon=True)
        self._poll_thread.start()

    def _poll(self) -> None:
        # The pull loop selects after the last id whenever it is notified; a
        # poll costs one indexed query that finds nothing.
        while not self._has_been_stopped:
            self._waker.wait(self._interval)
            self._waker.clear()
            self._has_been_notified.set()

    def stop(self) -> None:
        super().stop()
        self._waker.set()

    def __exit__(self, *args: object, **kwargs: Any) -> None:
        try:
            super().__exit__(*args, **kwargs)
        finally:
            self._poll_thread.join()


class SubscribableSQLiteApplicationRecorder(SQLiteApplicationRecorder):
    """The library's SQLite recorder, with a subscription."""

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        ids = super().insert_events(stored_events, **kwargs)
        wake(self.datastore.pool.db_name)
        return ids

    def subscribe(
        self, gt: int | None = None, topics: Sequence[str] = ()
    ) -> Subscription[ApplicationRecorder]:
        return PollingSubscription(self, gt=gt, topics=topics)
