"""A newcomer's first two commands agree: ``opus simulate`` (and ``opus
tournament simulate``) then ``opus verify``, on a fresh SQLite store, both
exit 0: simulate brings every view up to the log it wrote, as ``opus
serve`` would, so verify finds the games and the views sound. With
``OPUS_RUN_PROJECTIONS=0`` (views left to ``opus project``) simulate
projects nothing, and verify says what to run."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from api.cli import main
from projections.registry import PROJECTIONS


@pytest.fixture
def fresh_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh SQLite event store, its views beside it (the defaults)."""
    for name in ("REDIS_URL", "OPUS_VIEWS_DBNAME", "OPUS_RUN_PROJECTIONS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PERSISTENCE_MODULE", "eventsourcing.sqlite")
    monkeypatch.setenv("SQLITE_DBNAME", str(tmp_path / "opus.db"))
    return tmp_path


def test_simulate_then_verify_exits_0(fresh_store: Path) -> None:
    runner = CliRunner()
    simulated = runner.invoke(main, ["simulate", "--games", "2", "--players", "3"])
    assert simulated.exit_code == 0, simulated.output
    verified = runner.invoke(main, ["verify"])
    assert verified.exit_code == 0, verified.output
    assert f"views: {len(PROJECTIONS)} brought up to position" in simulated.output
    assert "2 games verified, 0 failed" in verified.output
    assert verified.output.count("ok   view ") == len(PROJECTIONS), verified.output
    assert "FAIL" not in verified.output


def test_tournament_simulate_then_verify_exits_0(fresh_store: Path) -> None:
    runner = CliRunner()
    simulated = runner.invoke(
        main, ["tournament", "simulate", "--players", "6", "--rounds", "2", "--seed", "3"]
    )
    assert simulated.exit_code == 0, simulated.output
    verified = runner.invoke(main, ["verify"])
    assert verified.exit_code == 0, verified.output
    assert "1 tournaments verified, 0 failed" in verified.output
    assert "FAIL" not in verified.output


def test_with_the_views_left_to_opus_project_verify_says_what_to_run(
    fresh_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPUS_RUN_PROJECTIONS", "0")
    runner = CliRunner()
    simulated = runner.invoke(main, ["simulate", "--games", "1", "--players", "2"])
    assert simulated.exit_code == 0, simulated.output
    assert "views: not projected" in simulated.output
    verified = runner.invoke(main, ["verify"])
    assert verified.exit_code == 1
    assert "1 games verified, 0 failed" in verified.output
    assert "opus project" in verified.output
    projected = runner.invoke(main, ["verify", "--no-views"])
    assert projected.exit_code == 0, projected.output
