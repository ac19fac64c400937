"""The settings: read once from the environment, the one place that reads it.

``Settings.from_env()`` gives a frozen value; the composition root
(infra/bootstrap.py) opens everything from it. Every default is a constant
here (the read side's are its own modules' constants, named here).

The event store uses ``eventsourcing``'s own variables, so anyone who knows
the library knows ours: ``PERSISTENCE_MODULE`` (``eventsourcing.sqlite`` by
default, ``eventsourcing.postgres``, or ``eventsourcing.popo`` in memory),
``SQLITE_DBNAME`` (default ``./var/opus.db``) and ``POSTGRES_*``. Ours:

- ``OPUS_SHARDS``: the event store split over PostgreSQL servers, one entry
  per shard, shard 0 (the home shard: accounts) first, separated by commas
  or spaces: ``postgresql://[user[:password]@]host[:port]/dbname`` or
  ``host[:port]/dbname`` (user and password then from ``POSTGRES_USER`` and
  ``POSTGRES_PASSWORD``, the port 5432); every other ``POSTGRES_*`` applies
  to every shard. Absent (or one entry): one store, today's layout. Shards
  need PostgreSQL (domain/sharding.py places the aggregates; infra/shards.py
  routes them; the count cannot change once events are saved);

- ``REDIS_URL``: views, live-event fan-out and the response cache in Redis,
  every key and channel under ``OPUS_REDIS_PREFIX`` (default ``opus:``);
  ``redis+cluster://host:port[,host:port…]`` is a Redis Cluster, its keys
  hash-tagged by projection (projections/redis_client.py, redis_views.py);
- ``OPUS_VIEWS_DBNAME``: the SQLite views when there is no Redis;
- ``OPUS_RUN_PROJECTIONS`` (default 1): the HTTP service runs the projections
  in threads; 0 leaves them to ``opus project`` processes;
- ``OPUS_QUERY_WAIT_SECONDS`` (5): how long ``?after=`` waits at most;
- ``OPUS_MAX_BODY_BYTES`` (64 KiB): the largest request body;
- ``OPUS_INACTIVITY_SECONDS`` (300): how long a seat may leave its turn
  idle before the organiser may withdraw it (RULES R3.5);
- ``OPUS_RATE_LIMIT`` (``300/60``): games created and seats taken per client
  address, N in any S seconds (429 with Retry-After past it); ``0`` is none;
- ``OPUS_SIGN_IN_RATE_LIMIT`` (``10/60``): the web client's sign-up and
  sign-in posts per client address, N in any S seconds (429 with
  Retry-After past it; shared through Redis when configured); ``0`` is none;
- ``OPUS_CHALLENGE_SECONDS`` (300): how long a passkey ceremony's challenge
  (and a new account key waiting for the one page that shows it) lives;
- ``OPUS_RP_ID``, ``OPUS_ORIGIN``: the WebAuthn relying party's id and the
  origin passkeys are made and used on, for a deployment behind a proxy
  (``example.org``, ``https://example.org``); by default the request's host
  (without its port) and origin;
- ``OPUS_CLOCKS`` (1): a process that runs the projections (the embedded
  ``opus serve``) runs the clock scheduler too (RULES R11.4); 0 leaves it to
  an ``opus clocks`` process;
- ``OPUS_BOTS`` (1): the HTTP service plays its bots' moves at lobby games'
  tables (infra/bot_driver.py); 0 leaves bot seats waiting (another
  process on the same store may play them);
- ``OPUS_BOT_DELAY_SECONDS`` (0.6): how long a bot waits after a game
  changes before it moves, so that people can follow;
- ``OPUS_TRUSTED_PROXIES`` (0): how many proxies stand in front of the
  service; the client's address is then taken from their X-Forwarded-For
  (docker-compose's nginx: 1); with 0 the header is never believed;
- ``OPUS_TRUSTED_PROXY_NETWORKS`` (loopback and the private ranges): the
  addresses those proxies connect from; a request from any other address
  is its connection's, whatever its X-Forwarded-For says
  (api/client_address.py);
- ``OPUS_READY_MAX_LAG`` (1000): /readyz answers 503 once a view is more
  than this many positions behind the log's head (HTTP service, embedded
  or not);
- ``OPUS_READY_MAX_SILENCE`` (30): /readyz answers 503 once a projection's
  runner has written no heartbeat for this many seconds (a dead or stuck
  projector, which the lag shows only once events pile up); 0 does not look
  at heartbeats. More than the runners' heartbeat interval (2 s);
- ``OPUS_RUNNER_CHECK_SECONDS`` (1): how often an idle projection runner
  checks that its view still stands where it left it in the view store
  (a Redis restarted empty, or from an older snapshot, is caught up at once);
- ``OPUS_API_STREAMS`` (0): how many event streams (``GET
  /games/{id}/events``) one API process (``create_app``) serves at once; 0
  refuses them all with a 503 naming the stream service, which serves them
  in production (``api.stream:create_stream_app``, unbounded by this); past
  the bound a stream is a 503 with Retry-After. An open stream holds a
  thread of the API for as long as its game lasts, so the production API
  serves none; ``opus serve`` (the embedded layout, whose web client
  listens to them) serves ``EMBEDDED_API_STREAMS`` unless this says;
- ``OPUS_STORE_TIMEOUT`` (3): how long a request to the HTTP service (API
  or stream service) waits for PostgreSQL at most: each statement
  (``statement_timeout``), connecting, and retrying a read or write while
  the store is unreachable, each attempt waiting 1 s for a pooled
  connection unless ``POSTGRES_CONNECT_TIMEOUT`` says; then a 503 with
  Retry-After (infra/postgres_recorder.py). Commands and runners keep the
  library's longer retries;
- ``OPUS_LOG_THROTTLE_SECONDS`` (10): a failure logged per request (a
  store down: publishing, the response cache, the rate limit, the views,
  the event store) is logged at most once per kind in this many seconds,
  with the count of those not logged (infra/logthrottle.py);
- ``OPUS_ANALYTICS_DIR`` (``./var/analytics``): the analytics' folder: the
  Parquet export in ``parquet/``, the latest report in ``report/``, whose
  ``report.json`` ``GET /analytics/{question}`` serves;
- ``OPUS_RECEIPTS*``: signed receipts, their key and witnesses
  (infra/receipts/settings.py lists them); with ``OPUS_SHARDS`` a global
  log per shard (infra/receipts/service.py).

The batch sizes and the reconnect timeout are the command line's options.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar
from urllib.parse import unquote, urlsplit

from infra.logthrottle import DEFAULT_INTERVAL as LOG_THROTTLE_INTERVAL
from infra.receipts.settings import ReceiptsSettings
from projections.queries import WAIT_TIMEOUT
from projections.rebuild import BATCH_SIZE as REBUILD_BATCH_SIZE
from projections.runner import BATCH_SIZE as RUNNER_BATCH_SIZE
from projections.runner import CHECK_INTERVAL, HEARTBEAT_INTERVAL, RECONNECT_TIMEOUT

# ---- defaults ---------------------------------------------------------------------

DEFAULT_PERSISTENCE_MODULE = "eventsourcing.sqlite"
DEFAULT_SQLITE_DBNAME = "./var/opus.db"
DEFAULT_POSTGRES = {
    "POSTGRES_DBNAME": "opus",
    "POSTGRES_HOST": "127.0.0.1",
    "POSTGRES_PORT": "5432",
    "POSTGRES_USER": "postgres",
    "POSTGRES_PASSWORD": "",
}
DEFAULT_VIEWS_DBNAME = "./var/views.db"
DEFAULT_REDIS_PREFIX = "opus:"
DEFAULT_RUN_PROJECTIONS = True
DEFAULT_QUERY_WAIT_SECONDS = WAIT_TIMEOUT
DEFAULT_MAX_BODY_BYTES = 64 * 1024
DEFAULT_INACTIVITY_SECONDS = 300.0  # R3.5: a seat's turn left idle this long may be withdrawn
DEFAULT_RATE_LIMIT = "300/60"  # creates and joins per client: N in any S seconds
DEFAULT_SIGN_IN_RATE_LIMIT = "10/60"  # sign-up and sign-in posts per client: N in any S seconds
DEFAULT_CHALLENGE_SECONDS = 300.0  # a passkey ceremony's challenge lives this long
DEFAULT_BOTS = True  # the HTTP service plays its bots' moves
DEFAULT_BOT_DELAY_SECONDS = 0.6  # a bot's pause before its move, for people to follow
DEFAULT_TRUSTED_PROXIES = 0  # proxies in front whose X-Forwarded-For names the client
# the addresses the trusted proxies connect from: loopback and the private ranges
DEFAULT_TRUSTED_PROXY_NETWORKS = (
    "127.0.0.0/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7"
)
DEFAULT_RUNNER_BATCH_SIZE = RUNNER_BATCH_SIZE
DEFAULT_REBUILD_BATCH_SIZE = REBUILD_BATCH_SIZE
DEFAULT_RECONNECT_TIMEOUT = RECONNECT_TIMEOUT
DEFAULT_READY_MAX_LAG = 1000  # positions of the log a view may lag and still be ready
DEFAULT_RUNNER_CHECK_SECONDS = CHECK_INTERVAL
DEFAULT_READY_MAX_SILENCE = 30.0  # seconds a projection's runner may go without a heartbeat
DEFAULT_ANALYTICS_DIR = "./var/analytics"  # the Parquet export and the latest report
DEFAULT_LOG_THROTTLE_SECONDS = LOG_THROTTLE_INTERVAL  # a kind of failure: one record per
DEFAULT_STORE_TIMEOUT = 3.0  # seconds an HTTP request waits for PostgreSQL at most
DEFAULT_API_STREAMS = 0  # event streams an API process serves at once: none (the stream service's)
EMBEDDED_API_STREAMS = 100  # ... and `opus serve`'s, one thread each
# `opus serve`'s defaults, under the environment's (Settings.from_env(defaults=...))
EMBEDDED_DEFAULTS = {"OPUS_API_STREAMS": str(EMBEDDED_API_STREAMS)}

SQLITE = "eventsourcing.sqlite"
POSTGRES = "eventsourcing.postgres"
FALSE = ("0", "no", "false")

# eventsourcing's variables (each also read with the application's name as a
# prefix, OPUS_...): the event store's settings keep these and no others.
EVENTSOURCING_PREFIXES = ("PERSISTENCE_", "SQLITE_", "POSTGRES_")
EVENTSOURCING_NAMES = frozenset(
    {
        "INFRASTRUCTURE_FACTORY",
        "FACTORY_TOPIC",
        "TRANSCODER_TOPIC",
        "CIPHER_TOPIC",
        "CIPHER_KEY",
        "COMPRESSOR_TOPIC",
        "MAPPER_TOPIC",
        "IS_SNAPSHOTTING_ENABLED",
        "APPLICATION_RECORDER_TOPIC",
        "TRACKING_RECORDER_TOPIC",
        "PROCESS_RECORDER_TOPIC",
        "SINGLE_ROW_TRACKING",
        "ORIGINATOR_ID_TYPE",
        "CREATE_TABLE",
        "AGGREGATE_CACHE_MAXSIZE",
        "AGGREGATE_CACHE_FASTFORWARD",
        "AGGREGATE_CACHE_FASTFORWARD_SKIPPING",
        "DEEPCOPY_FROM_AGGREGATE_CACHE",
    }
)
APPLICATION_PREFIX = "OPUS_"


@dataclass(frozen=True)
class ViewStoreSettings:
    """Where the projections' views live: Redis, or a SQLite file."""

    kind: str  # "redis" or "sqlite"
    redis_url: str = ""
    redis_prefix: str = DEFAULT_REDIS_PREFIX
    sqlite_path: str = ""

    def describe(self) -> str:
        if self.kind == "redis":
            return f"Redis {self.redis_url} (keys {self.redis_prefix}*)"
        return f"SQLite {self.sqlite_path}"


