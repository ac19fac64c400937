"""Exactly once under crashes: a projection process killed with SIGKILL at
random points while games are played, and a Redis server killed and
restarted under a live runner. After recovery, the views equal a clean
rebuild from the log, byte for byte.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from domain.application import Opus
from domain.simulation import play_game
from projections.ports import ViewStoreUnavailableError, namespace
from projections.queries import Queries
from projections.rebuild import rebuild
from projections.redis_views import RedisViewStore
from projections.registry import PROJECTIONS, select
from projections.runner import ProjectionRunner
from tests.conftest import ViewsUnderTest, opener
from tests.private_servers import RedisServer

# a runner's Redis reads time out after a second while its server is killed:
# never beside a file whose answers are timed (make test runs pytest-xdist)
pytestmark = pytest.mark.xdist_group("measures")
OPUS = str(Path(sys.executable).parent / "opus")
# The same `opus project` command without the rest of the CLI (Flask and the
# HTTP app take longer to import than a kill interval): 0.3 s to start, not 0.5.
PROJECT = [sys.executable, "-c", "from api.cli.read_side import project; project()"]
KILLS = 20


class Players(threading.Thread):
    """Bots playing whole games into the store until stopped."""

    def __init__(self, env: dict[str, str], seed: int) -> None:
        super().__init__(daemon=True)
        self.app = Opus(env=env)
        self.rng = random.Random(seed)
        self.stopping = threading.Event()
        self.games = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stopping.is_set():
                play_game(self.app, self.rng.randint(2, 4), "greedy", self.rng)
                self.games += 1
                # a pause keeps the log (and the final check) small; each
                # restart still finds a backlog to catch up on
                self.stopping.wait(0.1)
        except BaseException as e:
            self.error = e

    def stop(self) -> None:
        self.stopping.set()
        self.join()
        self.app.close()
        assert self.error is None, self.error


def positions(queries: Queries) -> list[int | None]:
    return [queries.position(name) for name in PROJECTIONS]


def dumps(store: Any, generation: str | None = None) -> dict[str, Any]:
    return {
        name: store.dump(namespace(name, generation or store.active_generation(name)))
        for name in PROJECTIONS
    }


def assert_equal_to_a_clean_rebuild(app: Opus, store: Any) -> None:
    end = app.recorder.max_notification_id() or 0
    live = dumps(store)
    clean = rebuild(store, app, select([]), as_of=end)
    assert dumps(store, clean.generation) == live
    assert all(d["tracking"] == {"Opus": end} for d in live.values())


def test_kill_9_at_random_points_then_the_views_equal_a_clean_rebuild(
    events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    env = {**os.environ, **events_env, **views.env}
    env.pop("APPLICATION_RECORDER_TOPIC")  # opus project sets it itself
    queries = Queries(views.store)
    rng = random.Random(99)
    players = Players(events_env, seed=7)
    players.start()
    seen: list[list[int | None]] = []
    behind = 0  # kills that came while the views were behind the log
    try:
        for _ in range(KILLS):
            # small batches: more commits, so more points to be cut between
            process = subprocess.Popen(
                [*PROJECT, "--batch-size", "10"],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            assert process.stdout is not None
            assert process.stdout.readline().startswith(b"projecting")  # started up
            time.sleep(rng.uniform(0.0, 0.15))
            logged = players.app.recorder.max_notification_id() or 0
            process.send_signal(signal.SIGKILL)
            _, stderr = process.communicate()
            assert process.returncode == -signal.SIGKILL, stderr.decode()
            seen.append(positions(queries))
            behind += any((p or 0) < logged for p in seen[-1])
    finally:
        players.stop()
    app = Opus(env=events_env)
    try:
        end = app.recorder.max_notification_id() or 0
        # the process was killed while it had work in hand, at many points
        assert len({tuple(p) for p in seen}) >= KILLS // 2, seen
        assert behind >= KILLS // 2, f"only {behind} kills came while the views were behind"
        with subprocess.Popen(
            [OPUS, "project"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        ) as process:
            assert process.stdout is not None
            assert process.stdout.readline().startswith(b"projecting")  # SIGTERM handled now
            for name in PROJECTIONS:
                queries.wait_for(name, end, timeout=30)
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=10) == 0, process.stderr and process.stderr.read()
        assert players.games >= 3
        assert_equal_to_a_clean_rebuild(app, views.store)
    finally:
        app.close()


# ---- Redis restarted under a live runner -------------------------------------------


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = RedisServer(durable_in=tmp_path).start()
    yield server
    server.kill()


def test_a_runner_reconnects_when_redis_restarts_and_resumes_exactly_once(
    events_env: dict[str, str], redis_server: RedisServer
) -> None:
    store = RedisViewStore(redis_server.url, "opus:", timeout=1.0)
    app = Opus(env=events_env)
    rng = random.Random(5)
    runners = [
        ProjectionRunner(cls, store, opener(events_env)).start() for cls in PROJECTIONS.values()
    ]
    try:
        play_game(app, 3, "greedy", rng)
        first = app.recorder.max_notification_id() or 0
        for runner in runners:
            runner.wait(first, timeout=20)
        redis_server.kill()
        play_game(app, 4, "greedy", rng)  # recorded while the views are down
        time.sleep(0.5)  # the runners hit the closed port and retry
        assert all(r.is_running for r in runners)
        redis_server.start()  # the append-only file brings back every commit
        play_game(app, 2, "greedy", rng)
        end = app.recorder.max_notification_id() or 0
        for runner in runners:
            runner.wait(end, timeout=30)
    finally:
        for runner in runners:
            runner.stop()
        for runner in runners:
            runner.join()
    assert [r.error for r in runners] == [None] * len(runners)
    assert_equal_to_a_clean_rebuild(app, store)
    app.close()
    store.close()


def test_a_runner_fails_loudly_when_redis_stays_down(
    events_env: dict[str, str], redis_server: RedisServer
) -> None:
    store = RedisViewStore(redis_server.url, "opus:", timeout=0.5)
    app = Opus(env=events_env)
    play_game(app, 2, "greedy", random.Random(6))
    runner = ProjectionRunner(
        PROJECTIONS["table"], store, opener(events_env), reconnect_timeout=1.0
    )
    runner.start()
    runner.wait(app.recorder.max_notification_id() or 0, timeout=20)
    redis_server.kill()
    play_game(app, 2, "greedy", random.Random(7))
    with pytest.raises(ViewStoreUnavailableError, match="view store unreachable for 1 s"):
        runner.run_forever(timeout=20)
    assert not runner.is_running or runner.join(5) is None
    app.close()
