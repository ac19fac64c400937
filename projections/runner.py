"""Keeps projections live: catch up from their tracked positions, then follow.

A runner keeps one projection, or several on one subscription (``opus
project`` and ``opus serve`` run all of them so): it subscribes to the
application's recorder after the lowest position its views have committed
(PostgreSQL: the library's LISTEN/NOTIFY subscription; SQLite:
projections/subscription.py), reads and decodes each event once, and hands
what arrives to every projection in batches: each view commits the events
at hand, up to ``batch_size``, together with the last one's position,
skipping those it holds already. Catching up costs one commit per batch and
view; a live event is committed as soon as it arrives.

Failures:
- a projection error stops the runner with a ``ProjectionError`` naming the
  projection and the failing position; the events before it in its batch
  are committed first, so a restart resumes exactly at the failing event;
- a view store that cannot be reached is retried (the position reloaded)
  until ``reconnect_timeout``, then the runner stops loudly;
- so is an event store that drops its connection (PostgreSQL restarted, a
  connection killed, idle or busy): the application and its subscription
  are opened again, from the view's position, until ``reconnect_timeout``;
- while idle, every ``check_interval`` seconds, the runner reads its views'
  positions (and active generations) from the store: if one went back or
  vanished (Redis restarted empty, or from an older snapshot) or moved
  under it, the views are reloaded and followed from the store's positions
  at once, not at the next event;
- a tracking conflict (another writer, or a blue/green swap) reloads the
  views' generations and positions and resubscribes from there.

Heartbeat: while following, idle or busy, the runner writes its
projections' heartbeat to the view store (``ViewStore.beat``, the time now)
every ``heartbeat_interval`` seconds: /readyz tells a dead or stuck
projector from an idle one by it (``OPUS_READY_MAX_SILENCE``), where the
views' lag shows nothing until events arrive. A runner that cannot follow
(a store unreachable, being retried) writes none.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import InterfaceError, Notification, OperationalError

from domain.application import Opus
from domain.internals import Row
from projections.base import DecodedEvent, EventDecoder, ViewProjection, rows_of
from projections.ports import TrackingConflictError, ViewStore, ViewStoreUnavailableError
from projections.queries import WAIT_TIMEOUT
from projections.view import View

log = logging.getLogger(__name__)
BATCH_SIZE = 500  # events committed together at most
RECONNECT_TIMEOUT = 30.0  # seconds an unreachable view or event store is retried
CHECK_INTERVAL = 1.0  # seconds between checks, while idle, of the view's stored position
RETRY_PAUSE = 0.2  # seconds between attempts to reach a store again
HEARTBEAT_INTERVAL = 2.0  # seconds between a following runner's heartbeats


def event_store_errors() -> tuple[type[BaseException], ...]:
    """The errors of an event store that cannot be reached now: eventsourcing's
    own, psycopg's (the LISTEN connection raises them unwrapped) and the
    socket's."""
    errors: tuple[type[BaseException], ...] = (
        OperationalError,
        InterfaceError,
        ConnectionError,
    )
    try:
        import psycopg
    except ImportError:  # pragma: no cover - PostgreSQL's client is optional
        return errors
    return (*errors, psycopg.OperationalError, psycopg.InterfaceError)


EVENT_STORE_ERRORS = event_store_errors()


class EventStoreUnavailableError(Exception):
    """The event store stayed unreachable for the runner's reconnect timeout."""


class ViewMovedError(Exception):
    """The view's stored position (or active generation) is not the one the
    runner holds: it went back or vanished (the store restarted empty), or
    another writer moved it. The runner reloads the view."""


class ProjectionError(Exception):
    """A projection failed on an event; the message names its position."""

    def __init__(self, projection: str, position: int, detail: str) -> None:
        super().__init__(f"projection {projection} failed at position {position}: {detail}")
        self.projection = projection
        self.position = position


def project_batch(
    projection: ViewProjection,
    rows: Sequence[Row],
    events: list[DecodedEvent],
    application_name: str,
    decode_error: Exception | None,
    positions: list[int],
) -> None:
    """Project decoded events in one commit. ``events[i]`` is ``rows[i]``
    decoded (a record, projections/base.py) and ``positions`` the rows'
    positions; a shorter list means the next row failed to decode with
    ``decode_error``, which is this view's failure only if it does not hold
    that row already (a view ahead of others does). On a failure, commit the
    events before it, then raise a ProjectionError with its position. A
    caller that gets no error while ``decode_error`` is set has rows after
    the undecodable one still to read: every view held that one."""
    view = projection.view
    decoded = len(events)  # rows[decoded], if any, failed to decode
    error: Exception | None = None
    try:
        with view.batch():
            projection.process_events(events, positions[:decoded])
    except (ViewStoreUnavailableError, TrackingConflictError):
        raise
    except Exception as e:
        error = e
    if error is None:
        if decode_error is None or (view.position or 0) >= positions[decoded]:
            return
        failed, error = decoded, decode_error
    else:
        # the batch was not committed; batch_position says how far it got
        reached = view.batch_position
        failed = 0 if reached is None else sum(p <= reached for p in positions[:decoded])
        if failed:
            with view.batch():
                projection.process_events(events[:failed], positions[:failed])
    position, originator_id, version, topic, _ = rows[failed]
    kind = topic.rpartition(":")[2]
    what = f"{kind} v{version} of game {_aggregate(originator_id)}"
    raise ProjectionError(
        projection.name, position, f"{what}: {type(error).__name__}: {error}"
    ) from error


