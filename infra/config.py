"""The one place that reads configuration from the environment.

Stores use ``eventsourcing``'s own variables, so anyone who knows the library
knows ours: ``PERSISTENCE_MODULE`` (``eventsourcing.sqlite`` by default,
``eventsourcing.postgres``, or ``eventsourcing.popo`` for in-memory),
``SQLITE_DBNAME`` (default ``./var/opus.db``) and ``POSTGRES_*``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULT_SQLITE_DBNAME = "./var/opus.db"


def store_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The event store settings: the environment over the embedded defaults."""
    env = dict(os.environ if environ is None else environ)
    env.setdefault("PERSISTENCE_MODULE", "eventsourcing.sqlite")
    if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        env.setdefault("SQLITE_DBNAME", DEFAULT_SQLITE_DBNAME)
        dbname = env["SQLITE_DBNAME"]
        if dbname != ":memory:" and not dbname.startswith("file:"):
            Path(dbname).parent.mkdir(parents=True, exist_ok=True)
    if env["PERSISTENCE_MODULE"] == "eventsourcing.postgres":
        env.setdefault("POSTGRES_DBNAME", "opus")
        env.setdefault("POSTGRES_HOST", "127.0.0.1")
        env.setdefault("POSTGRES_PORT", "5432")
        env.setdefault("POSTGRES_USER", "postgres")
        env.setdefault("POSTGRES_PASSWORD", "")
    return env


def api_settings(environ: Mapping[str, str] | None = None) -> dict[str, object]:
    """The HTTP service's settings: event store, Redis, and whether this
    process runs the projections itself (the embedded mode) or leaves them to
    ``opus project`` processes (production, ``OPUS_RUN_PROJECTIONS=0``)."""
    env = dict(os.environ if environ is None else environ)
    return {
        "EVENT_STORE": store_env(env),
        "REDIS_URL": env.get("REDIS_URL") or None,
        "RUN_PROJECTIONS": env.get("OPUS_RUN_PROJECTIONS", "1") not in ("0", "no", "false"),
        "QUERY_WAIT_SECONDS": float(env.get("OPUS_QUERY_WAIT_SECONDS", "5")),
        "MAX_CONTENT_LENGTH": int(env.get("OPUS_MAX_BODY_BYTES", str(64 * 1024))),
    }


# ---- the read side (projections/) -------------------------------------------

SUBSCRIBABLE_SQLITE_RECORDER = "projections.subscription:SubscribableSQLiteApplicationRecorder"
DEFAULT_VIEWS_DBNAME = "./var/views.db"
DEFAULT_REDIS_PREFIX = "opus:"


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


def view_store_settings(environ: Mapping[str, str] | None = None) -> ViewStoreSettings:
    """Redis when ``REDIS_URL`` is set (keys under ``OPUS_REDIS_PREFIX``,
    default ``opus:``); else SQLite at ``OPUS_VIEWS_DBNAME``, by default next
    to a SQLite event store (``./var/opus.db`` -> ``./var/opus.views.db``),
    or ``./var/views.db``."""
    env = os.environ if environ is None else environ
    if env.get("REDIS_URL"):
        prefix = env.get("OPUS_REDIS_PREFIX", DEFAULT_REDIS_PREFIX)
        return ViewStoreSettings("redis", redis_url=env["REDIS_URL"], redis_prefix=prefix)
    path = env.get("OPUS_VIEWS_DBNAME", "")
    if not path:
        events = store_env(env)
        dbname = events.get("SQLITE_DBNAME", "")
        if events["PERSISTENCE_MODULE"] == "eventsourcing.sqlite" and _is_file(dbname):
            path = str(Path(dbname).with_suffix(".views.db"))
        else:
            path = DEFAULT_VIEWS_DBNAME
    return ViewStoreSettings("sqlite", sqlite_path=path)


def projection_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The event store settings for projection runners: as ``store_env``,
    with a SQLite recorder that can be subscribed to (projections/subscription.py)."""
    env = store_env(environ)
    if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
        env.setdefault("APPLICATION_RECORDER_TOPIC", SUBSCRIBABLE_SQLITE_RECORDER)
    return env


def _is_file(dbname: str) -> bool:
    return bool(dbname) and dbname != ":memory:" and not dbname.startswith("file:")


def test_postgres_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The PostgreSQL the tests and benchmarks use: ``OPUS_TEST_POSTGRES_DBNAME``,
    ``…_HOST``, ``…_PORT``, ``…_USER``, ``…_PASSWORD`` (database ``test`` as
    ``postgres`` on 127.0.0.1:5432 by default)."""
    env = os.environ if environ is None else environ
    return {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": env.get("OPUS_TEST_POSTGRES_DBNAME", "test"),
        "POSTGRES_HOST": env.get("OPUS_TEST_POSTGRES_HOST", "127.0.0.1"),
        "POSTGRES_PORT": env.get("OPUS_TEST_POSTGRES_PORT", "5432"),
        "POSTGRES_USER": env.get("OPUS_TEST_POSTGRES_USER", "postgres"),
        "POSTGRES_PASSWORD": env.get("OPUS_TEST_POSTGRES_PASSWORD", ""),
    }
