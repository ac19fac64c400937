"""Two deployments on one Redis, under different ``OPUS_REDIS_PREFIX``es,
share nothing: not the games' live-event channels (``<prefix>games:<id>``),
not the cached responses (``<prefix>idempotency:<key>``). The same prefix
shares both: the control that shows the test can see a leak."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
from flask import Flask

from api.app import create_app
from api.runtime import Services
from tests.conftest import REDIS_URL

Deploy = Callable[[str], Flask]


@pytest.fixture
def deploy(tmp_path: Path) -> Iterator[Deploy]:
    """A service on one shared event store and the shared Redis, under a prefix."""
    apps: list[Flask] = []
    prefixes: set[str] = set()

    def deploy(prefix: str) -> Flask:
        app = create_app(
            {
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": str(tmp_path / "events.db"),
                "REDIS_URL": REDIS_URL,
                "OPUS_REDIS_PREFIX": prefix,
                "OPUS_RUN_PROJECTIONS": "0",
            }
        )
        apps.append(app)
        prefixes.add(prefix)
        return app

    yield deploy
    for app in apps:
        services(app).close()
    client = redis.Redis.from_url(REDIS_URL)
    for prefix in prefixes:
        for key in client.scan_iter(match=f"{prefix}*"):
            client.delete(key)
    client.close()


def services(app: Flask) -> Services:
    found = app.extensions["opus"]
    assert isinstance(found, Services)
    return found


def fresh_prefix() -> str:
    return f"opus-test:{uuid.uuid4().hex[:12]}:"


def test_live_events_stay_on_their_deployments_channels(deploy: Deploy) -> None:
    one, other = fresh_prefix(), fresh_prefix()
    publisher, same, different = deploy(one), deploy(one), deploy(other)
    game = str(uuid.uuid4())
    with (
        services(same).broker.subscribe(game) as heard_by_same,
        services(different).broker.subscribe(game) as heard_by_other,
    ):
        services(publisher).broker.publish(game, "event 1")
        assert heard_by_same.get(timeout=5) == "event 1"
        assert heard_by_other.get(timeout=0.5) is None


def test_a_cached_response_is_replayed_only_under_its_own_prefix(deploy: Deploy) -> None:
    one, other = fresh_prefix(), fresh_prefix()
    first, same, different = deploy(one), deploy(one), deploy(other)
    client = first.test_client()
    created = client.post("/games", json={})
    game, organiser = created.json["game_id"], created.json["organiser_token"]
    for name in ("Ada", "Boris"):
        assert client.post(f"/games/{game}/players", json={"name": name}).status_code == 201
    headers = {"Authorization": f"Bearer {organiser}", "Idempotency-Key": "start-1"}
    started = client.post(f"/games/{game}/start", headers=headers)
    assert started.status_code == 200, started.json
    assert "Idempotent-Replayed" not in started.headers

    replayed = same.test_client().post(f"/games/{game}/start", headers=headers)
    assert replayed.headers.get("Idempotent-Replayed") == "true"
    assert replayed.json == {**started.json, "replayed": True}

    # Another deployment has no cached response: its game answers instead
    # (the command is applied once, the game knows its id), and that answer
    # is cached under the other deployment's prefix.
    cache = redis.Redis.from_url(REDIS_URL)
    try:
        assert len(list(cache.scan_iter(match=f"{one}idempotency:*"))) == 1
        assert not list(cache.scan_iter(match=f"{other}idempotency:*"))
        answered = different.test_client().post(f"/games/{game}/start", headers=headers)
        assert "Idempotent-Replayed" not in answered.headers
        assert len(list(cache.scan_iter(match=f"{other}idempotency:*"))) == 1
    finally:
        cache.close()
