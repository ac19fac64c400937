"""docker-compose.yml's optional `sharded` profile (the event store split over
three PostgreSQL servers), as docker-compose itself reads it (no Docker
daemon needed), and the settings its services are given."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from infra.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ["docker-compose", "-f", str(ROOT / "docker-compose.yml"), "--profile", "sharded"]
SHARDS = "postgres/opus,postgres-shard-1/opus,postgres-shard-2/opus"
SHARD_SERVERS = ["postgres-shard-1", "postgres-shard-2"]

pytestmark = pytest.mark.skipif(
    shutil.which("docker-compose") is None,
    reason="docker-compose is not installed (.ci/run installs it: apt-get install docker-compose)",
)


def config(shards: str | None) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "OPUS_SHARDS"}
    if shards is not None:
        env["OPUS_SHARDS"] = shards
    checked = subprocess.run(
        [*COMPOSE, "config"], capture_output=True, text=True, timeout=60, env=env
    )
    assert checked.returncode == 0, checked.stderr
    loaded: dict[str, Any] = yaml.safe_load(checked.stdout)
    return loaded


def settings_of(service: dict[str, Any]) -> Settings:
    """The settings a service's process reads from its environment."""
    return Settings.from_env({k: str(v) for k, v in service["environment"].items()})


def test_without_opus_shards_every_process_has_the_one_store() -> None:
    services = config(None)["services"]
    for name in ("api", "streams", "projector"):
        settings = settings_of(services[name])
        assert settings.shard_count == 1
        assert settings.event_store["POSTGRES_HOST"] == "postgres"


def test_the_sharded_profile_runs_two_more_servers_each_on_its_own_volume() -> None:
    loaded = config(SHARDS)
    services = loaded["services"]
    for name in SHARD_SERVERS:
        assert services[name]["profiles"] == ["sharded"], name  # optional: off by default
        assert str(services[name]["image"]).startswith("postgres:")
        assert services[name]["environment"]["POSTGRES_DB"] == "opus"
    volumes = [str(services[name]["volumes"][0]) for name in ["postgres", *SHARD_SERVERS]]
    assert len({volume.split(":")[0] for volume in volumes}) == 3, volumes
    for name in ("api", "streams", "projector"):
        settings = settings_of(services[name])
        assert settings.shard_count == 3
        hosts = [store["POSTGRES_HOST"] for store in settings.shards]
        assert hosts == ["postgres", *SHARD_SERVERS]  # shard 0, the home shard, first
        assert settings.receipts.enabled  # a global log per shard
