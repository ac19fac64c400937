"""Shared fixtures (the application on each real store, the view stores)
and the session's set-up: each test process's own PostgreSQL database, and
the files' groups pytest-xdist's workers take."""

from __future__ import annotations

import os
import uuid
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from domain.application import Opus
from infra.bootstrap import SUBSCRIBABLE_SQLITE_RECORDER, application_opener
from infra.settings import Settings
from tests.redis_keys import drop_prefix
from tests.settings import (
    create_run_database,
    drop_run_database,
    test_postgres_env,
    use_run_database,
)

use_run_database(os.environ, os.getpid())  # before anything reads the settings
POSTGRES_ENV = test_postgres_env()
UNIT_TIER = Path(__file__).parent / "unit"
RUN_DATABASE = pytest.StashKey[bool]()  # made by this process: dropped at its end


def pytest_collection_finish(session: pytest.Session) -> None:
    """Make this process's PostgreSQL database once its tests are known, if
    any may need it (the unit tier does no I/O). Unreachable, it is only
    warned of: the SQLite and Redis tests still run, the PostgreSQL ones fail
    on their own."""
    if all(item.path.is_relative_to(UNIT_TIER) for item in session.items):
        return
    try:
        create_run_database()
    except Exception as error:  # psycopg's, or a missing privilege
        warnings.warn(f"no PostgreSQL database of the run's own: {error}", stacklevel=1)
        return
    session.stash[RUN_DATABASE] = True


def pytest_sessionfinish(session: pytest.Session) -> None:
    if session.stash.get(RUN_DATABASE, False):
        drop_run_database()


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """``make test`` runs the tests in pytest-xdist's workers, ``--dist
    loadgroup``: a file's tests go to one worker together, in their order,
    sharing their module's fixtures (a server, Chromium), unless the file
    names a group of its own: ``xdist_group("measures")`` holds the files
    that time their answers or kill a server under a short timeout, so no
    two of them run at once."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


def store_env(kind: str, tmp_path: Path) -> dict[str, str]:
    if kind == "sqlite":
        return {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / "e.db"),
        }
    if kind == "postgres":
        return dict(POSTGRES_ENV)
    return {"PERSISTENCE_MODULE": "eventsourcing.popo"}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """The settings of a real event store: a SQLite file, then PostgreSQL."""
    return store_env(request.param, tmp_path)


@pytest.fixture
def app(env: dict[str, str]) -> Iterator[Opus]:
    application = Opus(env=env)
    yield application
    application.close()


# ---- the read side: view stores (projections/) ---------------------------------

REDIS_URL = os.environ.get("OPUS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@dataclass
class ViewsUnderTest:
    """A fresh view store and the environment that selects it for `opus`."""

    kind: str
    store: Any
    env: dict[str, str]


def open_test_views(kind: str, tmp_path: Path) -> ViewsUnderTest:
    """A SQLite file, or a random key prefix on the shared Redis (never flushed)."""
    if kind == "sqlite":
        from projections.sqlite_views import SQLiteViewStore

        path = str(tmp_path / f"views-{uuid.uuid4().hex[:6]}.db")
        return ViewsUnderTest(kind, SQLiteViewStore(path), {"OPUS_VIEWS_DBNAME": path})
    from projections.redis_views import RedisViewStore

    prefix = f"opus-test:{uuid.uuid4().hex[:12]}:"
    env = {"REDIS_URL": REDIS_URL, "OPUS_REDIS_PREFIX": prefix}
    return ViewsUnderTest(kind, RedisViewStore(REDIS_URL, prefix), env)


@pytest.fixture(params=["sqlite", "redis"])
def views(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ViewsUnderTest]:
    """A fresh view store: SQLite, then Redis; the same tests run on both."""
    views = open_test_views(str(request.param), tmp_path)
    yield views
    if views.kind == "redis":
        drop_prefix(REDIS_URL, views.env["OPUS_REDIS_PREFIX"])
    views.store.close()


@pytest.fixture
def events_env(tmp_path: Path) -> dict[str, str]:
    """A fresh SQLite event store whose recorder can be subscribed to."""
    return {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / "e.db"),
        "APPLICATION_RECORDER_TOPIC": SUBSCRIBABLE_SQLITE_RECORDER,
    }


def opener(env: Mapping[str, str]) -> Callable[[], Opus]:
    """The composition root's opener of the application on these variables
    (a projection runner's ``open_application``)."""
    return application_opener(Settings.from_env(env))
