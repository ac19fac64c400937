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

Shards: a runner follows a sharded event store's every log, one opener
per shard (index = shard; infra/bootstrap.py's ``shard_openers``), each
read by a subscription in a thread of its own. A batch holds one shard's
events and commits that shard's position (tracked under
``domain.sharding.upstream_name``), checking the others'; the handlers get
the positions a client sees (``domain.sharding.position_of``). With
several shards' events at hand, the next run is chosen by
projections/merge.py: the earliest first, nearly in time across shards;
another shard's run not past the home shard's next account event, and,
with none at hand, once the views hold the home shard's log as it stood
after it was recorded (the accounts live there, and a seat is an
account's by them: ``_home_caught_up``). A shard that
cannot be reached is retried on its own while the others' events go on
being projected, without end when there are several shards (a shard's
outage must not stop the others; /readyz shows it), and catches up from
the views' position when it is back. With one opener it runs as it always
did.

Heartbeat: while following, idle or busy, the runner writes its
projections' heartbeat to the view store (``ViewStore.beat``, the time now)
every ``heartbeat_interval`` seconds: /readyz tells a dead or stuck
projector from an idle one by it (``OPUS_READY_MAX_SILENCE``), where the
views' lag shows nothing until events arrive. A runner that cannot follow
(a store unreachable, being retried) writes none.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import InterfaceError, Notification, OperationalError

from domain.application import Opus
from domain.internals import Row
from domain.sharding import HOME_SHARD, position_of, shard_position
from projections.base import DecodedEvent, EventDecoder, ViewProjection, rows_of
from projections.merge import Pending, next_run
from projections.ports import TrackingConflictError, ViewStore, ViewStoreUnavailableError
from projections.queries import WAIT_TIMEOUT
from projections.view import View, commit_pending

log = logging.getLogger(__name__)
BATCH_SIZE = 500  # events committed together at most
RECONNECT_TIMEOUT = 30.0  # seconds an unreachable view or event store is retried
CHECK_INTERVAL = 1.0  # seconds between checks, while idle, of the view's stored position
RETRY_PAUSE = 0.2  # seconds between attempts to reach a store again
HEARTBEAT_INTERVAL = 2.0  # seconds between a following runner's heartbeats
OUTAGE_LOG_SECONDS = 10.0  # an event store's outage is logged at most this often


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
    decode_error: Exception | None,
    positions: list[int],
    shard: int = 0,
    *,
    deferred: bool = False,
) -> None:
    """Project decoded events of shard ``shard``'s log in one commit.
    ``events[i]`` is ``rows[i]`` decoded (a record, projections/base.py) and
    ``positions`` the rows' positions in that log; a shorter list means the
    next row failed to decode with ``decode_error``, which is this view's
    failure only if it does not hold that row already (a view ahead of
    others does). On a failure, commit the events before it, then raise a
    ProjectionError with its position (the one a client sees). A caller that
    gets no error while ``decode_error`` is set has rows after the
    undecodable one still to read: every view held that one. ``deferred``
    (with every row decoded): the commit is left pending, for the caller's
    ``commit_pending``."""
    view = projection.view
    view.follow(shard)
    shards = view.shards
    shown = None if shards == 1 else [position_of(shard, p, shards) for p in positions]
    decoded = len(events)  # rows[decoded], if any, failed to decode
    error: Exception | None = None
    try:
        with view.batch(deferred=deferred and decode_error is None):
            _process(projection, events, positions, shown, decoded)
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
                _process(projection, events, positions, shown, failed)
    position, originator_id, version, topic, _ = rows[failed]
    kind = topic.rpartition(":")[2]
    what = f"{kind} v{version} of game {_aggregate(originator_id)}"
    if shown is not None:
        what = f"shard {shard}'s notification {position}, {what}"
        position = shown[failed]
    raise ProjectionError(
        projection.name, position, f"{what}: {type(error).__name__}: {error}"
    ) from error


