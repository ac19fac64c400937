"""The read side on a real Redis Cluster (``REDIS_URL=redis+cluster://…``):
three masters and a replica each, ``redis-server --cluster-enabled yes`` on
127.0.0.1 joined by ``redis-cli --cluster create`` (tests/redis_cluster.py).

A view's keys share one slot (its projection's hash tag), so its
compare-and-set commit stays one MULTI/EXEC; the views spread over the
masters; live events cross the cluster bus; and with the master of a view's
slot killed while moves are made, no acknowledged move is lost or applied
twice, and the views catch up with the log once its replica took over."""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask.testing import FlaskClient

from api.app import create_app
from api.ratelimit import RateLimit, RedisLimiter
from domain.application import Opus
from infra.broker import RESYNC, RedisBroker
from infra.settings import Settings
from projections.ports import (
    DEFAULT_GENERATION,
    Changes,
    ListChange,
    TrackingConflictError,
    namespace,
)
from projections.queries import Queries
from projections.redis_client import cluster_nodes, is_cluster
from projections.redis_views import RedisViewStore
from projections.registry import PROJECTIONS
from tests.integration.test_projections_crash import assert_equal_to_a_clean_rebuild
from tests.moves_http import move_request
from tests.redis_cluster import RedisCluster

WAIT_SECONDS = 30.0


@pytest.fixture
def cluster() -> Iterator[RedisCluster]:
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        pytest.skip("redis-server is not installed")
    running = RedisCluster().start()
    try:
        yield running
    finally:
        running.stop()


def wait_until(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.05)


def keyslot(cluster: RedisCluster, key: str) -> int:
    with cluster.nodes[0].client() as client:
        return int(client.execute_command("CLUSTER KEYSLOT", key))


def test_a_cluster_url_names_its_nodes_and_selects_the_cluster() -> None:
    url = "redis+cluster://u:p%40ss@10.0.0.1:7000,10.0.0.2:7001/0"
    assert is_cluster(url) and not is_cluster("redis://10.0.0.1:6379/0")
    assert cluster_nodes(url) == ([("10.0.0.1", 7000), ("10.0.0.2", 7001)], "u", "p@ss")
    settings = Settings.from_env({"REDIS_URL": url})
    assert settings.views.kind == "redis" and settings.views.redis_url == url
    with pytest.raises(ValueError, match="host:port"):
        cluster_nodes("redis+cluster://10.0.0.1")


def test_a_views_keys_share_one_slot_and_the_views_spread_over_the_masters(
    cluster: RedisCluster,
) -> None:
    store = RedisViewStore(cluster.url, "t:")
    try:
        masters = set()
        for projection in PROJECTIONS:
            ns = namespace(projection, "g1")
            keys = [
                store._key(ns, "game-1"),
                store._key(ns, "game-2:seat:0"),
                store._tracking(ns),
                store._active(projection),
                store._tracking(namespace(projection, "asof12")),
            ]
            assert len({keyslot(cluster, key) for key in keys}) == 1, keys
            masters.add(cluster.master_of(store._tracking(ns)).port)
        assert len(masters) >= 2, "every view on one master"
    finally:
        store.close()


def test_the_view_store_on_a_cluster_commits_atomically_and_compares_and_sets(
    cluster: RedisCluster,
) -> None:
    store = RedisViewStore(cluster.url, "t:")
    try:
        ns = namespace("table", DEFAULT_GENERATION)
        changes = Changes()
        changes.docs["game-1"] = json.dumps({"version": 3})
        changes.lists["game-1:log"] = ListChange(appended=["a", "b"])
        changes.zsets["board"] = {"ada": 2}
        store.commit(ns, changes, "Opus", None, 5, active=("table", DEFAULT_GENERATION))
        assert store.position(ns, "Opus") == 5
        assert store.get(ns, "game-1") == json.dumps({"version": 3})
        assert store.items(ns, "game-1:log") == ["a", "b"]
        assert store.scores(ns, "board") == {"ada": 2}
        assert store.namespaces() == [ns]
        assert store.dump(ns)["tracking"] == {"Opus": 5}
        # a stale writer's batch is refused whole: nothing of it lands
        stale = Changes()
        stale.docs["game-1"] = json.dumps({"version": 99})
        with pytest.raises(TrackingConflictError):
            store.commit(ns, stale, "Opus", 4, 6)
        assert store.get(ns, "game-1") == json.dumps({"version": 3})
        assert store.position(ns, "Opus") == 5
        # a generation that is not the active one is not written through it
        store.activate("table", "g9")
        with pytest.raises(TrackingConflictError):
            store.commit(ns, stale, "Opus", 5, 6, active=("table", DEFAULT_GENERATION))
        store.drop(ns)
        assert store.namespaces() == [] and store.get(ns, "game-1") is None
    finally:
        store.close()


