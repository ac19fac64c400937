"""Shared fixtures: the application on each real store."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from domain.application import Opus

POSTGRES_ENV = {
    "PERSISTENCE_MODULE": "eventsourcing.postgres",
    "POSTGRES_DBNAME": os.environ.get("OPUS_TEST_POSTGRES_DBNAME", "test"),
    "POSTGRES_HOST": os.environ.get("OPUS_TEST_POSTGRES_HOST", "127.0.0.1"),
    "POSTGRES_PORT": os.environ.get("OPUS_TEST_POSTGRES_PORT", "5432"),
    "POSTGRES_USER": os.environ.get("OPUS_TEST_POSTGRES_USER", "postgres"),
    "POSTGRES_PASSWORD": os.environ.get("OPUS_TEST_POSTGRES_PASSWORD", ""),
}


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
