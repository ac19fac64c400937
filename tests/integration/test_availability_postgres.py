"""A projection runner outlives its PostgreSQL: a private cluster (never the
shared one) is killed under it, idle and busy, and started again; the runner
reconnects, resubscribes from its view's position and catches up, and the
views equal a clean rebuild. ``opus project`` keeps running through it."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from domain.application import Opus
from domain.simulation import play_game
from infra.bootstrap import open_application, projection_runner
from infra.settings import Settings
from projections.registry import PROJECTIONS
from projections.runner import EventStoreUnavailableError, ProjectionRunner
from projections.sqlite_views import SQLiteViewStore
from tests.conftest import opener
from tests.integration.test_projections_crash import assert_equal_to_a_clean_rebuild
from tests.private_servers import PostgresServer, postgres_bin

pytestmark = pytest.mark.postgres
PROJECT = [sys.executable, "-c", "from api.cli.read_side import project; project()"]


@pytest.fixture
def postgres() -> Iterator[PostgresServer]:
    bin_dir = postgres_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL's server binaries are not installed")
    server = PostgresServer(bin_dir)
    try:
        yield server.start()
    finally:
        server.remove()


def play(env: dict[str, str], games: int, seed: int) -> int:
    """Games played through an application of their own (opened as the
    service opens it, while runners may be reopening theirs); the log's head."""
    app = open_application(Settings.from_env(env))
    try:
        rng = random.Random(seed)
        for _ in range(games):
            play_game(app, 3, "greedy", rng)
        return app.recorder.max_notification_id() or 0
    finally:
        app.close()


def test_a_runner_reconnects_when_postgres_drops_it_while_idle(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    env = postgres.env
    store = SQLiteViewStore(str(tmp_path / "views.db"))
    first = play(env, 1, 1)
    runners = [
        ProjectionRunner(cls, store, opener(env), reconnect_timeout=20).start()
        for cls in PROJECTIONS.values()
    ]
    try:
        for runner in runners:
            runner.wait(first, timeout=20)
        postgres.kill()  # the runners are idle: LISTEN and the pool lose their connections
        time.sleep(1.0)
        assert all(r.is_running for r in runners), [r.error for r in runners]
        postgres.start()
        end = play(env, 2, 2)
        for runner in runners:
            runner.wait(end, timeout=20)
    finally:
        for runner in runners:
            runner.stop()
        for runner in runners:
            runner.join(10)
    assert [r.error for r in runners] == [None] * len(runners)
    app = Opus(env=env)
    assert_equal_to_a_clean_rebuild(app, store)
    app.close()
    store.close()


def test_a_runner_reconnects_when_postgres_drops_it_while_busy(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    env = postgres.env
    store = SQLiteViewStore(str(tmp_path / "views.db"))
    end = play(env, 6, 3)
    # small batches: catching up takes many reads and commits
    runner = ProjectionRunner(
        PROJECTIONS["move_log"], store, opener(env), batch_size=2, reconnect_timeout=20
    ).start()
    try:
        deadline = time.monotonic() + 10
        while (store.position("move_log.g0", "Opus") or 0) < 10:
            assert time.monotonic() < deadline and runner.error is None
            time.sleep(0.002)
        postgres.kill()  # in the middle of catching up
        reached = store.position("move_log.g0", "Opus") or 0
        assert reached < end, "the runner caught up before the kill"
        time.sleep(0.5)
        assert runner.is_running, runner.error
        postgres.start()
        runner.wait(end, timeout=20)
    finally:
        runner.stop()
        runner.join(10)
    assert runner.error is None
    store.close()


def test_a_runner_fails_loudly_when_postgres_stays_down(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    env = postgres.env
    settings = replace(
        Settings.from_env(env, overrides={"OPUS_VIEWS_DBNAME": str(tmp_path / "views.db")}),
        reconnect_timeout=1.0,
    )
    end = play(env, 1, 4)
    runner = projection_runner(settings, PROJECTIONS["table"]).start()
    store = runner.store
    try:
        runner.wait(end, timeout=20)
        postgres.kill()
        with pytest.raises(EventStoreUnavailableError, match="event store unreachable for 1 s"):
            runner.run_forever(timeout=20)
    finally:
        runner.stop()
        runner.join(10)
    store.close()


def test_opus_project_keeps_running_across_a_postgres_restart(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    env = postgres.env
    views = str(tmp_path / "views.db")
    first = play(env, 1, 5)
    process = subprocess.Popen(
        [*PROJECT, "table", "--reconnect-timeout", "20"],
        env={**env, "OPUS_VIEWS_DBNAME": views, "PATH": "/usr/bin:/bin"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    store = SQLiteViewStore(views)
    try:
        deadline = time.monotonic() + 20
        while (store.position("table.g0", "Opus") or 0) < first:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        postgres.kill()
        time.sleep(1.0)
        assert process.poll() is None, process.communicate()
        postgres.start()
        end = play(env, 1, 6)
        deadline = time.monotonic() + 20
        while (store.position("table.g0", "Opus") or 0) < end:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        if process.poll() is None:
            process.terminate()
        out, err = process.communicate(timeout=20)
        store.close()
    assert process.returncode == 0, err.decode()
    assert b"stopped" in out
