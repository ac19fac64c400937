"""Settings read once from the environment: the documented variables and defaults."""

from __future__ import annotations

import pickle

import pytest

from infra.bootstrap import SUBSCRIBABLE_SQLITE_RECORDER, application_env
from infra.settings import (
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_QUERY_WAIT_SECONDS,
    DEFAULT_REDIS_PREFIX,
    Settings,
    ViewStoreSettings,
)


def test_the_embedded_defaults() -> None:
    settings = Settings.from_env({})
    assert settings.event_store == {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": "./var/opus.db",
    }
    assert settings.views == ViewStoreSettings("sqlite", sqlite_path="var/opus.views.db")
    assert settings.redis_url is None and settings.redis_prefix == DEFAULT_REDIS_PREFIX == "opus:"
    assert settings.run_projections
    assert settings.query_wait_seconds == DEFAULT_QUERY_WAIT_SECONDS == 5.0
    assert settings.max_body_bytes == DEFAULT_MAX_BODY_BYTES == 64 * 1024
    assert (settings.runner_batch_size, settings.rebuild_batch_size) == (500, 2000)
    assert settings.reconnect_timeout == 30.0


def test_postgres_defaults_and_only_eventsourcing_variables_for_the_event_store() -> None:
    settings = Settings.from_env(
        {"PERSISTENCE_MODULE": "eventsourcing.postgres", "POSTGRES_SCHEMA": "s", "HOME": "/root"}
    )
    assert settings.event_store == {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_SCHEMA": "s",
        "POSTGRES_DBNAME": "opus",
        "POSTGRES_HOST": "127.0.0.1",
        "POSTGRES_PORT": "5432",
        "POSTGRES_USER": "postgres",
        "POSTGRES_PASSWORD": "",
    }
    assert settings.views == ViewStoreSettings("sqlite", sqlite_path="./var/views.db")


def test_redis_and_the_service_variables() -> None:
    settings = Settings.from_env(
        {
            "REDIS_URL": "redis://h:6379/1",
            "OPUS_REDIS_PREFIX": "blue:",
            "OPUS_RUN_PROJECTIONS": "0",
            "OPUS_QUERY_WAIT_SECONDS": "1.5",
            "OPUS_MAX_BODY_BYTES": "100",
        }
    )
    assert settings.views == ViewStoreSettings(
        "redis", redis_url="redis://h:6379/1", redis_prefix="blue:"
    )
    assert (settings.redis_url, settings.redis_prefix) == ("redis://h:6379/1", "blue:")
    assert not settings.run_projections
    assert (settings.query_wait_seconds, settings.max_body_bytes) == (1.5, 100)


def test_overrides_set_and_unset_variables() -> None:
    environ = {"REDIS_URL": "redis://h", "OPUS_VIEWS_DBNAME": "/v.db"}
    settings = Settings.from_env(environ, overrides={"REDIS_URL": None, "SQLITE_DBNAME": "/e.db"})
    assert settings.redis_url is None
    assert settings.views.sqlite_path == "/v.db"
    assert settings.event_store["SQLITE_DBNAME"] == "/e.db"


def test_a_bad_number_names_its_variable() -> None:
    with pytest.raises(ValueError, match="OPUS_MAX_BODY_BYTES='lots'"):
        Settings.from_env({"OPUS_MAX_BODY_BYTES": "lots"})


def test_sqlite_is_opened_subscribable_and_settings_pickle_for_workers() -> None:
    settings = Settings.from_env({"SQLITE_DBNAME": "/e.db"})
    env = application_env(settings, create_tables=False)
    assert env["APPLICATION_RECORDER_TOPIC"] == SUBSCRIBABLE_SQLITE_RECORDER
    assert env["CREATE_TABLE"] == "n"
    assert pickle.loads(pickle.dumps(settings)) == settings