@dataclass(frozen=True)
class Settings:
    """Everything a process of Opus is configured by. Build it with
    ``from_env``; change a field with ``dataclasses.replace``."""

    # eventsourcing's variables, defaults filled in, handed to the library as is
    event_store: dict[str, str] = field(hash=False)
    views: ViewStoreSettings
    redis_url: str | None = None
    redis_prefix: str = DEFAULT_REDIS_PREFIX
    run_projections: bool = DEFAULT_RUN_PROJECTIONS
    query_wait_seconds: float = DEFAULT_QUERY_WAIT_SECONDS
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    runner_batch_size: int = DEFAULT_RUNNER_BATCH_SIZE
    rebuild_batch_size: int = DEFAULT_REBUILD_BATCH_SIZE
    reconnect_timeout: float = DEFAULT_RECONNECT_TIMEOUT
    ready_max_lag: int = DEFAULT_READY_MAX_LAG
    ready_max_silence: float = DEFAULT_READY_MAX_SILENCE
    runner_check_seconds: float = DEFAULT_RUNNER_CHECK_SECONDS
    inactivity_seconds: float = DEFAULT_INACTIVITY_SECONDS
    rate_limit: str = DEFAULT_RATE_LIMIT
    trusted_proxies: int = DEFAULT_TRUSTED_PROXIES
    trusted_proxy_networks: str = DEFAULT_TRUSTED_PROXY_NETWORKS
    bots: bool = DEFAULT_BOTS
    clocks: bool = True  # OPUS_CLOCKS: the clock scheduler in a process that runs the projections
    bot_delay_seconds: float = DEFAULT_BOT_DELAY_SECONDS
    sign_in_rate_limit: str = DEFAULT_SIGN_IN_RATE_LIMIT
    challenge_seconds: float = DEFAULT_CHALLENGE_SECONDS
    rp_id: str = ""  # the WebAuthn relying party's id ("": the request's host)
    origin: str = ""  # the origin passkeys are used on ("": the request's)
    analytics_dir: str = DEFAULT_ANALYTICS_DIR
    api_streams: int | None = DEFAULT_API_STREAMS  # None: no bound (the stream service)
    log_throttle_seconds: float = DEFAULT_LOG_THROTTLE_SECONDS
    store_timeout: float = DEFAULT_STORE_TIMEOUT
    # OPUS_RECEIPTS*: signed receipts and the global log (infra/receipts/settings.py)
    receipts: ReceiptsSettings = field(default_factory=ReceiptsSettings)
    # OPUS_SHARDS: each shard's event store (shard 0 first; event_store is shard 0's),
    # or none: one store (event_store)
    shards: tuple[dict[str, str], ...] = field(default=(), hash=False)

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        overrides: Mapping[str, str | None] | None = None,
        defaults: Mapping[str, str] | None = None,
    ) -> Settings:
        """The settings from ``environ`` (the process's environment by
        default) laid over ``defaults`` (a layout's own, as ``opus serve``'s
        ``EMBEDDED_DEFAULTS``), with ``overrides`` over it (a variable set to
        None is unset)."""
        env = {**(defaults or {}), **(os.environ if environ is None else environ)}
        for name, value in (overrides or {}).items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        stores = shard_stores(env)
        event_store = dict(stores[0]) if stores else event_store_env(env)
        shards = stores if len(stores) > 1 else ()  # one entry: the one store, not split
        redis_url = env.get("REDIS_URL") or None
        redis_prefix = env.get("OPUS_REDIS_PREFIX", DEFAULT_REDIS_PREFIX)
        return cls(
            event_store=event_store,
            views=_views(env, event_store, redis_url, redis_prefix),
            redis_url=redis_url,
            redis_prefix=redis_prefix,
            run_projections=env.get("OPUS_RUN_PROJECTIONS", "1") not in FALSE,
            query_wait_seconds=_number(
                env, "OPUS_QUERY_WAIT_SECONDS", float, DEFAULT_QUERY_WAIT_SECONDS
            ),
            max_body_bytes=_number(env, "OPUS_MAX_BODY_BYTES", int, DEFAULT_MAX_BODY_BYTES),
            ready_max_lag=_number(env, "OPUS_READY_MAX_LAG", int, DEFAULT_READY_MAX_LAG),
            ready_max_silence=_silence(env, "OPUS_READY_MAX_SILENCE", DEFAULT_READY_MAX_SILENCE),
            runner_check_seconds=_number(
                env, "OPUS_RUNNER_CHECK_SECONDS", float, DEFAULT_RUNNER_CHECK_SECONDS
            ),
            inactivity_seconds=_number(
                env, "OPUS_INACTIVITY_SECONDS", float, DEFAULT_INACTIVITY_SECONDS
            ),
            rate_limit=env.get("OPUS_RATE_LIMIT", DEFAULT_RATE_LIMIT),
            trusted_proxies=_number(env, "OPUS_TRUSTED_PROXIES", int, DEFAULT_TRUSTED_PROXIES),
            trusted_proxy_networks=env.get(
                "OPUS_TRUSTED_PROXY_NETWORKS", DEFAULT_TRUSTED_PROXY_NETWORKS
            ),
            bots=env.get("OPUS_BOTS", "1") not in FALSE,
            clocks=env.get("OPUS_CLOCKS", "1") not in FALSE,
            bot_delay_seconds=_seconds(env, "OPUS_BOT_DELAY_SECONDS", DEFAULT_BOT_DELAY_SECONDS),
            sign_in_rate_limit=env.get("OPUS_SIGN_IN_RATE_LIMIT", DEFAULT_SIGN_IN_RATE_LIMIT),
            challenge_seconds=_positive(env, "OPUS_CHALLENGE_SECONDS", DEFAULT_CHALLENGE_SECONDS),
            rp_id=env.get("OPUS_RP_ID", ""),
            origin=env.get("OPUS_ORIGIN", "").rstrip("/"),
            analytics_dir=env.get("OPUS_ANALYTICS_DIR") or DEFAULT_ANALYTICS_DIR,
            api_streams=_count(env, "OPUS_API_STREAMS", DEFAULT_API_STREAMS),
            store_timeout=_positive(env, "OPUS_STORE_TIMEOUT", DEFAULT_STORE_TIMEOUT),
            log_throttle_seconds=_number(
                env, "OPUS_LOG_THROTTLE_SECONDS", float, DEFAULT_LOG_THROTTLE_SECONDS
            ),
            receipts=ReceiptsSettings.from_env(env),
            shards=shards,
        )

    @property
    def shard_count(self) -> int:
        """How many shards the event store is split over (1: not split)."""
        return max(1, len(self.shards))

    def shard(self, k: int) -> Settings:
        """These settings with shard ``k``'s event store as the one store."""
        if not self.shards:
            if k != 0:
                raise ValueError(f"shard {k}: the event store is not split (OPUS_SHARDS)")
            return self
        return replace(self, event_store=dict(self.shards[k]), shards=())

    @property
    def persistence_module(self) -> str:
        return self.event_store["PERSISTENCE_MODULE"]

    def describe_events(self) -> str:
        """The event store, for a command's first line."""
        if self.shards:
            return f"{len(self.shards)} shards: " + ", ".join(map(describe_shard, self.shards))
        dbname = self.event_store.get("SQLITE_DBNAME", "")
        return f"{self.persistence_module} {dbname}".rstrip()


