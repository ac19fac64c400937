"""The composition root: every process opens its parts here, from ``Settings``.

- ``open_application``: the application service on its event store (every
  command, the HTTP service, each projection runner and rebuild worker);
  with shards (``OPUS_SHARDS``), on one store per shard (infra/shards.py),
  whose logs ``shard_openers`` opens one by one for the read side;
- ``open_views``: the view store (Redis or SQLite), the only way to open one;
- ``projection_runner`` and ``rebuild_workers``: the read side's processes;
- ``open_services``: the HTTP service's parts (api/app.py adds the routes).
"""

from __future__ import annotations

import logging
import math
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from domain.application import Opus
from domain.sharding import position_of
from infra import logthrottle
from infra.broker import Broker, InProcessBroker, RedisBroker
from infra.challenges import Challenges, InProcessChallenges, RedisChallenges
from infra.idempotency import InProcessResponses, RedisResponses, ResponseCache
from infra.settings import (
    POSTGRES,
    SQLITE,
    Settings,
    ViewStoreSettings,
    describe_shard,
    is_sqlite_file,
)
from infra.shards import shard_apps
from projections.base import ViewProjection
from projections.ports import ViewStore
from projections.queries import Queries
from projections.rebuild import Workers
from projections.registry import PROJECTIONS
from projections.runner import ProjectionRunner

if TYPE_CHECKING:
    from api.runtime import Services

log = logging.getLogger(__name__)

# eventsourcing 9.5 has no subscription for SQLite: projections/subscription.py adds one.
SUBSCRIBABLE_SQLITE_RECORDER = "projections.subscription:SubscribableSQLiteApplicationRecorder"
# PostgreSQL: the library's recorder, saving a command's events in one round trip.
POSTGRES_RECORDER = "infra.postgres_recorder:LockedInsertRecorder"
ATTEMPTS = 8  # to open the event store, when processes starting together race
_OPENING = threading.Lock()
RUNNER_JOIN_SECONDS = 5.0  # how long closing the HTTP service waits for a runner
# A runner reopens its application when PostgreSQL drops it: each attempt to
# connect waits this long at most (eventsourcing's default, 30 s, would
# outlast a short --reconnect-timeout), unless POSTGRES_CONNECT_TIMEOUT says.
RUNNER_CONNECT_TIMEOUT = 5
# A runner's pool of PostgreSQL connections, unless POSTGRES_POOL_SIZE and
# POSTGRES_MAX_OVERFLOW say: its subscription holds one (LISTEN) and its reads
# of the log take one at a time, where eventsourcing's default kept five open
# (an application a shard) and let fifteen be.
RUNNER_POOL = {"POSTGRES_POOL_SIZE": "2", "POSTGRES_MAX_OVERFLOW": "2"}
# An HTTP request's attempt to get a pooled connection to PostgreSQL waits
# this long at most (POSTGRES_CONNECT_TIMEOUT overrides it); the attempts
# together stay within OPUS_STORE_TIMEOUT (infra/postgres_recorder.py).
HTTP_CONNECT_TIMEOUT = 1


# ---- the event store ------------------------------------------------------------------


def application_env(settings: Settings, *, create_tables: bool = True) -> dict[str, str]:
    """The variables ``Opus`` is opened with: the event store's settings, with a
    SQLite recorder that can be subscribed to, or a PostgreSQL recorder that
    saves in one round trip; without creating the tables unless
    ``create_tables``."""
    env = dict(settings.event_store)
    if env["PERSISTENCE_MODULE"] == SQLITE:
        env.setdefault("APPLICATION_RECORDER_TOPIC", SUBSCRIBABLE_SQLITE_RECORDER)
    if env["PERSISTENCE_MODULE"] == POSTGRES:
        env.setdefault("APPLICATION_RECORDER_TOPIC", POSTGRES_RECORDER)
    if not create_tables:
        env["CREATE_TABLE"] = "n"
    return env