def test_live_events_cross_the_cluster_from_one_process_to_another(
    cluster: RedisCluster,
) -> None:
    publisher, listener = RedisBroker(cluster.url, "t:"), RedisBroker(cluster.url, "t:")
    try:
        with listener.subscribe("game-a") as subscription:
            publisher.publish("game-a", "one", "two")
            publisher.publish("game-b", "elsewhere")
            publisher.publish("game-a", "three")
            got = [subscription.get(WAIT_SECONDS) for _ in range(3)]
            assert got == ["one", "two", "three"]
            assert subscription.get(0.3) is None  # game-b's is not game-a's
    finally:
        publisher.close()
        listener.close()


def test_live_events_go_on_after_the_node_holding_the_subscription_dies(
    cluster: RedisCluster,
) -> None:
    publisher, listener = RedisBroker(cluster.url, "t:"), RedisBroker(cluster.url, "t:")
    try:
        with listener.subscribe("game-a") as subscription:
            publisher.publish("game-a", "before")
            assert subscription.get(WAIT_SECONDS) == "before"
            holder = subscribed_node(cluster)
            cluster.kill(holder)
            if any(node is holder for node in masters(cluster)):
                cluster.wait_for_failover_of(holder)
            # told to read the log for what it may have missed, then live again
            deadline = time.monotonic() + WAIT_SECONDS
            got: list[str | None] = []
            while "after" not in got and time.monotonic() < deadline:
                with contextlib.suppress(Exception):  # it learns the new masters too
                    publisher.publish("game-a", "after")
                got.append(subscription.get(0.5))
            assert RESYNC in got and "after" in got, got
            assert got.index(RESYNC) < got.index("after")
    finally:
        publisher.close()
        listener.close()


def subscribed_node(cluster: RedisCluster) -> Any:
    """The node the broker's pattern subscription is held on."""
    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        for node in cluster.nodes:
            if not node.alive():
                continue
            with node.client() as client:
                if any(int(c.get("psub", 0)) > 0 for c in client.client_list()):
                    return node
        time.sleep(0.05)
    raise AssertionError("no node holds the pattern subscription")


def masters(cluster: RedisCluster) -> list[Any]:
    living = next(node for node in cluster.nodes if node.alive())
    with living.client() as client:
        ports = {int(entry[2][1]) for entry in client.execute_command("CLUSTER SLOTS")}
    return [node for node in cluster.nodes if node.port in ports]


def test_the_rate_limit_counts_on_a_cluster(cluster: RedisCluster) -> None:
    broker = RedisBroker(cluster.url, "t:")
    try:
        limiter = RedisLimiter(broker.client, "t:rate:", RateLimit(2, 60))
        assert limiter.wait("10.0.0.1") is None
        assert limiter.wait("10.0.0.1") is None
        wait = limiter.wait("10.0.0.1")  # the third in the window: counted, refused
        assert wait is not None and 0 < wait <= 60
        assert limiter.wait("10.0.0.2") is None
    finally:
        broker.close()


def bearer(token: str, key: str | None = None) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {token}"}
    if key is not None:
        headers["Idempotency-Key"] = key
    return headers


