"""The production layout runs the service's own witness (docker-compose.yml,
checked by docker-compose itself): a process with its own key and store in
a volume of its own, following the keys the API serves, reached by players
through nginx; the API's signing key kept in a volume so a container made
anew does not change it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(
    shutil.which("docker-compose") is None,
    reason="docker-compose is not installed (.ci/run installs it: apt-get install docker-compose)",
)
def test_the_layout_runs_the_services_own_witness() -> None:
    checked = subprocess.run(
        ["docker-compose", "-f", str(ROOT / "docker-compose.yml"), "config"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stderr
    config = yaml.safe_load(checked.stdout)
    witness = config["services"]["witness"]
    command = witness["command"]
    assert command[:2] == ["opus", "witness"]
    assert command[command.index("--follow") + 1] == "http://api:8000"
    assert any("/var/lib/opus-witness" in str(v) for v in witness["volumes"])
    assert witness["restart"] == "unless-stopped"
    api = config["services"]["api"]
    assert api["environment"]["OPUS_RECEIPTS_KEY_FILE"].startswith("/var/lib/opus-receipts/")
    assert any("/var/lib/opus-receipts" in str(v) for v in api["volumes"])
    nginx = config["services"]["proxy"]["environment"]["NGINX_CONF"]
    assert "location /witness/" in nginx and "server witness:8800" in nginx