def open_application(
    settings: Settings, *, create_tables: bool = True, bounded: bool = False
) -> Opus:
    """The application on the configured event store, retried: processes
    starting together (API workers, projection runners) race to create the
    PostgreSQL tables, and the loser gets a transient catalog error ("tuple
    concurrently updated"). ``create_tables=False`` for a process that
    starts beside one which has made them already (rebuild workers).
    ``bounded`` (the HTTP service): a request waits for PostgreSQL about
    ``store_timeout`` seconds at most (the recorder's ``bound``), each
    attempt for a pooled connection ``HTTP_CONNECT_TIMEOUT`` unless
    ``POSTGRES_CONNECT_TIMEOUT`` says. With shards, each shard is opened
    so, and the application routes over them (infra/shards.py)."""
    if settings.shards:
        return _sharded_application(settings, create_tables=create_tables, bounded=bounded)
    env = application_env(settings, create_tables=create_tables)
    dbname = env.get("SQLITE_DBNAME", "")
    if env["PERSISTENCE_MODULE"] == SQLITE and is_sqlite_file(dbname):
        Path(dbname).parent.mkdir(parents=True, exist_ok=True)
    bounded = bounded and env["PERSISTENCE_MODULE"] == POSTGRES
    if bounded:
        env.setdefault("POSTGRES_CONNECT_TIMEOUT", str(HTTP_CONNECT_TIMEOUT))
    for attempt in range(1, ATTEMPTS + 1):
        try:
            with _OPENING:  # this process's threads (one runner per projection) take turns
                if bounded:
                    return _bounded_application(env, settings.store_timeout)
                return Opus(env=env)
        except Exception as e:
            if attempt == ATTEMPTS or not _transient(e):
                raise
            log.warning("opening the event store failed (%s); retrying", e)
            time.sleep(0.05 * attempt + random.random() * 0.05)
    raise AssertionError("unreachable")


def _bounded_application(env: dict[str, str], seconds: float) -> Opus:
    """The application on PostgreSQL, its recorder's waits bounded."""
    from infra.postgres_recorder import LockedInsertRecorder, bounded  # psycopg: only if used

    with bounded(seconds):
        application = Opus(env=env)
    try:
        recorder = application.recorder
        if not isinstance(recorder, LockedInsertRecorder):
            raise TypeError(f"{type(recorder).__name__} cannot bound its waits")
    except BaseException:
        application.close()
        raise
    return application


def _sharded_application(settings: Settings, *, create_tables: bool, bounded: bool) -> Opus:
    """The application over every shard, each opened as one store is."""
    from infra.shards import ShardedOpus

    shards: list[Opus] = []
    try:
        for k in range(settings.shard_count):
            shard = settings.shard(k)
            shards.append(open_application(shard, create_tables=create_tables, bounded=bounded))
        return ShardedOpus(shards, [describe_shard(store) for store in settings.shards])
    except BaseException:
        for opened in shards:
            opened.close()
        raise


def application_opener(settings: Settings, *, create_tables: bool = True) -> Callable[[], Opus]:
    """``open_application`` of these settings, to call later or in another
    process (it pickles)."""
    return partial(open_application, settings, create_tables=create_tables)


def shard_openers(settings: Settings, *, create_tables: bool = True) -> list[Callable[[], Opus]]:
    """Each shard's own application, shard 0 first (one opener, the
    application's, when the store is not split): what a reader of the log
    follows, each shard's log under ``upstream_name(k)`` (domain/sharding.py).
    Each pickles, as ``application_opener`` does."""
    return [
        application_opener(settings.shard(k), create_tables=create_tables)
        for k in range(settings.shard_count)
    ]


def _transient(error: BaseException) -> bool:
    text = str(error)
    return "concurrently updated" in text or "already exists" in text or "duplicate key" in text


# ---- the view store ---------------------------------------------------------------------


def open_views(settings: Settings | ViewStoreSettings) -> ViewStore:
    """The view store the settings name: Redis or SQLite (each client is
    imported only if used)."""
    views = settings.views if isinstance(settings, Settings) else settings
    if views.kind == "redis":
        from projections.redis_views import RedisViewStore

        return RedisViewStore(views.redis_url, views.redis_prefix)
    if views.kind == "sqlite":
        from projections.sqlite_views import SQLiteViewStore

        return SQLiteViewStore(views.sqlite_path)
    raise ValueError(f"no view store of kind {views.kind!r}")


# ---- the read side's processes ----------------------------------------------------------


def projection_runner(
    settings: Settings,
    projection_classes: type[ViewProjection] | Sequence[type[ViewProjection]],
) -> ProjectionRunner:
    """A runner of the projections (not started; several share one
    subscription) on a view store and an application of its own; stopping
    it closes the application, its caller closes ``runner.store``. Its
    attempts to reach PostgreSQL again are bounded by
    ``RUNNER_CONNECT_TIMEOUT`` (or the reconnect timeout, if shorter) unless
    ``POSTGRES_CONNECT_TIMEOUT`` is set, and its pool is ``RUNNER_POOL``'s
    unless set (each shard's alike)."""
    events = settings.event_store
    if events["PERSISTENCE_MODULE"] == POSTGRES:
        seconds = max(1, min(RUNNER_CONNECT_TIMEOUT, math.ceil(settings.reconnect_timeout)))
        runner = {"POSTGRES_CONNECT_TIMEOUT": str(seconds), **RUNNER_POOL}
        unset = {name: value for name, value in runner.items() if name not in events}
        settings = replace(
            settings,
            event_store={**events, **unset},
            shards=tuple({**store, **unset} for store in settings.shards),
        )
    return ProjectionRunner(
        projection_classes,
        open_views(settings),
        shard_openers(settings) if settings.shards else application_opener(settings),
        batch_size=settings.runner_batch_size,
        reconnect_timeout=settings.reconnect_timeout,
        check_interval=settings.runner_check_seconds,
    )


