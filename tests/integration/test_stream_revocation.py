"""A seat stream opened with an account key, against a real server process
(``opus serve`` on SQLite), once the key is rotated on the account page
(issue 35, item 6), in the embedded mode and in the production layout
(the stream service apart from the API): within seconds the stream says ``event: revoked`` and
ends, and no turn offer (hand included) reaches it after that, while the
game goes on; the old key opens no stream again. Before the re-check the
stream kept receiving turn offers for up to an hour."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

from api.stream import RECHECK_SECONDS
from bench import layout
from tests.e2e.test_full_game_http import OPUS, free_port, stop, wait_until_up
from tests.moves_http import kind_of, move_request
from tests.sse import fields, sse_messages

KEY = re.compile(r"opus_[0-9a-f]{32}_[A-Za-z0-9_-]{43}")
CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
WAIT_SECONDS = 30.0  # every wait of this test is bounded


@dataclass
class Service:
    base: str  # the pages and the API
    streams: str  # where /games/{id}/events is served


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[Service]:
    """``opus serve`` on SQLite: pages, API and streams in one process."""
    port = free_port()
    env = {
        **os.environ,
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / "events.db"),
        "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
        "OPUS_SIGN_IN_RATE_LIMIT": "1000/60",
    }
    env.pop("REDIS_URL", None)
    process = subprocess.Popen([OPUS, "serve", "--port", str(port)], cwd=tmp_path, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, process)
        yield Service(base, base)
    finally:
        stop(process)


@pytest.fixture
def production() -> Iterator[Service]:
    """The production layout (bench/layout.py): the API under gunicorn with
    two workers, the stream service under gunicorn's gevent worker, a
    projector, on PostgreSQL and Redis: the key rotated at the API is seen
    by the stream service's re-check."""
    sizes = argparse.Namespace(
        api_workers=2, api_threads=4, stream_workers=1, worker_connections=100
    )
    with layout.production(sizes) as started:
        yield Service(started.api, started.streams)


@pytest.fixture(params=["embedded", "production"])
def service(request: pytest.FixtureRequest) -> Service:
    found: Service = request.getfixturevalue(request.param)
    return found


@dataclass
class Heard:
    """What a stream's reader heard: each message with when it arrived."""

    messages: list[tuple[float, dict[str, str]]] = field(default_factory=list)
    ended: threading.Event = field(default_factory=threading.Event)

    def kinds_after(self, moment: float) -> list[str]:
        return [m.get("event", "event") for t, m in self.messages if t >= moment]

    def first(self, kind: str) -> float | None:
        return next((t for t, m in self.messages if m.get("event") == kind), None)


def listen(response: requests.Response, heard: Heard) -> None:
    try:
        for text in sse_messages(response.iter_content(chunk_size=None)):
            if not text.startswith(":"):
                heard.messages.append((time.monotonic(), fields(text)))
    except requests.RequestException:
        pass
    finally:
        heard.ended.set()


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def page_csrf(web: requests.Session, url: str) -> str:
    found = CSRF.search(web.get(url, timeout=10).text)
    assert found
    return found.group(1)


def move(base: str, game: str, tokens: list[str]) -> None:
    """The seat whose turn it is (the one the game offers moves) makes a
    main action if it can: the game goes on."""
    for token in tokens:
        legal = requests.get(f"{base}/games/{game}/legal-moves", headers=auth(token), timeout=10)
        assert legal.status_code == 200, legal.text
        moves = legal.json()["moves"]
        if moves:
            break
    else:
        raise AssertionError("no seat has a move")
    chosen = next((m for m in moves if kind_of(m) != "cast"), moves[0])
    kind, body = move_request(chosen)
    posted = requests.post(
        f"{base}/games/{game}/{kind}", json=body, headers=auth(token), timeout=10
    )
    assert posted.status_code == 201, posted.text


def test_a_stream_opened_with_a_rotated_key_stops_within_seconds(service: Service) -> None:
    base, streams = service.base, service.streams
    web = requests.Session()
    web.headers["Origin"] = base  # a browser's post from the service's own page
    signed = web.post(
        f"{base}/signup", data={"name": "Ada", "csrf": page_csrf(web, f"{base}/signup")}
    )
    assert signed.status_code == 200 and signed.url.endswith("/account/key"), signed.text
    found = KEY.search(signed.text)
    assert found
    key = found.group(0)
    # a game: the account at seat 0 (by its key), a token at seat 1
    created = requests.post(f"{base}/games", json={}, headers=auth(key), timeout=10)
    assert created.status_code == 201, created.text
    game = created.json()["game_id"]
    joined = requests.post(
        f"{base}/games/{game}/players", json={"name": "Ada"}, headers=auth(key), timeout=10
    )
    assert joined.status_code == 201, joined.text
    other = requests.post(f"{base}/games/{game}/players", json={"name": "Boris"}, timeout=10)
    token = other.json()["token"]
    started = requests.post(f"{base}/games/{game}/start", headers=auth(key), timeout=10)
    assert started.status_code == 200, started.text
    # the seat's stream, opened with the key
    stream = requests.get(
        f"{streams}/games/{game}/events", headers=auth(key), stream=True, timeout=WAIT_SECONDS
    )
    assert stream.status_code == 200
    heard = Heard()
    reader = threading.Thread(target=listen, args=(stream, heard), daemon=True)
    reader.start()
    tokens = [key, token]

    def play_a_turn() -> None:
        move(base, game, tokens)

    for _ in range(4):
        play_a_turn()
    deadline = time.monotonic() + WAIT_SECONDS
    while heard.first("turn") is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert heard.first("turn") is not None, "the seat's stream hears its turn offers"
    # the key rotated on the account page: the stream must stop within seconds
    rotated = web.post(
        f"{base}/account/key/rotate",
        data={"sure": "on", "csrf": page_csrf(web, f"{base}/account")},
    )
    assert rotated.status_code == 200 and rotated.url.endswith("/account/key")
    found = KEY.search(rotated.text)
    assert found and found.group(0) != key
    tokens[0] = found.group(0)
    moment = time.monotonic()
    # the game goes on: the seat's turns come again and again
    while time.monotonic() < moment + 3 * RECHECK_SECONDS + 2:
        play_a_turn()
        time.sleep(0.2)
    assert heard.ended.wait(WAIT_SECONDS), "the stream did not end"
    revoked = heard.first("revoked")
    assert revoked is not None, heard.kinds_after(moment)
    assert revoked - moment <= RECHECK_SECONDS + 2.0, revoked - moment
    after = heard.kinds_after(revoked)
    assert after == ["revoked"], after  # nothing after it: no offer, no hand
    # the old key opens no stream again; the new one does
    again = requests.get(f"{streams}/games/{game}/events", headers=auth(key), timeout=10)
    assert again.status_code == 401
    fresh = requests.get(
        f"{streams}/games/{game}/events", headers=auth(tokens[0]), stream=True, timeout=10
    )
    assert fresh.status_code == 200
    fresh.close()
    stream.close()