def event_store_env(env: Mapping[str, str]) -> dict[str, str]:
    """eventsourcing's variables from ``env``, over the embedded defaults."""
    events = {name: value for name, value in env.items() if _is_eventsourcing(name)}
    events.setdefault("PERSISTENCE_MODULE", DEFAULT_PERSISTENCE_MODULE)
    if events["PERSISTENCE_MODULE"] == SQLITE:
        events.setdefault("SQLITE_DBNAME", DEFAULT_SQLITE_DBNAME)
    if events["PERSISTENCE_MODULE"] == POSTGRES:
        for name, value in DEFAULT_POSTGRES.items():
            events.setdefault(name, value)
    return events


def shard_stores(env: Mapping[str, str]) -> tuple[dict[str, str], ...]:
    """Each shard's event store from ``OPUS_SHARDS`` (module docstring), in
    its order; () when it is absent."""
    entries = env.get("OPUS_SHARDS", "").replace(",", " ").split()
    if not entries:
        return ()
    base = event_store_env({"PERSISTENCE_MODULE": POSTGRES, **env})
    if base["PERSISTENCE_MODULE"] != POSTGRES:
        raise ValueError(
            f"OPUS_SHARDS needs PostgreSQL: PERSISTENCE_MODULE={base['PERSISTENCE_MODULE']} "
            f"(shards are PostgreSQL servers; unset it or set it to {POSTGRES})"
        )
    stores = tuple(
        {**base, **_both_spellings(_shard_address(entry, k))} for k, entry in enumerate(entries)
    )
    seen: dict[tuple[str, str, str], int] = {}
    for k, store in enumerate(stores):
        where = (store["POSTGRES_HOST"], store["POSTGRES_PORT"], store["POSTGRES_DBNAME"])
        if where in seen:
            raise ValueError(
                f"OPUS_SHARDS: shards {seen[where]} and {k} are the same database "
                f"({describe_shard(store)}): each shard is a store of its own"
            )
        seen[where] = k
    return stores


