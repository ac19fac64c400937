"""Event streams cannot starve the API: a process configured as the
production API (gunicorn with infra/gunicorn_api.py, ``OPUS_API_STREAMS``
unset) refuses every stream with a 503 naming the stream service, and one
given a bound serves that many at once and answers 503 with Retry-After
beyond it; either way /healthz stays fast with ten streams open (ten open
streams used to take every thread of a gthread worker). ``opus serve``, the
embedded layout, serves the streams the web client listens to."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from flask import Flask

from api.app import create_app
from tests.private_servers import free_port

# its answers are timed: never beside another such file (make test runs pytest-xdist)
pytestmark = pytest.mark.xdist_group("measures")

ROOT = Path(__file__).resolve().parent.parent.parent
OPUS = str(Path(sys.executable).parent / "opus")
STREAMS = 10  # open at once: more than a gthread worker's 4 threads
HEALTH_CALLS = 8
FAST = 1.0  # seconds: the slowest /healthz allowed while the streams are open
START_SECONDS = 30.0


def wait_up(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        assert process.poll() is None, "the server exited"
        try:
            if requests.get(f"{base}/healthz", timeout=1).status_code == 200:
                return
        except requests.RequestException:  # not listening yet
            pass
        time.sleep(0.05)
    raise AssertionError(f"{base} did not come up")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(15)


def running_game(base: str) -> str:
    """A started game over HTTP (its stream stays open until it ends)."""
    http = requests.Session()
    created = http.post(f"{base}/games", json={}, timeout=5)
    assert created.status_code == 201, created.text
    game = created.json()["game_id"]
    for name in ("Ada", "Boris"):
        joined = http.post(f"{base}/games/{game}/players", json={"name": name}, timeout=5)
        assert joined.status_code == 201, joined.text
    token = created.json()["organiser_token"]
    started = http.post(
        f"{base}/games/{game}/start", headers={"Authorization": f"Bearer {token}"}, timeout=5
    )
    assert started.status_code == 200, started.text
    return str(game)


def open_stream(port: int, game: str) -> socket.socket:
    """A stream's request sent, its answer not yet read (as a browser that
    keeps the connection open)."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=5)
    connection.sendall(
        f"GET /games/{game}/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    return connection


def answer_head(connection: socket.socket, timeout: float = 5.0) -> tuple[int, str]:
    """The status, headers and what follows: a refusal's whole body, or a
    stream's first message."""
    connection.settimeout(timeout)
    received = b""
    deadline = time.monotonic() + timeout

    def more() -> bool:
        chunk = connection.recv(4096)
        nonlocal received
        received += chunk
        return bool(chunk)

    while b"\r\n\r\n" not in received and time.monotonic() < deadline and more():
        pass
    head = received.partition(b"\r\n\r\n")[0]
    status_line = head.split(b"\r\n", 1)[0].decode()
    assert status_line.startswith("HTTP/1."), received
    lengths = [
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    ]
    if lengths:  # a refusal: its whole body
        while len(received) - len(head) - 4 < lengths[0] and time.monotonic() < deadline:
            if not more():
                break
    else:  # a stream: its first message
        while b"\n\n" not in received[len(head) + 4 :] and time.monotonic() < deadline:
            if not more():
                break
    return int(status_line.split()[1]), received.decode(errors="replace")


def healthz_times(base: str) -> list[float]:
    """``HEALTH_CALLS`` calls of /healthz, each on a connection of its own,
    timed; a call that times out fails the test."""
    times = []
    for _ in range(HEALTH_CALLS):
        started = time.perf_counter()
        try:
            answer = requests.get(f"{base}/healthz", timeout=FAST * 2)
        except requests.Timeout:
            pytest.fail(f"/healthz timed out with {STREAMS} streams open")
        assert answer.status_code == 200
        times.append(time.perf_counter() - started)
    return times


@pytest.fixture
def production_api(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    """The API as production runs it (gunicorn, infra/gunicorn_api.py's
    gthread workers: one worker of 4 threads here), on SQLite files; the
    variables of ``request.param`` over that."""
    port = free_port()
    env = {
        **os.environ,
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / "events.db"),
        "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
        "OPUS_RUN_PROJECTIONS": "0",
        "WEB_CONCURRENCY": "1",
        "OPUS_API_THREADS": "4",
        **request.param,
    }
    env.pop("REDIS_URL", None)
    command = [sys.executable, "-m", "gunicorn", "-c", "infra/gunicorn_api.py"]
    command += ["-b", f"127.0.0.1:{port}", "--log-level", "warning", "api.app:create_app()"]
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_up(base, process)
        yield base, port
    finally:
        stop(process)


@pytest.mark.parametrize("production_api", [{}], indirect=True)
def test_the_production_api_refuses_streams_and_healthz_stays_fast(
    production_api: tuple[str, int],
) -> None:
    base, port = production_api
    game = running_game(base)
    streams = [open_stream(port, game) for _ in range(STREAMS)]
    try:
        times = healthz_times(base)
        answers = [answer_head(s) for s in streams]
    finally:
        for s in streams:
            s.close()
    assert max(times) < FAST, times
    assert [status for status, _ in answers] == [503] * STREAMS, answers
    text = answers[0][1]
    assert "stream service" in text and "api.stream:create_stream_app" in text, text
    assert "OPUS_API_STREAMS" in text, text
    # the API goes on answering commands
    assert requests.post(f"{base}/games", json={}, timeout=5).status_code == 201


@pytest.mark.parametrize("production_api", [{"OPUS_API_STREAMS": "2"}], indirect=True)
def test_an_api_with_a_bound_serves_that_many_streams_and_healthz_stays_fast(
    production_api: tuple[str, int],
) -> None:
    base, port = production_api
    game = running_game(base)
    streams = []
    try:
        for _ in range(STREAMS):
            streams.append(open_stream(port, game))
            time.sleep(0.02)  # in order: the first two are served
        times = healthz_times(base)
        answers = [answer_head(s) for s in streams]
    finally:
        for s in streams:
            s.close()
    assert max(times) < FAST, times
    statuses = [status for status, _ in answers]
    assert statuses.count(200) == 2 and statuses.count(503) == STREAMS - 2, answers
    refused = next(text for status, text in answers if status == 503)
    assert "\r\nRetry-After: " in refused, refused
    assert "at most 2 event streams" in refused, refused


@pytest.fixture
def bounded(tmp_path: Path) -> Iterator[Flask]:
    app = create_app(
        {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / "events.db"),
            "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
            "REDIS_URL": None,
            "OPUS_RUN_PROJECTIONS": "0",
            "OPUS_API_STREAMS": "2",
        }
    )
    yield app
    app.extensions["opus"].close()


