"""The production layout runs the service's own witness (docker-compose.yml,
checked by docker-compose itself): a process with its own key and store in
a volume of its own, following the keys the API serves, reached by players
through nginx; the API's signing key kept in a volume so a container made
anew does not change it."""

from __future__ import annotations

from tests.integration.test_compose_file import NO_COMPOSE, compose_config


@NO_COMPOSE
def test_the_layout_runs_the_services_own_witness() -> None:
    config = compose_config()
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