def _shard_address(entry: str, k: int) -> dict[str, str]:
    """``POSTGRES_*`` of one ``OPUS_SHARDS`` entry."""
    url = urlsplit(entry if "://" in entry else f"postgresql://{entry}")
    problem = ""
    if url.scheme not in ("postgresql", "postgres"):
        problem = f"the scheme {url.scheme!r} is not postgresql"
    elif not url.hostname:
        problem = "no host"
    elif not url.path.strip("/") or "/" in url.path.strip("/"):
        problem = "no database: end it with /dbname"
    elif url.query or url.fragment:
        problem = "it has a query or a fragment (give other settings as POSTGRES_*)"
    else:
        try:
            port = url.port
        except ValueError:
            port = None
            problem = "its port is not a number from 1 to 65535"
    if problem:
        raise ValueError(
            f"OPUS_SHARDS entry {k} ({entry!r}): {problem}; write "
            "postgresql://[user[:password]@]host[:port]/dbname or host[:port]/dbname"
        )
    address = {
        "POSTGRES_HOST": url.hostname or "",
        "POSTGRES_PORT": str(port or 5432),
        "POSTGRES_DBNAME": unquote(url.path.strip("/")),
    }
    if url.username:
        address["POSTGRES_USER"] = unquote(url.username)
    if url.password is not None:
        address["POSTGRES_PASSWORD"] = unquote(url.password)
    return address


