"""docker-compose.yml's optional `cluster` profile (a Redis Cluster for the
read side), as docker-compose itself reads it (no Docker daemon needed)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ["docker-compose", "-f", str(ROOT / "docker-compose.yml"), "--profile", "cluster"]
CLUSTER_URL = "redis+cluster://redis-node-1:6379,redis-node-2:6379,redis-node-3:6379"
NODES = [f"redis-node-{k}" for k in range(1, 7)]

pytestmark = pytest.mark.skipif(
    shutil.which("docker-compose") is None,
    reason="docker-compose is not installed (.ci/run installs it: apt-get install docker-compose)",
)


def config(redis_url: str | None) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    if redis_url is not None:
        env["REDIS_URL"] = redis_url
    checked = subprocess.run(
        [*COMPOSE, "config"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert checked.returncode == 0, checked.stderr
    loaded: dict[str, Any] = yaml.safe_load(checked.stdout)
    return loaded


def test_without_redis_url_the_layout_keeps_its_one_redis() -> None:
    services = config(None)["services"]
    for name in ("api", "streams", "projector"):
        assert services[name]["environment"]["REDIS_URL"] == "redis://redis:6379/0"
        assert not set(NODES) & set(services[name].get("depends_on", {}))


def test_the_cluster_profile_runs_six_nodes_joined_with_a_replica_each() -> None:
    services = config(CLUSTER_URL)["services"]
    for name in (*NODES, "redis-cluster-create"):
        assert services[name]["profiles"] == ["cluster"], name  # optional: off by default
    for name in NODES:
        command = services[name]["command"]
        assert command[:3] == ["redis-server", "--cluster-enabled", "yes"], command
    create = " ".join(services["redis-cluster-create"]["command"])
    assert "--cluster create" in create and "--cluster-replicas 1" in create
    assert "for n in 1 2 3 4 5 6" in create
    assert set(services["redis-cluster-create"]["depends_on"]) == set(NODES)
    for name in ("api", "streams", "projector"):
        assert services[name]["environment"]["REDIS_URL"] == CLUSTER_URL
