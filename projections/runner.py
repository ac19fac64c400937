"""Keeps one projection live: catch up from its tracked position, then follow.

A runner subscribes to the application's recorder after the position its
view has committed (PostgreSQL: the library's LISTEN/NOTIFY subscription;
SQLite: projections/subscription.py), and projects what arrives in batches:
the events at hand, up to ``batch_size``, are committed together with the
last one's position. Catching up costs one commit per batch; a live event is
committed as soon as it arrives.

Failures:
- a projection error stops the runner with a ``ProjectionError`` naming the
  failing position; the events before it in its batch are committed first,
  so a restart resumes exactly at the failing event;
- a view store that cannot be reached is retried (the position reloaded)
  until ``reconnect_timeout``, then the runner stops loudly;
- a tracking conflict (another writer, or a blue/green swap) reloads the
  view's generation and position and resubscribes from there.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from eventsourcing.persistence import Notification

from domain.application import Opus
from projections.base import EventDecoder, ViewProjection
from projections.ports import TrackingConflictError, ViewStore, ViewStoreUnavailableError
from projections.queries import WAIT_TIMEOUT
from projections.view import View

log = logging.getLogger(__name__)
BATCH_SIZE = 500  # events committed together at most
RECONNECT_TIMEOUT = 30.0  # seconds an unreachable view store is retried


class ProjectionError(Exception):
    """A projection failed on an event; the message names its position."""

    def __init__(self, projection: str, position: int, detail: str) -> None:
        super().__init__(f"projection {projection} failed at position {position}: {detail}")
        self.projection = projection
        self.position = position


def decode_all(
    decoder: Callable[[Notification], Any], notifications: Sequence[Notification]
) -> tuple[list[Any], Exception | None]:
    """The events, up to the first that cannot be decoded, and its error."""
    events: list[Any] = []
    for notification in notifications:
        try:
            events.append(decoder(notification))
        except Exception as e:
            return events, e
    return events, None


def project_batch(
    projection: ViewProjection,
    notifications: Sequence[Notification],
    events: list[Any],
    application_name: str,
    decode_error: Exception | None = None,
) -> None:
    """Project decoded events in one commit. ``events[i]`` is
    ``notifications[i]`` decoded; a shorter list means the next one failed
    to decode with ``decode_error``. On a failure, commit the events before
    it, then raise a ProjectionError with its position."""
    view = projection.view
    positions = [n.id for n in notifications]
    error: Exception | None = decode_error
    try:
        with view.batch():
            projection.process_events(events, positions)
    except (ViewStoreUnavailableError, TrackingConflictError):
        raise
    except Exception as e:
        error = e
    if error is None:
        return
    # the batch was not committed; batch_position says how far it got
    reached = view.batch_position
    done = 0 if reached is None else sum(p <= reached for p in positions)
    if done:
        with view.batch():
            projection.process_events(events[:done], positions[:done])
    failed = notifications[done]
    kind = failed.topic.rpartition(":")[2]
    what = f"{kind} v{failed.originator_version} of game {failed.originator_id}"
    raise ProjectionError(
        projection.name, failed.id, f"{what}: {type(error).__name__}: {error}"
    ) from error


class ProjectionRunner:
    """Runs one projection in a thread until stopped or failed.

    ``open_application`` opens the application whose log it follows
    (infra/bootstrap.py gives one); the runner owns what it returns, and
    closes it when it stops."""

    def __init__(
        self,
        projection_class: type[ViewProjection],
        store: ViewStore,
        open_application: Callable[[], Opus],
        *,
        batch_size: int = BATCH_SIZE,
        reconnect_timeout: float = RECONNECT_TIMEOUT,
    ) -> None:
        self.projection_class = projection_class
        self.name = projection_class.name
        self.store = store
        self.batch_size = batch_size
        self.reconnect_timeout = reconnect_timeout
        # Opened here, in the caller's thread: runners started together in
        # threads would race to create PostgreSQL's tables and functions.
        self.app = open_application()
        self.error: BaseException | None = None
        self.view: View | None = None
        self._reached_store = True
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"project-{self.name}", daemon=True)

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

    def wait(self, position: int, timeout: float = WAIT_TIMEOUT) -> None:
        """Read-your-writes: block until the view has reached ``position``."""
        deadline = time.monotonic() + timeout
        while True:
            view = self.view
            if view is not None:
                reached = view.store.position(view.ns, view.application_name)
                if reached is not None and reached >= position:
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
        app = self.app
        try:
            decoder = EventDecoder(app.mapper)
            unavailable_since = 0.0
            while not self._stopping.is_set():
                try:
                    self._follow(app, decoder)
                except ViewStoreUnavailableError as e:
                    now = time.monotonic()
                    if self._reached_store:  # a new outage: its own time limit
                        unavailable_since, self._reached_store = now, False
                    if now - unavailable_since > self.reconnect_timeout:
                        raise ViewStoreUnavailableError(
                            f"projection {self.name}: view store unreachable for "
                            f"{self.reconnect_timeout:.0f} s: {e}"
                        ) from e
                    log.warning("projection %s: %s; retrying", self.name, e)
                    self._stopping.wait(0.2)
                except TrackingConflictError as e:
                    log.info("projection %s: %s; reloading", self.name, e)
        except BaseException as e:
            self.error = e
            log.error("%s", e)
        finally:
            self._stopping.set()
            self._stopped.set()
            app.close()

    def _follow(self, app: Opus, decoder: EventDecoder) -> None:
        """Subscribe after the view's position and project until stopped.
        Returns normally only when stopping; a progress made before a
        reconnect or reload is kept."""
        view = View(self.store, self.name)
        projection = self.projection_class(view)
        self.view = view
        view.position  # noqa: B018 - reads the store: it is reachable again
        self._reached_store = True
        inbox: queue.Queue[Notification | BaseException] = queue.Queue(maxsize=4 * self.batch_size)
        subscription = app.recorder.subscribe(gt=view.position)
        # Entered, so that leaving joins its threads: none may still be
        # reading through the application's connections when they close.
        subscription.__enter__()
        done = threading.Event()
        reader = threading.Thread(target=_read, args=(subscription, inbox, done), daemon=True)
        reader.start()
        try:
            while not self._stopping.is_set():
                try:
                    first = inbox.get(timeout=0.1)
                except queue.Empty:
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
                    events, decode_error = decode_all(decoder, notifications)
                    project_batch(projection, notifications, events, app.name, decode_error)
                if errors:
                    raise errors[0]
        finally:
            done.set()
            subscription.__exit__(None, None, None)
            reader.join(timeout=5)


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