def _both_spellings(address: dict[str, str]) -> dict[str, str]:
    """A shard's address under eventsourcing's both names for each variable:
    the library reads ``OPUS_POSTGRES_*`` before ``POSTGRES_*`` (and the
    process's environment under the settings), so an ``OPUS_POSTGRES_DBNAME``
    set beside ``OPUS_SHARDS`` would otherwise send every shard to one
    database."""
    return {**address, **{APPLICATION_PREFIX + name: value for name, value in address.items()}}


def describe_shard(store: Mapping[str, str]) -> str:
    """host:port/dbname (never the password)."""
    return f"{store['POSTGRES_HOST']}:{store['POSTGRES_PORT']}/{store['POSTGRES_DBNAME']}"


def is_sqlite_file(dbname: str) -> bool:
    """A SQLite database name that is a file path (not in memory, not a URI)."""
    return bool(dbname) and dbname != ":memory:" and not dbname.startswith("file:")


def _is_eventsourcing(name: str) -> bool:
    name = name.removeprefix(APPLICATION_PREFIX)
    return name.startswith(EVENTSOURCING_PREFIXES) or name in EVENTSOURCING_NAMES


def _views(
    env: Mapping[str, str], events: Mapping[str, str], redis_url: str | None, prefix: str
) -> ViewStoreSettings:
    """Redis when ``REDIS_URL`` is set (keys under ``OPUS_REDIS_PREFIX``);
    else SQLite at ``OPUS_VIEWS_DBNAME``, by default next to a SQLite event
    store (``./var/opus.db`` -> ``./var/opus.views.db``), or ``./var/views.db``."""
    if redis_url:
        return ViewStoreSettings("redis", redis_url=redis_url, redis_prefix=prefix)
    path = env.get("OPUS_VIEWS_DBNAME", "")
    if not path:
        dbname = events.get("SQLITE_DBNAME", "")
        if events["PERSISTENCE_MODULE"] == SQLITE and is_sqlite_file(dbname):
            path = str(Path(dbname).with_suffix(".views.db"))
        else:
            path = DEFAULT_VIEWS_DBNAME
    return ViewStoreSettings("sqlite", sqlite_path=path)


