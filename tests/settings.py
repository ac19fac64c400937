"""Settings of the tests and benchmarks only (bench/ imports them too)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from infra.bootstrap import POSTGRES_RECORDER


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
        # the application's recorder, as the service opens it
        "APPLICATION_RECORDER_TOPIC": POSTGRES_RECORDER,
    }


test_postgres_env.__test__ = False  # type: ignore[attr-defined]  # pytest: not a test


def connect_test_postgres(*, autocommit: bool = True) -> Any:
    """A psycopg connection to the PostgreSQL of ``test_postgres_env``."""
    import psycopg

    env = test_postgres_env()
    return psycopg.connect(
        dbname=env["POSTGRES_DBNAME"],
        host=env["POSTGRES_HOST"],
        port=env["POSTGRES_PORT"],
        user=env["POSTGRES_USER"],
        password=env["POSTGRES_PASSWORD"] or None,
        autocommit=autocommit,
    )
