"""docker-compose.yml, the production layout, is a valid Compose file
(checked by docker-compose itself; no Docker daemon is needed for that)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def compose_config() -> dict[str, Any]:
    """docker-compose.yml as docker-compose itself reads it (``config``:
    checked, merged, variables filled), parsed."""
    checked = subprocess.run(
        ["docker-compose", "-f", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stderr
    config: dict[str, Any] = yaml.safe_load(checked.stdout)
    return config


NO_COMPOSE = pytest.mark.skipif(
    shutil.which("docker-compose") is None,
    reason="docker-compose is not installed (.ci/run installs it: apt-get install docker-compose)",
)


@NO_COMPOSE
def test_the_compose_file_is_valid_and_runs_every_part_of_the_production_layout() -> None:
    services = compose_config()["services"]
    assert {"postgres", "redis", "api", "projector", "streams", "clocks", "proxy"} <= set(
        services
    ), services
    assert services["projector"]["restart"] == "unless-stopped"
    assert services["clocks"]["restart"] == "unless-stopped"
    assert services["clocks"]["command"] == ["opus", "clocks"]
