"""Shared fixtures: the application on each real store."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from domain.application import Opus
from infra.bootstrap import SUBSCRIBABLE_SQLITE_RECORDER, application_opener
from infra.settings import Settings
from tests.redis_keys import drop_prefix
from tests.settings import test_postgres_env

POSTGRES_ENV = test_postgres_env()


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
