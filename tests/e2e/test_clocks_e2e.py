"""The clock scheduler as the real processes run it (RULES.md R11.4): an
``opus serve`` on SQLite with the scheduler left out of it (``OPUS_CLOCKS=0``)
and ``opus clocks`` beside it. Killed with -9 before a deadline, the
scheduler records it once when restarted (late, as R11.4 allows when the
service was down); two schedulers at once record the next deadline once; the
game's log then verifies."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
import requests

from domain.application import Opus
from domain.audit import Record, verify_game
from domain.clock import SECOND, micros
from infra.eventlog import game_records
from tests.e2e.test_full_game_http import OPUS, free_port, stop, wait_until_up

TOKEN = "k" * 43  # the organiser's
HEADERS = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[str, dict[str, str], Path]]:
    port = free_port()
    env = {
        **os.environ,
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / "events.db"),
        "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
        "OPUS_CLOCKS": "0",
        "OPUS_BOTS": "0",
    }
    env.pop("REDIS_URL", None)
    server = subprocess.Popen([OPUS, "serve", "--port", str(port)], cwd=tmp_path, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, server)
        yield base, env, tmp_path
    finally:
        stop(server)


def scheduler(env: dict[str, str], folder: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([OPUS, "clocks", "--tick", "0.1"], cwd=folder, env=env)


def records(base: str, game: str) -> list[Record]:
    """The game's log as anyone may export it (hidden cards sealed until the end)."""
    answer = requests.get(f"{base}/games/{game}/export", timeout=10)
    assert answer.status_code == 200, answer.text
    return [Record.from_line(json.loads(line)) for line in answer.text.splitlines() if line]


def stored(env: dict[str, str], game: str) -> list[Record]:
    """The game's whole log, hidden cards included, read from its store."""
    app = Opus(env={k: env[k] for k in ("PERSISTENCE_MODULE", "SQLITE_DBNAME")})
    try:
        return game_records(app, UUID(game))
    finally:
        app.close()


def wait_for(base: str, game: str, count: int, seconds: float) -> list[Record]:
    """The log once it holds ``count`` TimeExpired, waiting ``seconds`` at most."""
    deadline = time.monotonic() + seconds
    while True:
        log = records(base, game)
        if sum(r.type == "TimeExpired" for r in log) >= count:
            return log
        assert time.monotonic() < deadline, f"no TimeExpired number {count} in {seconds} s"
        time.sleep(0.1)


def game_of(base: str) -> tuple[str, Any]:
    made = requests.post(
        f"{base}/games", json={"clock": {"initial": 10, "grace": 5}}, headers=HEADERS, timeout=10
    )
    assert made.status_code == 201, made.text
    game = made.json()["game_id"]
    for n in (1, 2, 3):
        joined = requests.post(f"{base}/games/{game}/players", json={"name": f"P{n}"}, timeout=10)
        assert joined.status_code == 201, joined.text
    started = requests.post(f"{base}/games/{game}/start", headers=HEADERS, timeout=10)
    assert started.status_code == 200, started.text
    return game, started.json()


def test_R11_4_a_scheduler_killed_before_a_deadline_fires_it_once_when_restarted(
    stack: tuple[str, dict[str, str], Path],
) -> None:
    base, env, folder = stack
    first = scheduler(env, folder)
    game, _ = game_of(base)
    time.sleep(1)
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    time.sleep(11)  # seat 0's 10 s run out while no scheduler runs
    assert not any(r.type == "TimeExpired" for r in records(base, game))
    restarting = time.time() * SECOND
    restarted = scheduler(env, folder)
    standby = scheduler(env, folder)  # a second one at once: still once
    try:
        log = wait_for(base, game, 1, 15)
        expired = [r for r in log if r.type == "TimeExpired"]
        assert len(expired) == 1 and (expired[0].payload or {})["player"] == 0
        # recorded by the restarted scheduler, after the time none ran: late, still once
        assert micros(expired[0].timestamp) >= restarting
        assert micros(expired[0].timestamp) - micros((expired[0].payload or {})["at"]) > SECOND
        command = (expired[0].payload or {}).get("command")
        assert command is None or str(command).startswith("clock.")
        # seat 1's turn started at that expiry: its 10 s then run out, fired in time, once
        log = wait_for(base, game, 2, 20)
        expired = [r for r in log if r.type == "TimeExpired"]
        second = expired[1]
        assert (second.payload or {})["player"] == 1
        on_time = micros(second.timestamp) - micros((second.payload or {})["at"])
        assert 0 <= on_time < 5 * SECOND
        time.sleep(1)
        log = stored(env, game)
        assert sum(r.type == "TimeExpired" for r in log) == 2
        verdict = verify_game(log)
        assert verdict.ok and verdict.judged, verdict.reason
    finally:
        stop(restarted, standby)
