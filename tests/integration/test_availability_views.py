"""Views that are missing or behind the log are failures, not "not built
yet": ``opus verify`` exits 1 naming them, and /readyz turns 503 once a
view lags the log by more than OPUS_READY_MAX_LAG positions."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask

from api.app import create_app
from api.cli import main
from domain.application import Opus
from domain.simulation import simulate
from infra.bootstrap import projection_runner
from infra.settings import Settings
from projections.rebuild import rebuild
from projections.registry import PROJECTIONS, select
from projections.runner import ProjectionRunner
from tests.apps import embedded_app
from tests.conftest import REDIS_URL, ViewsUnderTest, open_test_views
from tests.redis_keys import drop_prefix

# its answers are timed: never beside another such file (make test runs pytest-xdist)
pytestmark = pytest.mark.xdist_group("measures")


@pytest.fixture(params=["sqlite", "redis"])
def environ(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, str]]:
    env = {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / "events.db"),
        "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
    }
    if request.param == "redis":
        env["REDIS_URL"] = REDIS_URL
        env["OPUS_REDIS_PREFIX"] = f"availability-{uuid.uuid4().hex[:8]}:"
    else:
        monkeypatch.delenv("REDIS_URL", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    yield env
    if request.param == "redis":
        drop_prefix(REDIS_URL, env["OPUS_REDIS_PREFIX"])


def test_verify_fails_when_the_views_are_missing(environ: dict[str, str]) -> None:
    app = Opus(env=environ)
    simulate(app, 1, 3, "greedy", seed=4)
    head = app.recorder.max_notification_id()
    app.close()
    result = CliRunner().invoke(main, ["verify"])
    assert result.exit_code == 1, result.output
    assert result.stdout.count("FAIL view") == len(PROJECTIONS)
    assert (
        f"FAIL view table: missing: the log has events up to position {head}, the view has none"
    ) in result.stdout
    assert "not built yet" not in result.stdout


def test_verify_fails_when_a_view_is_behind_the_log(environ: dict[str, str]) -> None:
    app = Opus(env=environ)
    simulate(app, 1, 3, "greedy", seed=4)
    runner = CliRunner()
    assert runner.invoke(main, ["rebuild"]).exit_code == 0
    built = app.recorder.max_notification_id() or 0
    simulate(app, 1, 2, "greedy", seed=5)  # recorded with no runner: the views stay behind
    head = app.recorder.max_notification_id() or 0
    app.close()
    result = runner.invoke(main, ["verify"])
    assert result.exit_code == 1, result.output
    assert (
        f"FAIL view table at position {built}: equals a rebuild, but is behind the log "
        f"by {head - built}"
    ) in result.stdout
    assert runner.invoke(main, ["rebuild"]).exit_code == 0
    caught_up = runner.invoke(main, ["verify"])
    assert caught_up.exit_code == 0, caught_up.output
    assert caught_up.stdout.count("equals a rebuild") == len(PROJECTIONS)


def test_verify_says_not_built_yet_only_of_an_empty_log(tmp_path: Path) -> None:
    from projections.view_check import verify_views

    app = Opus(
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}
    )
    views = open_test_views("sqlite", tmp_path)
    try:
        verdicts = verify_views(views.store, app)
    finally:
        views.store.close()
        app.close()
    assert all(v.ok for v in verdicts)
    assert all("not built yet" in v.line() for v in verdicts)


# ---- /readyz ---------------------------------------------------------------------------


@pytest.fixture
def embedded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Flask]:
    app = create_app(
        {
            "OPUS_READY_MAX_LAG": "10",
            # no runner here: the lag alone (heartbeats are the tests' below)
            "OPUS_READY_MAX_SILENCE": "0",
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / "events.db"),
            "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
            "REDIS_URL": None,
            "OPUS_RUN_PROJECTIONS": "0",
        }
    )
    yield app
    app.extensions["opus"].close()


def test_readyz_reports_each_views_lag_and_fails_past_the_threshold(embedded: Flask) -> None:
    client = embedded.test_client()
    empty = client.get("/readyz")
    assert empty.status_code == 200, empty.json
    assert empty.json["lag"] == dict.fromkeys(PROJECTIONS, 0)

    services = embedded.extensions["opus"]
    simulate(services.opus, 1, 3, "greedy", seed=4)  # no runner: every view lags
    head = services.views.head()
    assert head > 10
    behind = client.get("/readyz")
    assert behind.status_code == 503, behind.json
    assert behind.json["status"] == "unavailable"
    assert behind.json["lag"] == dict.fromkeys(PROJECTIONS, head)
    assert behind.json["checks"]["view:table"] == f"behind the log by {head} (more than 10)"

    rebuild(services.views.store, services.opus, select([]))
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.json
    assert ready.json["lag"] == dict.fromkeys(PROJECTIONS, 0)
    assert ready.json["checks"]["view:table"] == "ok"


# ---- /readyz: the projectors' heartbeats -------------------------------------------------

MAX_SILENCE = 3.0  # seconds: OPUS_READY_MAX_SILENCE in these tests
TURN_SECONDS = MAX_SILENCE + 5.0  # how long /readyz may take to see a change


def wait_for_readyz(app: Flask, status: int, timeout: float) -> dict[str, Any]:
    """/readyz's body once it answers ``status``; fails after ``timeout`` s."""
    client = app.test_client()
    deadline = time.monotonic() + timeout
    while True:
        answer = client.get("/readyz")
        if answer.status_code == status:
            body: dict[str, Any] = answer.json
            return body
        if time.monotonic() > deadline:
            raise AssertionError(f"/readyz not {status} within {timeout} s: {answer.json}")
        time.sleep(0.1)


