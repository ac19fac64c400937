"""opus verify checks each live view against a clean rebuild, on both view
stores: an altered view fails and is named."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from api.cli import main
from domain.application import Opus
from domain.simulation import simulate
from infra.bootstrap import open_views
from infra.settings import Settings
from projections.ports import Changes, namespace
from projections.registry import PROJECTIONS
from projections.view import APPLICATION_NAME


@pytest.fixture(params=["sqlite", "redis"])
def environ(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, str]:
    env = {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / "events.db"),
        "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
    }
    if request.param == "redis":
        env["REDIS_URL"] = "redis://127.0.0.1:6379/0"
        env["OPUS_REDIS_PREFIX"] = f"verify-{uuid.uuid4().hex[:8]}:"
    else:
        monkeypatch.delenv("REDIS_URL", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


def test_verify_compares_every_view_with_a_rebuild(environ: dict[str, str]) -> None:
    app = Opus(env=environ)
    summary = simulate(app, 2, 3, "greedy", seed=4)
    runner = CliRunner()
    assert runner.invoke(main, ["rebuild"]).exit_code == 0
    clean = runner.invoke(main, ["verify"])
    assert clean.exit_code == 0, clean.output
    assert clean.stdout.count("equals a rebuild") == len(PROJECTIONS)

    store = open_views(Settings.from_env())
    ns = namespace("table", store.active_generation("table"))
    position = store.position(ns, APPLICATION_NAME)
    game = str(summary.game_ids[0])
    store.commit(ns, Changes(docs={game: '{"forged": true}'}), APPLICATION_NAME, position, position)
    store.close()

    altered = runner.invoke(main, ["verify"])
    assert altered.exit_code == 1
    assert f"FAIL view table at position {position}: doc {game} differs" in altered.stdout
    assert "ok   view scoreboard" in altered.stdout
