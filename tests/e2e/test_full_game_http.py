"""A whole game played over HTTP against real server processes: the embedded
mode (``opus serve``: SQLite events and views, projections in a thread) and
production (gunicorn on PostgreSQL + Redis, with an ``opus project``
process). It ends with the winner and the scoreboard read back over HTTP."""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import requests

from tests.conftest import POSTGRES_ENV
from tests.moves_http import kind_of, move_request

ROOT = Path(__file__).resolve().parent.parent.parent
OPUS = str(Path(sys.executable).parent / "opus")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_up(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, "the server exited"
        try:
            if requests.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except requests.RequestException:  # not listening yet, or still booting
            pass
        time.sleep(0.05)
    raise AssertionError("the server did not come up")


def stop(*processes: subprocess.Popen[bytes]) -> None:
    for p in processes:
        p.terminate()
    for p in processes:
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {
        **os.environ,
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / "events.db"),
        "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
    }
    env.pop("REDIS_URL", None)
    server = subprocess.Popen([OPUS, "serve", "--port", str(port)], cwd=tmp_path, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, server)
        yield base
    finally:
        stop(server)


@pytest.fixture
def postgres_schema() -> Iterator[str]:
    """A schema of its own, so the projector catches up with this test's log only."""
    name = f"e2e_{uuid.uuid4().hex[:10]}"
    connect = dict(
        dbname=POSTGRES_ENV["POSTGRES_DBNAME"],
        host=POSTGRES_ENV["POSTGRES_HOST"],
        port=POSTGRES_ENV["POSTGRES_PORT"],
        user=POSTGRES_ENV["POSTGRES_USER"],
        autocommit=True,
    )
    with psycopg.connect(**connect) as db:
        db.execute(f"CREATE SCHEMA {name}")
    try:
        yield name
    finally:
        with psycopg.connect(**connect) as db:
            db.execute(f"DROP SCHEMA {name} CASCADE")


@pytest.fixture
def production(postgres_schema: str, tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {
        **os.environ,
        **POSTGRES_ENV,
        "POSTGRES_SCHEMA": postgres_schema,
        # the fresh schema's own receipts key (the signer's record is the key's)
        "OPUS_RECEIPTS_KEY_FILE": str(tmp_path / "receipts.key"),
        "REDIS_URL": "redis://127.0.0.1:6379/0",
        "OPUS_REDIS_PREFIX": f"e2e-{uuid.uuid4().hex[:8]}:",
        "OPUS_RUN_PROJECTIONS": "0",
    }
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            "infra/gunicorn_api.py",  # the production settings
            "-b",
            f"127.0.0.1:{port}",
            "api.app:create_app()",
        ],
        cwd=ROOT,
        env=env,
    )
    projector = subprocess.Popen([OPUS, "project"], cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, server)
        yield base
    finally:
        stop(server, projector)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play_whole_game(base: str, seed: int) -> None:
    rng = random.Random(seed)
    http = requests.Session()
    created = http.post(f"{base}/games", json={})
    assert created.status_code == 201, created.text
    game = created.json()["game_id"]
    tokens = []
    for name in ("Ada", "Boris", "Chloe"):
        joined = http.post(
            f"{base}/games/{game}/players", json={"name": name, "contribution": name}
        )
        tokens.append(joined.json()["token"])
    started = http.post(
        f"{base}/games/{game}/start", headers=auth(created.json()["organiser_token"])
    )
    assert started.status_code == 200, started.text
    position = started.json()["position"]
    for _ in range(3000):
        answer = http.get(f"{base}/games/{game}", params={"after": position})
        assert answer.status_code == 200, answer.text
        table = answer.json()["data"]
        if table["status"] == "ended":
            break
        seat = table["turn"]
        legal = http.get(f"{base}/games/{game}/legal-moves", headers=auth(tokens[seat])).json()
        # Prefer main actions, so the game moves on; spells now and then.
        mains = [m for m in legal["moves"] if kind_of(m) != "cast"] or legal["moves"]
        kind, body = move_request(rng.choice(legal["moves"] if rng.random() < 0.2 else mains))
        posted = http.post(f"{base}/games/{game}/{kind}", json=body, headers=auth(tokens[seat]))
        assert posted.status_code == 201, posted.text
        position = posted.json()["position"]
    else:
        raise AssertionError("the game did not end")
    assert table["winners"], table
    board = http.get(f"{base}/games/{game}/scoreboard", params={"after": position}).json()
    assert board["position"] >= position
    points = [p["points"] for p in board["data"]["players"]]
    assert points == table["scores"]
    for player in board["data"]["players"]:
        assert sum(a["points"] for a in player["awards"]) == player["points"]
    best = max(points)
    assert all(points[w] == best for w in table["winners"])
    exported = http.get(f"{base}/games/{game}/export").text.splitlines()
    assert len(exported) == table["version"] and '"GameEnded"' in exported[-1]


def test_a_whole_game_over_http_in_the_embedded_mode(embedded: str) -> None:
    play_whole_game(embedded, seed=1)


@pytest.mark.postgres
def test_a_whole_game_over_http_on_postgres_and_redis(production: str) -> None:
    play_whole_game(production, seed=2)
