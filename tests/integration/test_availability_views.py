"""Views that are missing or behind the log are failures, not "not built
yet": ``opus verify`` exits 1 naming them, and /readyz turns 503 once a
view lags the log by more than OPUS_READY_MAX_LAG positions."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from flask import Flask

from api.app import create_app
from api.cli import main
from domain.application import Opus
from domain.simulation import simulate
from projections.rebuild import rebuild
from projections.registry import PROJECTIONS, select
from tests.conftest import REDIS_URL, open_test_views
from tests.redis_keys import drop_prefix


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
