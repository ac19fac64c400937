"""The live stream's edges: a forged Last-Event-ID, an ended game, the end of
a game heard live, and one pub/sub connection per process for every stream."""

from __future__ import annotations

import json
import random
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.stream import create_stream_app
from domain.bots import BOTS
from domain.simulation import play_game
from infra.broker import RESYNC, InProcessBroker, RedisBroker
from infra.eventlog import game_export
from tests.apps import embedded_app
from tests.conftest import REDIS_URL
from tests.redis_keys import drop_prefix
from tests.sse import sse_messages

STOP_SECONDS = 30.0  # a stream that should end and has not by then is a failure


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    application = embedded_app(tmp_path, run_projections=False)
    yield application
    application.extensions["opus"].close()


def opus(app: Flask) -> Any:
    return app.extensions["opus"].opus


def running_game(app: Flask) -> tuple[str, int]:
    """A started game: its id and last version."""
    service = opus(app)
    game = service.create_game()
    for name in ("Ada", "Boris"):
        service.join(game, name)
    service.start(game)
    return str(game), int(service.version(game))


def ended_game(app: Flask) -> tuple[str, int]:
    game, _ = play_game(opus(app), 2, "random", random.Random(7))
    return str(game), int(opus(app).version(game))


def messages(client: FlaskClient, path: str, **kwargs: Any) -> tuple[int, list[dict[str, Any]]]:
    """The status and every message of a stream that must end by itself (a
    keepalive, sent after 15 s without an event, means it did not)."""
    response = client.get(path, buffered=False, **kwargs)
    received = read_to_the_end(response.response)
    response.close()
    return response.status_code, received


def read_to_the_end(chunks: Any) -> list[dict[str, Any]]:
    received: list[dict[str, Any]] = []
    for text in sse_messages(chunks):
        assert not text.startswith(": keepalive"), "the stream did not end"
        if text.startswith("id:"):
            received.append(json.loads(text.split("data: ", 1)[1]))
    return received


@pytest.mark.parametrize(
    "forged", ["abc", "-1", "1.5", " 3", "3 ", "0x10", "1e3", "", "9" * 19, "٣"]
)
def test_a_forged_last_event_id_is_a_400(app: Flask, forged: str) -> None:
    client = app.test_client()
    game, _ = running_game(app)
    for kwargs in (
        {"headers": {"Last-Event-ID": forged}},
        {"query_string": {"after_version": forged}},
    ):
        response = client.get(f"/games/{game}/events", **kwargs)
        assert response.status_code == 400, (forged, kwargs)
        assert response.json["code"] == 400
        assert "Last-Event-ID" in response.json["message"]


def test_a_last_event_id_past_the_end_is_a_400(app: Flask) -> None:
    client = app.test_client()
    for game, last in (running_game(app), ended_game(app)):
        for past in (last + 1, last + 1000, 10**17):
            response = client.get(f"/games/{game}/events", headers={"Last-Event-ID": str(past)})
            assert response.status_code == 400, past
            assert "past the game's last version" in response.json["message"]


def test_an_unknown_game_is_a_404_whatever_its_last_event_id(app: Flask) -> None:
    client = app.test_client()
    for header in ({}, {"Last-Event-ID": "3"}):
        response = client.get(f"/games/{uuid.uuid4()}/events", headers=header)
        assert response.status_code == 404


def test_a_client_up_to_date_on_an_ended_game_gets_204(app: Flask) -> None:
    client = app.test_client()
    game, last = ended_game(app)
    response = client.get(f"/games/{game}/events", headers={"Last-Event-ID": str(last)})
    assert response.status_code == 204
    assert response.get_data() == b""


def test_an_ended_games_stream_closes_after_what_is_left(app: Flask) -> None:
    client = app.test_client()
    game, last = ended_game(app)
    status, all_of_it = messages(client, f"/games/{game}/events")
    assert status == 200
    assert [m["version"] for m in all_of_it] == list(range(1, last + 1))
    assert all_of_it[-1]["type"] == "GameEnded"

    status, rest = messages(client, f"/games/{game}/events", headers={"Last-Event-ID": "0"})
    assert status == 200 and rest == all_of_it
    status, rest = messages(
        client, f"/games/{game}/events", headers={"Last-Event-ID": str(last - 2)}
    )
    assert status == 200
    assert [m["version"] for m in rest] == [last - 1, last]


def test_a_live_stream_closes_when_its_game_ends(app: Flask) -> None:
    client = app.test_client()
    game, version = running_game(app)
    service = opus(app)

    def play_to_the_end() -> None:
        choose = BOTS["random"](random.Random(3))
        state = service.state(UUID(game))
        while state.status == "running":
            service.play(UUID(game), choose(state, state.turn))
            state = service.state(UUID(game))

    # The test client reads the first chunk within get(): the game is played
    # meanwhile, in a thread, some of it before the stream subscribes.
    player = threading.Thread(target=play_to_the_end, daemon=True)
    player.start()
    status, received = messages(
        client, f"/games/{game}/events", headers={"Last-Event-ID": str(version)}
    )
    player.join(STOP_SECONDS)
    assert status == 200
    last = int(service.version(UUID(game)))
    assert [m["version"] for m in received] == list(range(version + 1, last + 1))
    assert received[-1]["type"] == "GameEnded"


