"""docker-compose.yml, the production layout, is a valid Compose file
(checked by docker-compose itself; no Docker daemon is needed for that)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(
    shutil.which("docker-compose") is None,
    reason="docker-compose is not installed (.ci/run installs it: apt-get install docker-compose)",
)
def test_the_compose_file_is_valid_and_runs_every_part_of_the_production_layout() -> None:
    checked = subprocess.run(
        ["docker-compose", "-f", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stderr
    services = subprocess.run(
        ["docker-compose", "-f", str(ROOT / "docker-compose.yml"), "config", "--services"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    assert {"postgres", "redis", "api", "projector", "streams", "clocks", "proxy"} <= set(
        services
    ), services
    config = checked.stdout
    projector = config[config.index("projector:") :]
    assert "restart: unless-stopped" in projector.split("\n  proxy:")[0].split("\n  streams:")[0]
