"""OPUS_SHARDS: each shard's event store from settings alone (infra/settings.py)."""

from __future__ import annotations

import re

import pytest
from eventsourcing.utils import Environment

from infra.settings import POSTGRES, Settings

BASE = {"POSTGRES_USER": "opus", "POSTGRES_PASSWORD": "secret", "POSTGRES_SCHEMA": "events"}


def test_absent_is_the_one_store_of_today() -> None:
    settings = Settings.from_env({})
    assert settings.shards == () and settings.shard_count == 1
    assert settings.shard(0) is settings
    with pytest.raises(ValueError, match="not split"):
        settings.shard(1)


def test_each_entry_is_a_shard_in_order_sharing_the_other_postgres_settings() -> None:
    settings = Settings.from_env(
        {**BASE, "OPUS_SHARDS": "db0.local/opus, postgresql://other:pw%2F1@db1.local:6432/opus2"}
    )
    assert settings.shard_count == 2
    first, second = settings.shards
    assert first["PERSISTENCE_MODULE"] == second["PERSISTENCE_MODULE"] == POSTGRES
    assert (first["POSTGRES_HOST"], first["POSTGRES_PORT"], first["POSTGRES_DBNAME"]) == (
        "db0.local",
        "5432",
        "opus",
    )
    assert (first["POSTGRES_USER"], first["POSTGRES_PASSWORD"]) == ("opus", "secret")
    assert (second["POSTGRES_HOST"], second["POSTGRES_PORT"]) == ("db1.local", "6432")
    assert (second["POSTGRES_USER"], second["POSTGRES_PASSWORD"]) == ("other", "pw/1")
    assert first["POSTGRES_SCHEMA"] == second["POSTGRES_SCHEMA"] == "events"
    assert settings.event_store == first  # shard 0 is the home shard
    assert settings.shard(1).event_store == second and settings.shard(1).shards == ()
    assert settings.describe_events() == "2 shards: db0.local:5432/opus, db1.local:6432/opus2"
    assert "pw" not in settings.describe_events()


def test_one_entry_is_the_one_store_at_that_address() -> None:
    settings = Settings.from_env({**BASE, "OPUS_SHARDS": "db0.local:5433/opus"})
    assert settings.shards == () and settings.shard_count == 1
    assert settings.event_store["POSTGRES_HOST"] == "db0.local"
    assert settings.event_store["POSTGRES_PORT"] == "5433"


def test_receipts_are_on_with_shards_as_without_and_off_when_asked() -> None:
    assert Settings.from_env({"OPUS_SHARDS": "a/x b/x"}).receipts.enabled
    assert Settings.from_env({}).receipts.enabled
    assert Settings.from_env({"OPUS_SHARDS": "a/x b/x", "OPUS_RECEIPTS": "1"}).receipts.enabled
    assert not Settings.from_env({"OPUS_SHARDS": "a/x b/x", "OPUS_RECEIPTS": "0"}).receipts.enabled


@pytest.mark.parametrize(
    ("shards", "says"),
    [
        ("db0/opus db1", "entry 1 ('db1'): no database"),
        ("db0/opus db1:notaport/opus", "entry 1 ('db1:notaport/opus'): its port"),
        ("db0/opus mysql://db1/opus", "the scheme 'mysql' is not postgresql"),
        ("db0/opus db1/opus?sslmode=require", "query"),
        ("db0/opus db0:5432/opus", "shards 0 and 1 are the same database"),
        ("db0/opus /opus", "no host"),
    ],
)
def test_a_bad_entry_is_refused_naming_it(shards: str, says: str) -> None:
    with pytest.raises(ValueError, match="OPUS_SHARDS") as refused:
        Settings.from_env({"OPUS_SHARDS": shards})
    assert says in str(refused.value)


def test_shards_need_postgresql() -> None:
    sqlite = "PERSISTENCE_MODULE=eventsourcing.sqlite"
    with pytest.raises(ValueError, match=re.escape(f"needs PostgreSQL: {sqlite}")):
        Settings.from_env({"OPUS_SHARDS": "a/x b/x", "PERSISTENCE_MODULE": "eventsourcing.sqlite"})


def test_a_prefixed_store_variable_does_not_send_every_shard_to_one_database() -> None:
    # eventsourcing reads OPUS_POSTGRES_* before POSTGRES_*: each shard's
    # address must win under both names
    settings = Settings.from_env(
        {**BASE, "OPUS_POSTGRES_DBNAME": "opus", "OPUS_POSTGRES_HOST": "db9.local"}
        | {"OPUS_SHARDS": "db0.local/s0, db1.local/s1"}
    )
    seen = []
    for store in settings.shards:
        env = Environment("Opus", store)
        seen.append((env.get("POSTGRES_HOST"), env.get("POSTGRES_DBNAME")))
    assert seen == [("db0.local", "s0"), ("db1.local", "s1")]