def test_a_stream_opened_after_the_end_shows_what_an_earlier_one_sealed(app: Flask) -> None:
    """The process keeps the log its streams wrote (api/stream_backlog.py):
    once the game has ended, a new stream reads it whole, revealed (R9.3)."""
    client = app.test_client()
    game, _ = running_game(app)
    response = client.get(f"/games/{game}/events", buffered=False)
    first = next(sse_messages(response.response))  # the log so far, kept
    response.close()
    assert '"redacted":true' in first  # the deal, sealed

    service = opus(app)
    choose = BOTS["random"](random.Random(11))
    state = service.state(UUID(game))
    while state.status == "running":
        service.play(UUID(game), choose(state, state.turn))
        state = service.state(UUID(game))
    status, received = messages(client, f"/games/{game}/events")
    assert status == 200
    assert received == [r.to_line() for r in game_export(service, UUID(game))]
    assert received[-1]["type"] == "GameEnded"
    assert not any(m.get("redacted") for m in received)


def test_the_stream_service_serves_streams_and_health_only(tmp_path: Path) -> None:
    streams = create_stream_app(
        {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / "events.db"),
            "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
            "REDIS_URL": None,
            "OPUS_RUN_PROJECTIONS": "1",  # never in the stream service
        }
    )
    try:
        client = streams.test_client()
        assert client.get("/healthz").status_code == 200
        assert client.post("/games", json={}).status_code in (404, 405)
        game, last = ended_game(streams)
        assert (
            client.get(f"/games/{game}/events", headers={"Last-Event-ID": str(last)}).status_code
            == 204
        )
        assert (
            client.get(f"/games/{game}/events", headers={"Last-Event-ID": "x"}).status_code == 400
        )
    finally:
        streams.extensions["opus"].close()


def test_live_events_reach_their_games_streams_only() -> None:
    """One pattern subscription per process, handed out by game; a prefix's
    glob characters match only themselves."""
    base = f"opus-test:{uuid.uuid4().hex[:8]}:"
    brokers = {p: RedisBroker(REDIS_URL, base + p) for p in ("?:", "[xy]:", "x:")}
    games = [str(uuid.uuid4()) for _ in range(3)]
    try:
        question, bracket, x = brokers["?:"], brokers["[xy]:"], brokers["x:"]
        with (
            question.subscribe(games[0]) as first,
            question.subscribe(games[0]) as second,
            question.subscribe(games[1]) as third,
            bracket.subscribe(games[0]) as by_bracket,
        ):
            x.publish(games[0], "not yours")
            question.publish(games[0], "zero")
            question.publish(games[1], "one")
            question.publish(games[2], "two")
            assert first.get(timeout=5) == "zero"
            assert second.get(timeout=5) == "zero"
            assert third.get(timeout=5) == "one"
            assert first.get(timeout=0.3) is None
            assert by_bracket.get(timeout=0.3) is None
    finally:
        for broker in brokers.values():
            broker.close()
        drop_prefix(REDIS_URL, base)


@pytest.mark.parametrize("kind", ["redis", "in-process"])
def test_a_saves_messages_arrive_in_order_from_one_publish(kind: str) -> None:
    """A save's events are published together (one round trip to Redis)
    and reach each stream in the order given."""
    prefix = f"opus-test:{uuid.uuid4().hex[:8]}:"
    broker = RedisBroker(REDIS_URL, prefix) if kind == "redis" else InProcessBroker()
    game = str(uuid.uuid4())
    messages = [f"event {i}" for i in range(5)]
    try:
        with broker.subscribe(game) as stream:
            broker.publish(game, *messages)
            assert [stream.get(timeout=5) for _ in messages] == messages
            assert stream.get(timeout=0.3) is None
    finally:
        broker.close()
        drop_prefix(REDIS_URL, prefix)


def test_a_stream_that_lost_the_end_reads_it_from_the_log_when_told_to_resync(
    app: Flask,
) -> None:
    """The broker lost the last messages (a pub/sub reconnect): nothing more
    will come live; the broker's RESYNC makes the stream read the log, send
    what it missed and close at GameEnded."""
    client = app.test_client()
    game, version = running_game(app)
    service = opus(app)
    broker = app.extensions["opus"].broker
    published = broker.publish
    lost = threading.Event()
    broker.publish = lambda game_id, *messages: (
        None if lost.is_set() else published(game_id, *messages)
    )

    def play_to_the_end_unheard() -> None:
        time.sleep(0.3)  # the stream has subscribed
        lost.set()  # from here on, nothing reaches the streams
        choose = BOTS["random"](random.Random(5))
        state = service.state(UUID(game))
        while state.status == "running":
            service.play(UUID(game), choose(state, state.turn))
            state = service.state(UUID(game))
        broker.broadcast(RESYNC)  # as the Redis broker does after a reconnect

    player = threading.Thread(target=play_to_the_end_unheard, daemon=True)
    player.start()
    status, received = messages(
        client, f"/games/{game}/events", headers={"Last-Event-ID": str(version)}
    )
    player.join(STOP_SECONDS)
    assert status == 200
    last = int(service.version(UUID(game)))
    assert [m["version"] for m in received] == list(range(version + 1, last + 1))
    assert received[-1]["type"] == "GameEnded"


def test_the_redis_broker_tells_its_streams_to_resync_after_a_reconnect() -> None:
    """A private Redis killed and started again: the broker's reader
    reconnects and every local subscription hears RESYNC."""
    import shutil

    from tests.private_servers import RedisServer

    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = RedisServer().start()
    broker = RedisBroker(server.url, f"opus-test:{uuid.uuid4().hex[:8]}:")
    try:
        with broker.subscribe("g") as subscription:
            broker.publish("g", "hello")
            assert subscription.get(timeout=5) == "hello"
            server.kill()
            time.sleep(0.5)
            server.start()
            heard = [subscription.get(timeout=10) for _ in range(1)]
            assert heard == [RESYNC]
    finally:
        broker.close()
        server.kill()
