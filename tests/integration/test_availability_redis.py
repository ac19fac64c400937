"""Redis is not on the write path: with a private Redis (never the shared
one) killed, a command with an Idempotency-Key is applied and answered as
one without (the response cache is a miss, the write to it skipped), a
retry is still applied once (the command id), and the cache works again
once Redis is back. A Redis restarted empty under idle runners: each notices
its view's position vanished and rebuilds it at once, without a new event."""

from __future__ import annotations

import logging
import math
import random
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from domain.application import Opus
from domain.simulation import play_game
from projections.queries import Queries
from projections.redis_views import RedisViewStore
from projections.registry import PROJECTIONS
from projections.runner import ProjectionRunner
from tests.conftest import opener
from tests.integration.test_projections_crash import assert_equal_to_a_clean_rebuild
from tests.private_servers import RedisServer

# its answers are timed: never beside another such file (make test runs pytest-xdist)
pytestmark = pytest.mark.xdist_group("measures")


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = RedisServer().start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def app(tmp_path: Path, redis_server: RedisServer) -> Iterator[Flask]:
    flask_app = create_app(
        {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / "events.db"),
            "REDIS_URL": redis_server.url,
            "OPUS_REDIS_PREFIX": "opus:",
            "OPUS_RUN_PROJECTIONS": "0",
        }
    )
    yield flask_app
    flask_app.extensions["opus"].close()


def bearer(token: str, key: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {token}"}
    if key is not None:
        headers["Idempotency-Key"] = key
    return headers


def seated_game(client: FlaskClient) -> tuple[str, str]:
    """A game with two seats taken, not started: its id and organiser token."""
    created = client.post("/games", json={})
    assert created.status_code == 201, created.json
    game_id, organiser = created.json["game_id"], created.json["organiser_token"]
    for name in ("Ada", "Boris"):
        joined = client.post(f"/games/{game_id}/players", json={"name": name})
        assert joined.status_code == 201, joined.json
    return game_id, organiser


def test_commands_with_an_idempotency_key_succeed_while_redis_is_down(
    app: Flask, redis_server: RedisServer
) -> None:
    client = app.test_client()
    game_id, organiser = seated_game(client)
    redis_server.kill()

    started = client.post(f"/games/{game_id}/start", headers=bearer(organiser, "start-1"))
    assert started.status_code == 200, started.json
    again = client.post(f"/games/{game_id}/start", headers=bearer(organiser, "start-1"))
    assert again.status_code == 200, again.json  # a cache miss: the game answers
    assert again.json["replayed"] is True
    assert again.json["version"] == started.json["version"]  # applied once

    # a client's own token with its key (a retried create or join is then its own)
    created = client.post("/games", json={}, headers=bearer("o" * 43, "create-1"))
    assert created.status_code == 201, created.json
    joined = client.post(
        f"/games/{created.json['game_id']}/players",
        json={"name": "Cy"},
        headers=bearer("c" * 43, "join-1"),
    )
    assert joined.status_code == 201, joined.json

    redis_server.start()  # back, empty: the cache works again
    game_id, organiser = seated_game(client)
    first = client.post(f"/games/{game_id}/start", headers=bearer(organiser, "start-2"))
    assert first.status_code == 200
    replay = client.post(f"/games/{game_id}/start", headers=bearer(organiser, "start-2"))
    assert replay.headers.get("Idempotent-Replayed") == "true"
    assert replay.get_data() == first.get_data().replace(b'"replayed":false', b'"replayed":true')


def wait_until(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.05)


def test_idle_runners_rebuild_their_views_when_redis_restarts_empty(
    events_env: dict[str, str], redis_server: RedisServer
) -> None:
    store = RedisViewStore(redis_server.url, "opus:", timeout=1.0)
    queries = Queries(store)
    app = Opus(env=events_env)
    game_id, _ = play_game(app, 3, "greedy", random.Random(8))
    end = app.recorder.max_notification_id() or 0
    runners = [
        ProjectionRunner(cls, store, opener(events_env)).start() for cls in PROJECTIONS.values()
    ]
    try:
        for runner in runners:
            runner.wait(end, timeout=20)
        redis_server.kill()
        time.sleep(0.5)  # the runners' checks find the store unreachable and retry
        redis_server.start()  # empty: every view and position gone
        # no event is written: the runners must notice on their own
        wait_until(
            lambda: all(queries.position(name) == end for name in PROJECTIONS),
            20,
            "the views caught up again",
        )
        assert queries.table_view(game_id) is not None
    finally:
        for runner in runners:
            runner.stop()
        for runner in runners:
            runner.join(10)
    assert [r.error for r in runners] == [None] * len(runners)
    assert_equal_to_a_clean_rebuild(app, store)
    app.close()
    store.close()


def test_an_outage_logs_each_kind_of_failure_once_an_interval_with_a_count(
    tmp_path: Path, redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Every command during a Redis outage fails to publish its events and
    to keep its response, every query to read its view: each kind of
    failure is logged once per OPUS_LOG_THROTTLE_SECONDS, each record with
    the count of those not logged, never a traceback per command."""
    interval = 1.0
    flask_app = create_app(
        {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / "events.db"),
            "REDIS_URL": redis_server.url,
            "OPUS_REDIS_PREFIX": "opus:",
            "OPUS_RUN_PROJECTIONS": "0",
            "OPUS_LOG_THROTTLE_SECONDS": str(interval),
        }
    )
    try:
        client = flask_app.test_client()
        games = [seated_game(client) for _ in range(3)]
        redis_server.kill()
        caplog.clear()
        caplog.set_level(logging.WARNING)
        started = time.monotonic()
        commands = 0
        while time.monotonic() - started < 3.5:  # several intervals
            game_id, _ = games[commands % len(games)]
            created = client.post("/games", json={}, headers=bearer("o" * 43, f"c-{commands}"))
            assert created.status_code == 201, created.json
            # a query that needs the views answers 503 and says so
            assert client.get(f"/games/{game_id}").status_code == 503
            commands += 1
        elapsed = time.monotonic() - started
    finally:
        flask_app.extensions["opus"].close()
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert commands >= 20, commands
    # kinds: publishing, the cache's read and write, the rate limit, the
    # views, the broker's reader; each at most once an interval (and once more
    # for an interval begun before the first)
    # (a kind is the throttle's: what failed and the error's class)
    kinds = {(r.name, *r.getMessage().split(" [")[0].split(": ")[:2]) for r in records}
    assert len(records) <= len(kinds) * (math.ceil(elapsed / interval) + 1), [
        r.getMessage() for r in records
    ]
    assert all(isinstance(getattr(r, "suppressed", None), int) for r in records), [
        r.getMessage() for r in records
    ]
    assert all("not logged" in r.getMessage() for r in records)
    assert any(r.suppressed > 0 for r in records)  # type: ignore[attr-defined]
    # a traceback opens a burst of a kind, never one per command (a slow
    # machine may pause a kind for longer than an interval: a new burst)
    tracebacks = [r for r in records if r.exc_info]
    assert len(tracebacks) * 10 <= commands, [r.getMessage() for r in tracebacks]