N = TypeVar("N", int, float)


def _number(env: Mapping[str, str], name: str, kind: Callable[[str], N], default: N) -> N:
    text = env.get(name)
    if text is None:
        return default
    try:
        return kind(text)
    except ValueError:
        raise ValueError(f"{name}={text!r} is not a number") from None


def _count(env: Mapping[str, str], name: str, default: int) -> int:
    """A whole number, 0 or more."""
    value = _number(env, name, int, default)
    if value < 0:
        raise ValueError(f"{name}={value} must be 0 or more")
    return value


def _positive(env: Mapping[str, str], name: str, default: float) -> float:
    """A number of seconds, more than 0."""
    value = _number(env, name, float, default)
    if not value > 0:
        raise ValueError(f"{name}={value} must be more than 0")
    return value


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    """A number of seconds, 0 or more."""
    value = _number(env, name, float, default)
    if not value >= 0:
        raise ValueError(f"{name}={value} must be 0 or more")
    return value


def _silence(env: Mapping[str, str], name: str, default: float) -> float:
    """Seconds without a heartbeat: 0 (not looked at), or more than the
    runners' heartbeat interval."""
    value = _number(env, name, float, default)
    if value != 0 and not value > HEARTBEAT_INTERVAL:
        raise ValueError(
            f"{name}={value} must be 0 (heartbeats not looked at) or more than "
            f"the runners' heartbeat interval, {HEARTBEAT_INTERVAL:g} s"
        )
    return value