@pytest.fixture
def production_views(tmp_path: Path) -> Iterator[tuple[Flask, Settings]]:
    """The API without projections (they run beside it, as `opus project`)."""
    variables: dict[str, str | None] = {
        "OPUS_READY_MAX_SILENCE": str(MAX_SILENCE),
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / "events.db"),
        "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
        "REDIS_URL": None,
        "OPUS_RUN_PROJECTIONS": "0",
    }
    app = create_app(variables)
    yield app, Settings.from_env(overrides=variables)
    app.extensions["opus"].close()


def start_runner(settings: Settings, name: str) -> ProjectionRunner:
    """A runner of one projection, opened as `opus project NAME` opens it."""
    return projection_runner(settings, PROJECTIONS[name]).start()


def stop_runner(runner: ProjectionRunner) -> None:
    runner.stop()
    runner.join(10)
    assert not runner.is_running
    runner.store.close()


def test_readyz_names_a_silent_projector_and_sees_it_back(
    production_views: tuple[Flask, Settings],
) -> None:
    app, settings = production_views
    simulate(app.extensions["opus"].opus, 1, 3, "greedy", seed=4)
    runners = {name: start_runner(settings, name) for name in PROJECTIONS}
    try:
        ready = wait_for_readyz(app, 200, TURN_SECONDS)
        assert all(ready["checks"][f"projector:{name}"] == "ok" for name in PROJECTIONS), ready
        assert set(ready["silence"]) == set(PROJECTIONS)
        stop_runner(runners.pop("move_log"))  # a dead projector: no event, no lag
        stopped = time.monotonic()
        silent = wait_for_readyz(app, 503, TURN_SECONDS)
        assert time.monotonic() - stopped < MAX_SILENCE + 3, "seen late"
        assert silent["checks"]["projector:move_log"].startswith("silent for "), silent
        assert silent["lag"]["move_log"] == 0  # the lag alone could not tell
        others = [check for name, check in silent["checks"].items() if name != "projector:move_log"]
        assert all(check == "ok" for check in others), silent
        runners["move_log"] = start_runner(settings, "move_log")
        back = wait_for_readyz(app, 200, TURN_SECONDS)
        assert back["checks"]["projector:move_log"] == "ok"
    finally:
        for runner in runners.values():
            stop_runner(runner)


def test_readyz_without_a_projector_names_each_projection(
    production_views: tuple[Flask, Settings],
) -> None:
    app, _ = production_views
    answer = app.test_client().get("/readyz")
    assert answer.status_code == 503
    for name in PROJECTIONS:
        assert answer.json["checks"][f"projector:{name}"].startswith("no heartbeat"), answer.json


def test_readyz_sees_the_embedded_projectors_heartbeats(tmp_path: Path) -> None:
    app = embedded_app(tmp_path, run_projections=True)
    try:
        ready = wait_for_readyz(app, 200, TURN_SECONDS)
        assert all(ready["checks"][f"projector:{name}"] == "ok" for name in PROJECTIONS), ready
    finally:
        app.extensions["opus"].close()


@pytest.mark.parametrize("value", ["-1", "soon", "1"])
def test_a_bad_max_silence_is_a_clear_error(value: str) -> None:
    with pytest.raises(ValueError, match="OPUS_READY_MAX_SILENCE"):
        Settings.from_env({}, overrides={"OPUS_READY_MAX_SILENCE": value})


def test_both_view_stores_keep_each_projections_last_heartbeat(views: ViewsUnderTest) -> None:
    assert views.store.beats() == {}
    views.store.beat(["table", "hands"], 1000.5)
    views.store.beat(["table"], 1002.25)
    assert views.store.beats() == {"table": 1002.25, "hands": 1000.5}
    assert views.store.namespaces() == []  # beside the views, never one of them
