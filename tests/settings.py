"""Settings of the tests and benchmarks only (bench/ imports them too)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, MutableMapping
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


# ---- a database of the test run's own --------------------------------------------------
#
# Tests that run at once (pytest-xdist's workers, or two people's runs on one
# server) must not share the tables of one database: the library's CREATE
# TABLE IF NOT EXISTS and the recorder's CREATE OR REPLACE FUNCTION, run by
# two processes at once, fail with "tuple concurrently updated", and a test
# reading "the log" would read another's events. So each test process works
# in a database of its own, ``<base>_p<pid>``, made from the base database
# (``OPUS_TEST_POSTGRES_DBNAME``, ``test``) and dropped at its end.

RUN_BASE_VARIABLE = "OPUS_TEST_POSTGRES_BASE"


def use_run_database(environ: MutableMapping[str, str], pid: int) -> str:
    """Point ``test_postgres_env`` (here and in every child process) at the
    run's own database, ``<base>_p<pid>``, and return its name. The base is
    kept in ``OPUS_TEST_POSTGRES_BASE``, so a worker started by a process
    that already did this names its database after the same base."""
    base = environ.get(RUN_BASE_VARIABLE) or environ.get("OPUS_TEST_POSTGRES_DBNAME", "test")
    environ[RUN_BASE_VARIABLE] = base
    environ["OPUS_TEST_POSTGRES_DBNAME"] = name = f"{base}_p{pid}"
    return name


def _connect_base() -> Any:
    import psycopg

    env = test_postgres_env()
    return psycopg.connect(
        dbname=os.environ[RUN_BASE_VARIABLE],
        host=env["POSTGRES_HOST"],
        port=env["POSTGRES_PORT"],
        user=env["POSTGRES_USER"],
        password=env["POSTGRES_PASSWORD"] or None,
        autocommit=True,
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def create_run_database() -> None:
    """Create the run's database, first dropping the databases of runs on
    this machine whose process is gone (a run killed before its end)."""
    from psycopg.sql import SQL, Identifier

    name = test_postgres_env()["POSTGRES_DBNAME"]
    base = os.environ[RUN_BASE_VARIABLE]
    local = test_postgres_env()["POSTGRES_HOST"] in ("127.0.0.1", "localhost", "::1")
    mine = re.compile(re.escape(base) + r"_p(\d+)")
    with _connect_base() as db:
        for (other,) in db.execute("SELECT datname FROM pg_database").fetchall():
            found = mine.fullmatch(other)
            if local and found and other != name and not _alive(int(found[1])):
                db.execute(SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(Identifier(other)))
        db.execute(SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(Identifier(name)))
        db.execute(SQL("CREATE DATABASE {}").format(Identifier(name)))


def drop_run_database() -> None:
    """Drop the run's database, closing what still holds it (a server a test
    left stopping)."""
    from psycopg.sql import SQL, Identifier

    name = test_postgres_env()["POSTGRES_DBNAME"]
    with _connect_base() as db:
        db.execute(SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(Identifier(name)))
