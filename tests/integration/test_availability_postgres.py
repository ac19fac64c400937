"""A projection runner outlives its PostgreSQL: a private cluster (never the
shared one) is killed under it, idle and busy, and started again; the runner
reconnects, resubscribes from its view's position and catches up, and the
views equal a clean rebuild. ``opus project`` keeps running through it."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import requests
from eventsourcing.persistence import OperationalError

from domain.application import Opus
from domain.simulation import play_game
from infra.bootstrap import open_application, projection_runner
from infra.postgres_recorder import LockedInsertRecorder
from infra.settings import Settings
from projections.registry import PROJECTIONS
from projections.runner import EventStoreUnavailableError, ProjectionRunner
from projections.sqlite_views import SQLiteViewStore
from tests.conftest import opener
from tests.integration.test_projections_crash import assert_equal_to_a_clean_rebuild
from tests.private_servers import START_SECONDS, PostgresServer, free_port, private_postgres

# its answers are timed: never beside another such file (make test runs pytest-xdist)
pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("measures")]
PROJECT = [sys.executable, "-c", "from api.cli.read_side import project; project()"]
ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def postgres() -> Iterator[PostgresServer]:
    with private_postgres() as server:
        yield server


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


# ---- the API while PostgreSQL restarts ------------------------------------------------

STORE_BOUND = 5.0  # seconds: a command answers (503) within this while the store is down
HEALTH_FAST = 1.0  # seconds: the slowest /healthz allowed, whatever the store does
CLIENTS = 3  # threads sending commands meanwhile (the API has 4)


class Poller:
    """A thread calling ``call`` every ``pause`` seconds until stopped,
    keeping each answer (status, Retry-After, seconds taken), or the
    exception (a timeout) that took its place."""

    def __init__(self, call: Any, pause: float) -> None:
        self.call = call
        self.pause = pause
        self.answers: list[tuple[int | str, str | None, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                answer = self.call()
                status: int | str = answer.status_code
                retry_after = answer.headers.get("Retry-After")
            except requests.RequestException as e:
                status, retry_after = type(e).__name__, None
            self.answers.append((status, retry_after, time.monotonic() - started))
            self._stop.wait(self.pause)

    def stop(self) -> list[tuple[int | str, str | None, float]]:
        self._stop.set()
        self._thread.join(30)
        assert not self._thread.is_alive()
        return self.answers


def test_the_api_answers_503_while_postgres_restarts_and_recovers_by_itself(
    postgres: PostgresServer, tmp_path: Path
) -> None:
    """The API as production runs it (gunicorn, infra/gunicorn_api.py) on a
    private PostgreSQL killed under requests: /healthz answers 200 fast
    throughout (it never touches the store), every command answers 503 with
    Retry-After within STORE_BOUND, and once PostgreSQL is back commands
    succeed again, the API never restarted."""
    port = free_port()
    env = {
        **os.environ,
        **postgres.env,
        "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
        "OPUS_RUN_PROJECTIONS": "0",
        "WEB_CONCURRENCY": "1",
        "OPUS_API_THREADS": "4",
        "OPUS_RATE_LIMIT": "0",
    }
    env.pop("REDIS_URL", None)
    command = [sys.executable, "-m", "gunicorn", "-c", "infra/gunicorn_api.py"]
    command += ["-b", f"127.0.0.1:{port}", "--log-level", "warning", "api.app:create_app()"]
    api = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"

    def create() -> requests.Response:
        return requests.post(f"{base}/games", json={}, timeout=STORE_BOUND * 2)

    try:
        wait_until(lambda: _answers(f"{base}/healthz"), START_SECONDS, "the API is up")
        assert create().status_code == 201
        health = Poller(lambda: requests.get(f"{base}/healthz", timeout=HEALTH_FAST * 2), 0.05)
        postgres.kill()
        down = time.monotonic()
        clients = [Poller(create, 0.05) for _ in range(CLIENTS)]
        time.sleep(8.0)  # a restart's worth of outage
        during = [answer for client in clients for answer in client.stop()]
        postgres.start()
        back = time.monotonic()
        wait_until(lambda: create().status_code == 201, 30, "commands succeed again")
        recovered = time.monotonic() - back
        healthz = health.stop()
        assert api.poll() is None, "the API exited"
    finally:
        api.terminate()
        api.wait(15)
    assert during, "no command was answered during the outage"
    assert all(status == 503 and retry_after for status, retry_after, _ in during), during
    assert max(seconds for _, _, seconds in during) < STORE_BOUND, during
    assert healthz and all(status == 200 for status, _, _ in healthz), healthz
    assert max(seconds for _, _, seconds in healthz) < HEALTH_FAST, healthz
    print(
        f"outage {back - down:.1f} s: {len(during)} commands answered 503, slowest "
        f"{max(s for _, _, s in during):.2f} s; {len(healthz)} /healthz, slowest "
        f"{max(s for _, _, s in healthz):.3f} s; commands again {recovered:.1f} s after the restart"
    )


def _answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=1).status_code == 200
    except requests.RequestException:
        return False


def wait_until(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.1)


def test_a_bounded_recorder_gives_up_within_its_bound_and_recovers(
    postgres: PostgresServer,
) -> None:
    """The HTTP service's recorder (infra/postgres_recorder.py ``bound``):
    its connections carry the statement timeout; with PostgreSQL down a
    read gives up within OPUS_STORE_TIMEOUT (and one more attempt), calls
    meanwhile fail at once while one tries the store, and once it is back
    the same application reads and writes again."""
    settings = Settings.from_env(postgres.env, overrides={"OPUS_STORE_TIMEOUT": "2"})
    app = open_application(settings, bounded=True)
    try:
        recorder = app.recorder
        assert isinstance(recorder, LockedInsertRecorder)
        with recorder.datastore.get_connection() as conn:
            assert conn.execute("SHOW statement_timeout").fetchone()["statement_timeout"] == "2s"
        game = app.create_game()
        postgres.kill()
        started = time.monotonic()
        with pytest.raises(OperationalError):
            recorder.max_notification_id()
        gave_up = time.monotonic() - started
        assert gave_up < 2 + 1 + 0.5, gave_up  # the bound, and one attempt's wait
        outcomes: list[tuple[str, float]] = []

        def call() -> None:
            began = time.monotonic()
            try:
                recorder.select_events(game)
                outcomes.append(("ok", time.monotonic() - began))
            except OperationalError as e:
                outcomes.append((type(e).__name__, time.monotonic() - began))

        callers = [threading.Thread(target=call) for _ in range(6)]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join(10)
        assert len(outcomes) == 6, outcomes
        fast = [seconds for kind, seconds in outcomes if kind == "StoreUnreachableError"]
        assert len(fast) >= 5 and max(fast) < 0.5, outcomes  # one tried, the others did not wait
        postgres.start()
        wait_until(lambda: _reads(recorder), 30, "the store answers again")
        app.join(game, "Ada")  # a write, through the same application
        assert app.recorder.max_notification_id()
    finally:
        app.close()


def _reads(recorder: LockedInsertRecorder) -> bool:
    try:
        recorder.max_notification_id()
        return True
    except OperationalError:
        return False