def retried(call: Any, what: str, refused: list[str]) -> Any:
    """``call()`` until it answers other than 503 (a view's master failing
    over), within the wait; each 503 noted in ``refused``."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        response = call()
        if response.status_code != 503:
            return response
        refused.append(what)
        assert response.headers.get("Retry-After"), what
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: still 503 after {WAIT_SECONDS} s")
        time.sleep(0.1)


def started_game(client: FlaskClient) -> tuple[str, list[str], int]:
    created = client.post("/games", json={})
    assert created.status_code == 201, created.json
    game_id, organiser = created.json["game_id"], created.json["organiser_token"]
    tokens = []
    for name in ("Ada", "Boris"):
        joined = client.post(f"/games/{game_id}/players", json={"name": name})
        assert joined.status_code == 201, joined.json
        tokens.append(joined.json["token"])
    started = client.post(f"/games/{game_id}/start", headers=bearer(organiser))
    assert started.status_code == 200, started.json
    return game_id, tokens, started.json["position"]


def test_a_master_killed_while_moves_are_made_loses_nothing_and_the_views_catch_up(
    cluster: RedisCluster, tmp_path: Path
) -> None:
    env = {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / "events.db"),
        "REDIS_URL": cluster.url,
        "OPUS_REDIS_PREFIX": "opus:",
        "OPUS_RUN_PROJECTIONS": "1",
        "OPUS_BOTS": "0",
        "OPUS_RUNNER_CHECK_SECONDS": "0.2",
    }
    app = create_app(env)
    rng = random.Random(25)
    try:
        client = app.test_client()
        games = [started_game(client) for _ in range(3)]
        store = RedisViewStore(cluster.url, "opus:")
        table = cluster.master_of(store._tracking(namespace("table", DEFAULT_GENERATION)))
        acknowledged: dict[str, list[int]] = {game_id: [] for game_id, _, _ in games}
        positions = {game_id: position for game_id, _, position in games}
        killed_at = 24
        refused: list[str] = []  # reads answered 503 while the view's slot failed over
        for move in range(60):
            if move == killed_at:
                cluster.kill(table)  # the table view's master: its replica takes over
            game_id, tokens, _ = games[move % len(games)]
            after = {"after": positions[game_id]}  # the game as of its last move
            state = retried(
                lambda g=game_id, a=after: client.get(f"/games/{g}", query_string=a),
                "the game",
                refused,
            )
            assert state.status_code == 200, state.json
            if state.json["data"]["status"] == "ended":
                continue
            token = tokens[state.json["data"]["turn"]]
            legal = retried(
                lambda g=game_id, t=token: client.get(f"/games/{g}/legal-moves", headers=bearer(t)),
                "the legal moves",
                refused,
            ).json["moves"]
            kind, body = move_request(rng.choice(legal))
            key = f"move-{move}"
            sent = client.post(f"/games/{game_id}/{kind}", json=body, headers=bearer(token, key))
            assert sent.status_code == 201, sent.json  # the write side needs no Redis
            again = client.post(f"/games/{game_id}/{kind}", json=body, headers=bearer(token, key))
            assert again.status_code == 201 and again.json["version"] == sent.json["version"]
            acknowledged[game_id].append(sent.json["version"])
            positions[game_id] = sent.json["position"]
        assert sum(map(len, acknowledged.values())) >= 50
        assert refused, "the kill was never felt: no read waited for the failover"
        cluster.wait_for_failover(store._tracking(namespace("table", DEFAULT_GENERATION)), table)

        events = Opus(env={**Settings.from_env(env).event_store})
        try:
            end = events.recorder.max_notification_id() or 0
            for game_id, versions in acknowledged.items():
                # every acknowledged move is in the log, each once
                assert versions == sorted(set(versions)), versions
                assert events.game(UUID(game_id)).version == versions[-1]
            queries = Queries(store)

            def caught_up() -> bool:
                try:
                    return all(queries.position(name) == end for name in PROJECTIONS)
                except Exception:
                    return False

            wait_until(caught_up, WAIT_SECONDS, "every view caught up with the log")
            for game_id, versions in acknowledged.items():
                view = queries.table_view(game_id)
                assert view is not None and view["version"] == versions[-1]
                # the move log and its seating, read together from the cluster
                log = queries.move_log(game_id, since=versions[-1] - 2)
                assert [e["version"] for e in log] == [versions[-1] - 1, versions[-1]]
                assert all(e["text"] for e in log)
            assert_equal_to_a_clean_rebuild(events, store)
        finally:
            events.close()
            store.close()
    finally:
        app.extensions["opus"].close()


def test_the_cluster_is_refused_a_prefix_that_would_be_its_hash_tag(
    cluster: RedisCluster,
) -> None:
    with pytest.raises(ValueError, match="braces"):
        RedisViewStore(cluster.url, "opus:{x}:")
