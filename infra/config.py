"""The one place that reads configuration from the environment.

Stores use ``eventsourcing``'s own variables, so anyone who knows the library
knows ours: ``PERSISTENCE_MODULE`` (``eventsourcing.sqlite`` by default,
``eventsourcing.postgres``, or ``eventsourcing.popo`` for in-memory),
``SQLITE_DBNAME`` (default ``./var/opus.db``) and ``POSTGRES_*``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
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
