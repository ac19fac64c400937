"""Many open event streams on the production layout (bench/streams.py starts
it: the API under gthread workers, the stream service under gevent workers,
``opus project``, PostgreSQL and Redis): /healthz stays fast on both
services, every stream hears every move through Redis, and every stream
closes when its game ends."""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Iterator

import pytest
import requests

from bench.streams import HttpGame, Layout, Streams, production

STREAMS = 200
FAST = 0.1  # seconds: the median /healthz while the streams are open
SLOW = 1.0  # seconds: the slowest one allowed (a thread-per-stream layout times out)

# its answers are timed: never beside another such file (make test runs pytest-xdist)
pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("measures")]


@pytest.fixture(scope="module")
def layout() -> Iterator[Layout]:
    sizes = argparse.Namespace(
        api_workers=2, api_threads=4, stream_workers=1, worker_connections=1000
    )
    with production(sizes) as started:
        yield started


def healthz_times(base: str, streams: Streams, count: int = 30) -> list[float]:
    http = requests.Session()
    times = []
    for _ in range(count):
        started = time.perf_counter()
        assert http.get(f"{base}/healthz", timeout=5).status_code == 200
        times.append(time.perf_counter() - started)
        streams.pump(0.01)  # the clients keep reading, as browsers do
    return times


def last_version(base: str, game: str) -> int:
    lines = requests.get(f"{base}/games/{game}/export", timeout=5).text.splitlines()
    return int(json.loads(lines[-1])["version"])


def test_many_open_streams_leave_healthz_fast_and_close_with_their_game(layout: Layout) -> None:
    http = requests.Session()
    game = HttpGame(http, layout.api)
    host, port = layout.streams.removeprefix("http://").split(":")
    streams = Streams(host, int(port))
    try:
        for _ in range(STREAMS):
            streams.open(f"/games/{game.id}/events")
        assert streams.wait_answered(STREAMS, timeout=60), streams.statuses
        assert streams.statuses == {200: STREAMS}
        version = last_version(layout.api, game.id)
        deadline = time.monotonic() + 10
        while streams.events < STREAMS * version and time.monotonic() < deadline:
            streams.pump(0.05)
        assert streams.events == STREAMS * version  # every stream replayed the log

        for base in (layout.streams, layout.api):
            times = healthz_times(base, streams)
            assert statistics.median(times) < FAST, (base, times)
            assert max(times) < SLOW, (base, times)

        rng = random.Random(1)
        moves: list[float] = []
        failures: list[str] = []
        game.move(rng, moves, failures)
        assert not failures
        version = last_version(layout.api, game.id)
        deadline = time.monotonic() + 10
        while streams.events < STREAMS * version and time.monotonic() < deadline:
            streams.pump(0.05)
        assert streams.events == STREAMS * version  # the move reached every stream live

        while not game.over:
            game.move(rng, moves, failures)
        assert not failures
        deadline = time.monotonic() + 30
        while streams.closed < STREAMS and time.monotonic() < deadline:
            streams.pump(0.05)
        assert streams.closed == STREAMS  # every stream ended with its game
        version = last_version(layout.api, game.id)
        assert streams.events == STREAMS * version
    finally:
        streams.close()

    events = f"{layout.streams}/games/{game.id}/events"
    up_to_date = requests.get(events, headers={"Last-Event-ID": str(version)}, timeout=5)
    assert up_to_date.status_code == 204
    for forged in ("abc", "-1", str(version + 1)):
        answer = requests.get(events, headers={"Last-Event-ID": forged}, timeout=5)
        assert answer.status_code == 400, forged
        assert answer.json()["code"] == 400
