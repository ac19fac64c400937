"""Stores written by earlier code load, play on and verify: no stored event
changed shape, and the views they hold go on as a rebuild would build them.

- tests/fixtures/store-before-table-model.tar.gz: SQLite events and views
  written before the table model and the disclosure policy;
- tests/fixtures/store-with-tournaments.tar.gz: written before the command
  pipeline (domain/pipeline.py) by that code's tournament simulation: a
  finished 7-player tournament of two rounds with drops (seed 3), and a
  second one (seed 4) whose round 1 is paired, its first game ended (its
  result recorded) and its second game half-way (15 moves).
"""

from __future__ import annotations

import random
import tarfile
from pathlib import Path
from uuid import UUID

import pytest
from click.testing import CliRunner

from api.cli import main
from domain.bots import BOTS
from domain.pipeline import Caller
from domain.simulation import TournamentRun, play_on
from infra.bootstrap import open_application, open_views, projection_runner
from infra.settings import Settings
from projections.ports import namespace
from projections.registry import PROJECTIONS

FIXTURES = Path(__file__).parent.parent / "fixtures"
FIXTURE = FIXTURES / "store-before-table-model.tar.gz"
TOURNAMENTS = FIXTURES / "store-with-tournaments.tar.gz"
FINISHED_TOURNAMENT = UUID("54c26ff9-ca2c-415c-8ead-be447689adbf")  # simulated with seed 3
RUNNING_TOURNAMENT = UUID("a8622db3-380f-4f95-9634-92426448ddaa")  # simulated with seed 4
HALF_PLAYED = UUID("870c6a56-9034-522a-a88a-a89cb8caf83d")  # its round 1's second game
RUNNING = UUID("b43eaab2-539c-4a90-a343-63706459486e")  # seats' token hashes "000…", "111…"
OPEN = UUID("19fb2ca2-cabb-43ad-917e-2b823a960fc4")


def opened(archive_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The fixture's store unpacked, and the settings that open it."""
    with tarfile.open(archive_path) as archive:
        archive.extractall(tmp_path, filter="data")
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "opus.db")}
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("OPUS_VIEWS_DBNAME", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return Settings.from_env()


def project_all(settings: Settings, last: int) -> None:
    """Every view brought up to ``last`` by its projection runner."""
    runners = [projection_runner(settings, cls).start() for cls in PROJECTIONS.values()]
    try:
        for runner in runners:
            runner.wait(last, timeout=30)
    finally:
        for runner in runners:
            runner.stop()
            runner.join()
            runner.store.close()


def test_a_store_from_before_loads_plays_on_and_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = opened(FIXTURE, tmp_path, monkeypatch)
    app = open_application(settings)
    assert app.state(RUNNING).status == "running"
    choose = BOTS["random"](random.Random(8))
    while (state := app.state(RUNNING)).status == "running":
        seat = state.turn
        app.play(RUNNING, choose(state, seat), caller=Caller(str(seat) * 64))
    app.join(OPEN, "Dmitri", caller=Caller("2" * 64))
    app.start(OPEN)
    project_all(settings, app.recorder.max_notification_id() or 0)
    app.close()
    # The upgrade steps (README) of the release that keyed the leaderboard on
    # player identities and of the one that put the move log's lines into the
    # pages' words (projections/describe.py): those views are built again;
    # the others go on.
    rebuilt = CliRunner().invoke(main, ["rebuild", "leaderboard", "move_log", "--blue-green"])
    assert rebuilt.exit_code == 0, rebuilt.output
    verified = CliRunner().invoke(main, ["verify"])
    assert verified.exit_code == 0, verified.output
    assert "4 games verified, 0 failed" in verified.output
    assert verified.output.count("equals a rebuild") == len(PROJECTIONS)


def test_a_store_with_tournaments_from_before_plays_on_to_the_finish_and_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = opened(TOURNAMENTS, tmp_path, monkeypatch)
    app = open_application(settings)
    state = app.tournaments.get(RUNNING_TOURNAMENT).state
    assert state.status == "playing" and state.paired == 1 and len(state.results) == 1
    assert app.state(HALF_PLAYED).status == "running"
    run = TournamentRun(RUNNING_TOURNAMENT, seed=4)
    play_on(app, run, "greedy", drop_rate=0.2)  # T5.1, T9.1 now by the save policy
    state = app.tournaments.get(RUNNING_TOURNAMENT).state
    assert state.status == "finished" and state.paired == 2
    assert HALF_PLAYED in state.results and app.state(HALF_PLAYED).status == "ended"
    version = app.tournaments.get(RUNNING_TOURNAMENT).version
    project_all(settings, app.recorder.max_notification_id() or 0)
    app.close()
    # The tournaments view kept each tournament's events in a document; the
    # running one's next event moved them into its list, the finished one's
    # stay until the upgrade step (README) builds the view again. The move
    # log's upgrade step (its lines in the pages' words) builds it again too.
    views = open_views(settings)
    ns = namespace("tournaments", views.active_generation("tournaments"))
    assert views.get(ns, f"{RUNNING_TOURNAMENT}:model") is None
    assert len(views.items(ns, f"{RUNNING_TOURNAMENT}:events")) == version
    assert views.get(ns, f"{FINISHED_TOURNAMENT}:model") is not None
    views.close()
    rebuilt = CliRunner().invoke(main, ["rebuild", "tournaments", "move_log", "--blue-green"])
    assert rebuilt.exit_code == 0, rebuilt.output
    verified = CliRunner().invoke(main, ["verify"])
    assert verified.exit_code == 0, verified.output
    assert "2 tournaments verified, 0 failed" in verified.output
    assert verified.output.count("equals a rebuild") == len(PROJECTIONS)