def rebuild_workers(settings: Settings, count: int) -> Workers:
    """``count`` rebuild processes, each opening the configured stores. The
    parent has the log open already, its tables made: workers creating them
    again at once would race in PostgreSQL's catalog."""
    return Workers(
        count,
        partial(open_views, settings),
        application_opener(settings, create_tables=False),
    )


# ---- the HTTP service ---------------------------------------------------------------------


def open_services(settings: Settings) -> Services:
    """The HTTP service's parts: the application (its waits for PostgreSQL
    bounded by ``store_timeout``), the live-event broker,
    the response cache, the passkey ceremonies' challenges and the sign-in
    rate limit (Redis when configured, under its prefix, else in this
    process), the queries on the view store, the count of its event streams
    (at most ``api_streams`` open at once) and, when ``run_projections``, a
    started runner per projection; the process's interval of throttled
    failure logs (infra/logthrottle.py). ``Services.close`` closes them all."""
    from api.runtime import Services  # Flask: only the HTTP service imports it
    from api.stream_slots import StreamSlots

    logthrottle.configure(settings.log_throttle_seconds)
    application = open_application(settings, bounded=True)
    from api.ratelimit import InProcessLimiter, Limiter, RateLimit, RedisLimiter

    broker: Broker
    responses: ResponseCache
    challenges: Challenges
    sign_in_limit = RateLimit.parse(settings.sign_in_rate_limit)
    sign_in_limiter: Limiter | None = None
    if settings.redis_url:
        redis_broker = RedisBroker(settings.redis_url, settings.redis_prefix)
        broker = redis_broker
        responses = RedisResponses(redis_broker.client, settings.redis_prefix)
        challenges = RedisChallenges(
            redis_broker.client, settings.redis_prefix, settings.challenge_seconds
        )
        if sign_in_limit is not None:  # its own counts, apart from the service-wide limit's
            prefix = f"{settings.redis_prefix}sign-in:"
            sign_in_limiter = RedisLimiter(redis_broker.client, prefix, sign_in_limit)
    else:
        broker = InProcessBroker()
        responses = InProcessResponses()
        challenges = InProcessChallenges(settings.challenge_seconds)
        if sign_in_limit is not None:
            sign_in_limiter = InProcessLimiter(sign_in_limit)
    store = open_views(settings)
    services = Services(
        application,
        broker,
        responses,
        views=Queries(
            store,
            shards=settings.shard_count,
            heads=partial(log_heads, application),
            head_of=partial(shard_head, application),
        ),
        query_wait_seconds=settings.query_wait_seconds,
        inactivity_seconds=settings.inactivity_seconds,
        ready_max_lag=settings.ready_max_lag,
        ready_max_silence=settings.ready_max_silence,
        streams=StreamSlots(settings.api_streams),
        challenges=challenges,
        sign_in_limiter=sign_in_limiter,
        rp_id=settings.rp_id,
        origin=settings.origin,
    )
    services.closers.extend([application.close, broker.close, store.close])
    if settings.run_projections:
        runner = projection_runner(settings, list(PROJECTIONS.values())).start()
        services.closers.append(partial(_close_runner, runner))
    return services


def log_head(application: Opus) -> int:
    """The log's last position (0 when empty). With shards, the largest of
    each shard's last position: no view can show a later one."""
    heads = log_heads(application)
    return max(position_of(k, head, len(heads)) for k, head in enumerate(heads))


def shard_head(application: Opus, shard: int) -> int:
    """One shard's last notification (0 when empty), asked of it alone."""
    return shard_apps(application)[shard].recorder.max_notification_id() or 0


def log_heads(application: Opus) -> list[int]:
    """Each shard's last notification (0 when empty), shard 0 first."""
    return [app.recorder.max_notification_id() or 0 for app in shard_apps(application)]


def _close_runner(runner: ProjectionRunner) -> None:
    runner.stop()
    runner.join(RUNNER_JOIN_SECONDS)
    if not runner.is_running:
        runner.store.close()