def _aggregate(originator_id: Any) -> str:
    """An aggregate id as the message names it (a UUID's usual text)."""
    try:
        return str(originator_id if isinstance(originator_id, UUID) else UUID(originator_id))
    except (TypeError, ValueError, AttributeError):
        return str(originator_id)


class Outage:
    """One store's outage: it began at the first failure since the store was
    last reached, and lasting past ``timeout`` seconds it raises ``error``."""

    def __init__(self, what: str, timeout: float, error: type[Exception]) -> None:
        self.what = what
        self.timeout = timeout
        self.error = error
        self.since: float | None = None

    def reached(self) -> None:
        self.since = None

    def failed(self, cause: BaseException) -> None:
        now = time.monotonic()
        if self.since is None:
            self.since = now
        if now - self.since > self.timeout:
            raise self.error(
                f"{self.what} unreachable for {self.timeout:.0f} s: {type(cause).__name__}: {cause}"
            ) from cause


class ProjectionRunner:
    """Runs one projection, or several on one subscription, in a thread
    until stopped or failed.

    ``open_application`` opens the application whose log it follows
    (infra/bootstrap.py gives one); the runner owns what it returns, and
    closes it when it stops."""

    def __init__(
        self,
        projection_classes: type[ViewProjection] | Sequence[type[ViewProjection]],
        store: ViewStore,
        open_application: Callable[[], Opus],
        *,
        batch_size: int = BATCH_SIZE,
        reconnect_timeout: float = RECONNECT_TIMEOUT,
        check_interval: float = CHECK_INTERVAL,
        heartbeat_interval: float = HEARTBEAT_INTERVAL,
    ) -> None:
        if isinstance(projection_classes, type):
            projection_classes = [projection_classes]
        if not projection_classes:
            raise ValueError("a runner needs a projection")
        self.projection_classes = tuple(projection_classes)
        self.name = ", ".join(cls.name for cls in self.projection_classes)
        self.store = store
        self.batch_size = batch_size
        self.reconnect_timeout = reconnect_timeout
        self.check_interval = check_interval
        self.heartbeat_interval = heartbeat_interval
        self._open_application = open_application
        # Opened here, in the caller's thread: runners started together in
        # threads would race to create PostgreSQL's tables and functions.
        self.app = open_application()
        self.error: BaseException | None = None
        # the views being followed, by projection name (set once following)
        self.views: dict[str, View] = {}
        # A store that fails is retried for ``reconnect_timeout`` seconds from
        # the first failure since it was last reached.
        self._views_outage = Outage(
            f"projection {self.name}: view store", reconnect_timeout, ViewStoreUnavailableError
        )
        self._events_outage = Outage(
            f"projection {self.name}: event store", reconnect_timeout, EventStoreUnavailableError
        )
        self._app_broken = False
        # each view's position at the last check, if that check found it behind the log
        self._behind_at: dict[str, int | None] = {}
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        label = self.projection_classes[0].name if len(self.projection_classes) == 1 else "all"
        self._thread = threading.Thread(target=self._run, name=f"project-{label}", daemon=True)

    # ---- control ----------------------------------------------------------------

    def start(self) -> ProjectionRunner:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def run_forever(self, timeout: float | None = None) -> None:
        """Block until the runner stops (or ``timeout``); re-raise its error."""
        self._stopped.wait(timeout)
        if self.error is not None:
            raise self.error

    @property
    def is_running(self) -> bool:
        return self._thread.is_alive()

    @property
    def view(self) -> View | None:
        """The view of a runner of one projection, once following."""
        if len(self.projection_classes) != 1:
            raise TypeError(f"runner of {self.name}: name a view in .views")
        return self.views.get(self.name)

    def wait(self, position: int, timeout: float = WAIT_TIMEOUT) -> None:
        """Read-your-writes: block until every view has reached ``position``."""
        deadline = time.monotonic() + timeout
        while True:
            views = list(self.views.values())
            if len(views) == len(self.projection_classes) and all(
                (view.store.position(view.ns, view.application_name) or 0) >= position
                for view in views
            ):
                return
            if self.error is not None:
                raise self.error
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name} has not reached position {position}")
            time.sleep(0.005)

    def __enter__(self) -> ProjectionRunner:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.join()
        if self.error is not None and exc[0] is None:
            raise self.error

    # ---- the loop -----------------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._stopping.is_set():
                try:
                    if self._app_broken:
                        self._reopen_application()
                    self._follow(self.app, EventDecoder(self.app.mapper))
                except ViewStoreUnavailableError as e:
                    self._views_outage.failed(e)
                    log.warning("projection %s: %s; retrying", self.name, e)
                    self._stopping.wait(RETRY_PAUSE)
                except EVENT_STORE_ERRORS as e:
                    self._events_outage.failed(e)
                    log.warning(
                        "projection %s: event store: %s: %s; reconnecting",
                        self.name,
                        type(e).__name__,
                        e,
                    )
                    self._app_broken = True
                    self._stopping.wait(RETRY_PAUSE)
                except TrackingConflictError as e:
                    log.info("projection %s: %s; reloading", self.name, e)
                except ViewMovedError as e:
                    log.warning("projection %s: %s; reloading", self.name, e)
        except BaseException as e:
            self.error = e
            log.error("%s", e)
        finally:
            self._stopping.set()
            self._stopped.set()
            self.app.close()

    def _reopen_application(self) -> None:
        """Close the application whose connections failed and open another;
        an error opening it is the event store's, retried by ``_run``."""
        try:
            self.app.close()
        except Exception as e:  # its connections are broken already
            log.debug("projection %s: closing the application: %s", self.name, e)
        self.app = self._open_application()
        self._app_broken = False

    def _follow(self, app: Opus, decoder: EventDecoder) -> None:
        """Subscribe after the views' lowest position and project until
        stopped. Returns normally only when stopping; a progress made before
        a reconnect or reload is kept."""
        projections = [cls(View(self.store, cls.name)) for cls in self.projection_classes]
        views = [projection.view for projection in projections]
        # reads the store: it is reachable again
        start = min(view.position or 0 for view in views)
        self.views = {view.projection: view for view in views}
        self._views_outage.reached()
        inbox: queue.Queue[Notification | BaseException] = queue.Queue(maxsize=4 * self.batch_size)
        subscription = app.recorder.subscribe(gt=start)
        # Entered, so that leaving joins its threads: none may still be
        # reading through the application's connections when they close.
        subscription.__enter__()
        done = threading.Event()
        reader = threading.Thread(target=_read, args=(subscription, inbox, done), daemon=True)
        reader.start()
        next_check = time.monotonic() + self.check_interval
        next_beat = 0.0  # at once: a runner that follows is alive
        try:
            while not self._stopping.is_set():
                if time.monotonic() >= next_beat:
                    self.store.beat([view.projection for view in views], time.time())
                    next_beat = time.monotonic() + self.heartbeat_interval
                try:
                    first = inbox.get(timeout=0.1)
                except queue.Empty:
                    if time.monotonic() >= next_check:
                        self._check(views)
                        next_check = time.monotonic() + self.check_interval
                    continue
                batch = [first]
                while len(batch) < self.batch_size:
                    try:
                        batch.append(inbox.get_nowait())
                    except queue.Empty:
                        break
                errors = [item for item in batch if isinstance(item, BaseException)]
                notifications = [item for item in batch if isinstance(item, Notification)]
                if notifications:
                    rows = rows_of(notifications)
                    events, decode_error = decoder.decode(rows, text_ids=False)
                    positions = [row[0] for row in rows]
                    for projection in projections:
                        project_batch(projection, rows, events, app.name, decode_error, positions)
                    self._events_outage.reached()
                    if decode_error is not None:  # every view held the undecodable event
                        raise ViewMovedError(
                            f"an event every view holds (position {positions[len(events)]}) "
                            "cannot be decoded: following again from the views' positions"
                        )
                if errors:
                    raise errors[0]
        finally:
            done.set()
            subscription.__exit__(None, None, None)
            reader.join(timeout=5)

    def _check(self, views: list[View]) -> None:
        """While idle: the event store still answers, and each view stands in
        the store where this runner believes it does and is not left behind
        the log (a notification missed: behind at two checks in a row, with
        nothing arriving between them); else raise."""
        head = self.app.recorder.max_notification_id() or 0  # raises if unreachable
        self._events_outage.reached()
        for view in views:
            self._check_view(view, head)

    def _check_view(self, view: View, head: int) -> None:
        behind = head > (view.position or 0)
        name = view.projection
        if behind and name in self._behind_at and self._behind_at[name] == view.position:
            del self._behind_at[name]
            raise ViewMovedError(
                f"{view.ns} stays at position {view.position} while the log is at {head}: "
                "following again from there"
            )
        if behind:
            self._behind_at[name] = view.position
        else:
            self._behind_at.pop(name, None)
        if view.follows_active and self.store.active_generation(name) != view.generation:
            raise ViewMovedError(f"generation {view.generation} is no longer active")
        believed = view.position
        stored = self.store.position(view.ns, view.application_name)
        if stored != believed:
            raise ViewMovedError(
                f"{view.ns} stands at position {stored} in the store, not {believed}"
            )


def _read(
    subscription: Any,
    inbox: queue.Queue[Notification | BaseException],
    done: threading.Event,
) -> None:
    """Hand the subscription's notifications (or its error) to the projecting
    thread, never blocking once that thread is done."""

    def hand(item: Notification | BaseException) -> None:
        while not done.is_set():
            try:
                inbox.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    try:
        for notification in subscription:
            hand(notification)
    except BaseException as e:
        hand(e)