class HeldStream:
    """A stream opened through the app's test client in a thread of its own
    (as a server's thread holds it), kept open until ``close``."""

    def __init__(self, app: Flask, path: str) -> None:
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self._opened = threading.Event()
        self._close = threading.Event()
        self._thread = threading.Thread(target=self._hold, args=(app, path), daemon=True)
        self._thread.start()
        assert self._opened.wait(10), "the stream did not answer"

    def _hold(self, app: Flask, path: str) -> None:
        response = app.test_client().get(path, buffered=False)
        self.status, self.headers = response.status_code, dict(response.headers)
        self._opened.set()
        self._close.wait(30)
        response.close()

    def close(self) -> None:
        self._close.set()
        self._thread.join(10)
        assert not self._thread.is_alive()


def test_a_closed_stream_frees_its_place(bounded: Flask) -> None:
    service = bounded.extensions["opus"].opus
    game = service.create_game()
    for name in ("Ada", "Boris"):
        service.join(game, name)
    service.start(game)
    path = f"/games/{game}/events"
    first, second = HeldStream(bounded, path), HeldStream(bounded, path)
    assert (first.status, second.status) == (200, 200)
    third = HeldStream(bounded, path)
    assert third.status == 503
    assert int(third.headers["Retry-After"]) >= 1
    third.close()
    first.close()
    fourth = HeldStream(bounded, path)
    assert fourth.status == 200
    second.close()
    # a refused stream, a 400 and a 404 hold no place: one is left
    client = bounded.test_client()
    assert client.get(f"{path}?after_version=x").status_code == 400
    assert client.get(f"/games/{uuid.uuid4()}/events").status_code == 404
    fifth = HeldStream(bounded, path)
    assert fifth.status == 200
    sixth = HeldStream(bounded, path)
    assert sixth.status == 503
    for held in (fourth, fifth, sixth):
        held.close()
    assert bounded.extensions["opus"].streams.open == 0


@pytest.mark.parametrize("value", ["-1", "two", "1.5"])
def test_a_bad_bound_is_a_clear_error(value: str) -> None:
    from infra.settings import Settings

    with pytest.raises(ValueError, match="OPUS_API_STREAMS"):
        Settings.from_env({}, overrides={"OPUS_API_STREAMS": value})


def test_opus_serve_serves_the_web_clients_streams(tmp_path: Path) -> None:
    port = free_port()
    env = {
        **os.environ,
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / "events.db"),
        "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
    }
    env.pop("REDIS_URL", None)
    env.pop("OPUS_API_STREAMS", None)
    process = subprocess.Popen([OPUS, "serve", "--port", str(port)], cwd=tmp_path, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_up(base, process)
        game = running_game(base)
        streams = [open_stream(port, game) for _ in range(STREAMS)]
        try:
            answers = [answer_head(s) for s in streams]
            times = healthz_times(base)
        finally:
            for s in streams:
                s.close()
    finally:
        stop(process)
    assert [status for status, _ in answers] == [200] * STREAMS, answers
    assert all("event: GameCreated" in text for _, text in answers), answers[0]
    assert max(times) < FAST, times