def _process(
    projection: ViewProjection,
    events: list[DecodedEvent],
    positions: list[int],
    shown: list[int] | None,
    count: int,
) -> None:
    """The first ``count`` events projected (the positions a client sees
    given only for a shard's). All of them keep the batch's index by class."""
    records = events if count == len(events) else events[:count]
    if shown is None:
        projection.process_events(records, positions[:count])
    else:
        projection.process_events(records, positions[:count], shown[:count])


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


class Feed:
    """One shard's log as a runner follows it: the shard's application
    (opened again after a failure), the subscription a thread of its own
    reads into ``inbox``, and the shard's outage."""

    def __init__(self, shard: int, opener: Callable[[], Opus], outage: Outage) -> None:
        self.shard = shard
        self.opener = opener
        self.outage = outage
        self.app: Opus | None = None
        self.decoder: EventDecoder | None = None
        # its application failed: the reader opens another before subscribing
        self.broken = True
        self.inbox: queue.Queue[Notification | BaseException] = queue.Queue()
        self.thread: threading.Thread | None = None
        self._subscription: Any = None
        self._lock = threading.Lock()  # one reader at a time opens the application
        self._warned = -math.inf  # when its outage was last logged

    def open(self) -> None:
        """Open the shard's application (closing a failed one first); an
        error opening it is the event store's, retried by the reader."""
        with self._lock:
            if self.app is not None:
                try:
                    self.app.close()
                except Exception as e:  # its connections are broken already
                    log.debug("shard %s: closing the application: %s", self.shard, e)
                self.app = None
            self.app = self.opener()
            self.decoder = EventDecoder(self.app.mapper)
            self.broken = False

    def fail(self, cause: BaseException) -> None:
        """Its store failed (a check could not read the head): count the
        outage, and have the reader open the application again and
        resubscribe."""
        self.outage.failed(cause)
        self.broken = True
        self.halt()

    def halt(self) -> None:
        """Stop the subscription being read, so that its reader returns."""
        subscription = self._subscription
        if subscription is not None:
            subscription.stop()

    def warn(self, what: str, cause: BaseException) -> None:
        """Log the outage: its first failure, then every ``OUTAGE_LOG_SECONDS``."""
        now = time.monotonic()
        if now - self._warned >= OUTAGE_LOG_SECONDS:
            self._warned = now
            log.warning("%s: %s: %s; reconnecting", what, type(cause).__name__, cause)

    def read(self, after: int, inbox: Inbox, done: threading.Event) -> None:
        """The reader's loop: subscribe after ``after`` and hand each
        notification to ``inbox`` (``_read``); on an event store error open
        the application again and resubscribe after the last notification
        handed, until ``done``. An error past the outage's timeout (or any
        other) is handed over, for the projecting thread to raise."""
        try:
            while not done.is_set():
                try:
                    if self.broken or self.app is None:
                        self.open()
                    assert self.app is not None
                    gt = after if inbox.last is None else inbox.last
                    subscription = self.app.recorder.subscribe(gt=gt)
                    with subscription:
                        self._subscription = subscription
                        if done.is_set():
                            return
                        _read(subscription, inbox, done)
                    self._subscription = None
                except EVENT_STORE_ERRORS as e:
                    self._subscription = None
                    self.outage.failed(e)  # raises past its timeout
                    self.warn(self.outage.what, e)
                    self.broken = True
                    done.wait(RETRY_PAUSE)
        except BaseException as e:
            _hand(inbox, e, done)


class Inbox(queue.Queue[Notification | BaseException]):
    """What one shard's reader hands the projecting thread: it remembers the
    last notification put (a reader subscribing again starts after it) and
    says that something arrived (``arrived``, shared by every shard's)."""

    def __init__(self, maxsize: int, arrived: threading.Event) -> None:
        super().__init__(maxsize)
        self.arrived = arrived
        self.last: int | None = None

    def put(
        self, item: Notification | BaseException, block: bool = True, timeout: float | None = None
    ) -> None:
        super().put(item, block, timeout)
        if isinstance(item, Notification):
            self.last = item.id
        self.arrived.set()


class ProjectionRunner:
    """Runs one projection, or several on one subscription per shard, in a
    thread until stopped or failed.

    ``open_application`` opens the application whose log it follows
    (infra/bootstrap.py gives one), or is a list of openers, one per shard
    of a sharded event store (index = shard); the runner owns what they
    return, and closes it when it stops."""

    def __init__(
        self,
        projection_classes: type[ViewProjection] | Sequence[type[ViewProjection]],
        store: ViewStore,
        open_application: Callable[[], Opus] | Sequence[Callable[[], Opus]],
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
        openers = [open_application] if callable(open_application) else list(open_application)
        if not openers:
            raise ValueError("a runner needs an event store to follow")
        self.projection_classes = tuple(projection_classes)
        self.name = ", ".join(cls.name for cls in self.projection_classes)
        self.store = store
        self.shards = len(openers)
        self.batch_size = batch_size
        self.reconnect_timeout = reconnect_timeout
        self.check_interval = check_interval
        self.heartbeat_interval = heartbeat_interval
        self.error: BaseException | None = None
        # the views being followed, by projection name (set once following)
        self.views: dict[str, View] = {}
        # A store that fails is retried for ``reconnect_timeout`` seconds from
        # the first failure since it was last reached; one shard of several,
        # without end (the others go on).
        self._views_outage = Outage(
            f"projection {self.name}: view store", reconnect_timeout, ViewStoreUnavailableError
        )
        self.feeds: list[Feed] = []
        for shard, opener in enumerate(openers):
            what = f"projection {self.name}: event store"
            if self.shards > 1:
                what += f" of shard {shard}"
            timeout = reconnect_timeout if self.shards == 1 else math.inf
            feed = Feed(shard, opener, Outage(what, timeout, EventStoreUnavailableError))
            # Opened here, in the caller's thread: runners started together in
            # threads would race to create PostgreSQL's tables and functions.
            try:
                feed.open()
            except EVENT_STORE_ERRORS as e:
                if self.shards == 1:
                    raise
                feed.warn(what, e)  # its reader opens it when the shard is back
            self.feeds.append(feed)
        # each view's position of a shard at the last check, if that check
        # found it behind the shard's log
        self._behind_at: dict[tuple[str, int], int | None] = {}
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        label = self.projection_classes[0].name if len(self.projection_classes) == 1 else "all"
        self._thread = threading.Thread(target=self._run, name=f"project-{label}", daemon=True)

    @property
    def app(self) -> Opus:
        """The application of the (home) shard's log."""
        app = self.feeds[HOME_SHARD].app
        if app is None:
            raise EventStoreUnavailableError(f"projection {self.name}: the home shard is not open")
        return app

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

    def heads(self) -> list[int]:
        """Each shard's last notification now (0 when empty)."""
        heads = []
        for feed in self.feeds:
            app = feed.app
            if app is None:
                raise EventStoreUnavailableError(f"shard {feed.shard} is not open")
            heads.append(app.recorder.max_notification_id() or 0)
        return heads

    def wait(self, position: int, timeout: float = WAIT_TIMEOUT) -> None:
        """Read-your-writes: block until every view has reached ``position``
        (a position a client sees: with shards, its shard's notification)."""
        shard, local = shard_position(position, self.shards)
        self.wait_heads({shard: local}, timeout)

    def wait_heads(
        self, heads: dict[int, int] | Sequence[int], timeout: float = WAIT_TIMEOUT
    ) -> None:
        """Block until every view has reached each shard's position of
        ``heads`` (by shard; a list: every shard's, ``heads()``'s)."""
        wanted = dict(enumerate(heads)) if not isinstance(heads, dict) else heads
        deadline = time.monotonic() + timeout
        while True:
            views = list(self.views.values())
            if len(views) == len(self.projection_classes) and all(
                (view.store.position(view.ns, view.upstreams[shard]) or 0) >= local
                for view in views
                for shard, local in wanted.items()
            ):
                return
            if self.error is not None:
                raise self.error
            if time.monotonic() > deadline:
                shown = " ".join(f"{local} of shard {shard}" for shard, local in wanted.items())
                if self.shards == 1:
                    shown = str(wanted[0])
                raise TimeoutError(f"{self.name} has not reached position {shown}")
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
                    self._follow()
                except ViewStoreUnavailableError as e:
                    self._views_outage.failed(e)
                    log.warning("projection %s: %s; retrying", self.name, e)
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
            for feed in self.feeds:
                if feed.app is not None:
                    feed.app.close()

    def _follow(self) -> None:
        """Subscribe to each shard after the views' lowest position of it and
        project until stopped. Returns normally only when stopping; a
        progress made before a reload is kept."""
        projections = [
            cls(View(self.store, cls.name, shards=self.shards)) for cls in self.projection_classes
        ]
        views = [projection.view for projection in projections]
        # reads the store: it is reachable again
        starts = [
            min(view.position_of(view.upstreams[feed.shard]) or 0 for view in views)
            for feed in self.feeds
        ]
        self.views = {view.projection: view for view in views}
        self._views_outage.reached()
        done = threading.Event()
        arrived = threading.Event()
        inboxes = [Inbox(4 * self.batch_size, arrived) for _ in self.feeds]
        for feed, start, inbox in zip(self.feeds, starts, inboxes, strict=True):
            feed.thread = threading.Thread(target=feed.read, args=(start, inbox, done), daemon=True)
            feed.thread.start()
        next_check = time.monotonic() + self.check_interval
        next_beat = 0.0  # at once: a runner that follows is alive
        pending = [Pending() for _ in self.feeds]
        try:
            while not self._stopping.is_set():
                if time.monotonic() >= next_beat:
                    self.store.beat([view.projection for view in views], time.time())
                    next_beat = time.monotonic() + self.heartbeat_interval
                arrived.clear()
                self._fill(pending, inboxes)
                run = next_run(pending, lambda: self._home_caught_up(views))
                if run is None:
                    for waiting in pending:
                        if not waiting and waiting.failure is not None:
                            raise waiting.failure
                    if time.monotonic() >= next_check:
                        self._check(views)
                        next_check = time.monotonic() + self.check_interval
                    arrived.wait(0.1)
                    continue
                shard, horizon = run
                rows, events, decode_error = pending[shard].take(horizon)
                self._project(projections, self.feeds[shard], rows, events, decode_error)
                failure = pending[shard].failure
                if not pending[shard] and failure is not None:
                    raise failure
        finally:
            done.set()
            for feed in self.feeds:
                feed.halt()
            for feed in self.feeds:
                if feed.thread is not None:
                    feed.thread.join(timeout=5)

    def _fill(self, pending: list[Pending], inboxes: list[Inbox]) -> None:
        """Each shard with nothing pending: up to a batch of its waiting
        events, decoded (a reader's error kept, to raise once the events
        before it are projected)."""
        for feed, events, inbox in zip(self.feeds, pending, inboxes, strict=True):
            if events or events.failure is not None:
                continue
            notifications: list[Notification] = []
            while len(notifications) < self.batch_size:
                try:
                    item = inbox.get_nowait()
                except queue.Empty:
                    break
                if isinstance(item, BaseException):
                    events.failure = item
                    break
                notifications.append(item)
            if notifications:
                decoder = feed.decoder
                assert decoder is not None  # a notification came: its application is open
                rows = rows_of(notifications)
                events.rows = rows
                decoded, events.error = decoder.decode(rows, text_ids=False)
                events.events = decoded

    def _home_caught_up(self, views: list[View]) -> bool:
        """Do the views hold the home shard's log up to its head, read now?
        Another shard's events waiting here were recorded before this read,
        so every account event recorded before them (a seat's holder, a
        token's adoption) is then projected before them: rebuilt views read
        the home shard first too. A home shard that cannot be reached holds
        nobody back (its outage must not stop the others)."""
        home = self.feeds[HOME_SHARD]
        app = home.app
        if home.broken or app is None:
            return True
        try:
            head = app.recorder.max_notification_id() or 0
        except EVENT_STORE_ERRORS as e:
            home.warn(home.outage.what, e)
            home.fail(e)
            return True
        name = views[0].upstreams[HOME_SHARD]
        return all((view.position_of(name) or 0) >= head for view in views)

    def _project(
        self,
        projections: list[ViewProjection],
        feed: Feed,
        rows: list[Row],
        events: list[DecodedEvent],
        decode_error: Exception | None,
    ) -> None:
        """One shard's run, every view committing it: at once, in one round
        trip to the view store (``commit_pending``), when every row decoded.
        A view whose commit failed for want of the store, or for another
        writer, makes the runner reload; one that failed otherwise (a
        projection's bug, a write the store refuses) projects the run again
        on its own, to fail as a ProjectionError naming it and a position:
        its handler's failing event, or the run's last when the store
        refuses the run's commit."""
        positions = [row[0] for row in rows]
        views = [projection.view for projection in projections]
        try:
            for projection in projections:
                project_batch(
                    projection, rows, events, decode_error, positions, feed.shard, deferred=True
                )
        except BaseException:
            commit_pending(views)  # what the views before the failing one made stands
            raise
        failed = commit_pending(views)
        for _, error in failed:
            if isinstance(error, (ViewStoreUnavailableError, TrackingConflictError)):
                raise error
        for view, _ in failed:
            projection = next(p for p in projections if p.view is view)
            try:
                project_batch(projection, rows, events, decode_error, positions, feed.shard)
            except (ProjectionError, ViewStoreUnavailableError, TrackingConflictError):
                raise
            except Exception as e:  # the store refused the run's commit again
                last = position_of(feed.shard, positions[-1], view.shards)
                raise ProjectionError(
                    projection.name,
                    last,
                    f"the commit of positions up to {last}: {type(e).__name__}: {e}",
                ) from e
        feed.outage.reached()
        if decode_error is not None:  # every view held the undecodable event
            raise ViewMovedError(
                f"an event every view holds (position {positions[len(events)]}) "
                "cannot be decoded: following again from the views' positions"
            )

    def _check(self, views: list[View]) -> None:
        """While idle: each shard's event store still answers (one that does
        not is opened again by its reader), and each view stands in the
        store where this runner believes it does and is not left behind a
        shard's log (a notification missed: behind at two checks in a row,
        with nothing arriving between them); else raise."""
        heads: dict[int, int] = {}
        for feed in self.feeds:
            app = feed.app
            if feed.broken or app is None:
                continue  # its reader is reaching it again
            try:
                heads[feed.shard] = app.recorder.max_notification_id() or 0
            except EVENT_STORE_ERRORS as e:
                feed.warn(feed.outage.what, e)
                feed.fail(e)  # raises past the outage's timeout
                continue
            feed.outage.reached()
        for view in views:
            self._check_view(view, heads)

    def _check_view(self, view: View, heads: dict[int, int]) -> None:
        for shard, head in heads.items():
            upstream = view.upstreams[shard]
            position = view.position_of(upstream)
            behind = head > (position or 0)
            key = (view.projection, shard)
            if behind and key in self._behind_at and self._behind_at[key] == position:
                del self._behind_at[key]
                log_name = "" if self.shards == 1 else f" of shard {shard}"
                raise ViewMovedError(
                    f"{view.ns} stays at position {position}{log_name} while the log is at "
                    f"{head}: following again from there"
                )
            if behind:
                self._behind_at[key] = position
            else:
                self._behind_at.pop(key, None)
        if view.follows_active and self.store.active_generation(view.projection) != view.generation:
            raise ViewMovedError(f"generation {view.generation} is no longer active")
        for upstream in view.upstreams:
            believed = view.position_of(upstream)
            stored = self.store.position(view.ns, upstream)
            if stored != believed:
                of = "" if self.shards == 1 else f" of {upstream}"
                raise ViewMovedError(
                    f"{view.ns} stands at position {stored}{of} in the store, not {believed}"
                )


def _read(subscription: Any, inbox: Inbox, done: threading.Event) -> None:
    """Hand the subscription's notifications to the projecting thread, never
    blocking once that thread is done; its error is raised to the reader."""
    for notification in subscription:
        _hand(inbox, notification, done)


def _hand(inbox: Inbox, item: Notification | BaseException, done: threading.Event) -> None:
    while not done.is_set():
        try:
            inbox.put(item, timeout=0.1)
            return
        except queue.Full:
            continue
