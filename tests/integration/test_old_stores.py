"""A store written before the table model and the disclosure policy
(tests/fixtures/store-before-table-model.tar.gz: SQLite events and views
written by the code of that time) loads, plays on and verifies: no stored
event changed shape, and the views it holds go on as a rebuild would build
them."""

from __future__ import annotations

import random
import tarfile
from pathlib import Path
from uuid import UUID

import pytest
from click.testing import CliRunner

from api.cli import main
from domain.bots import BOTS
from infra.bootstrap import open_application, projection_runner
from infra.settings import Settings
from projections.registry import PROJECTIONS

FIXTURE = Path(__file__).parent.parent / "fixtures" / "store-before-table-model.tar.gz"
RUNNING = UUID("b43eaab2-539c-4a90-a343-63706459486e")  # seats' token hashes "000…", "111…"
OPEN = UUID("19fb2ca2-cabb-43ad-917e-2b823a960fc4")


def test_a_store_from_before_loads_plays_on_and_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with tarfile.open(FIXTURE) as archive:
        archive.extractall(tmp_path, filter="data")
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "opus.db")}
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.delenv("OPUS_VIEWS_DBNAME", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    settings = Settings.from_env()
    app = open_application(settings)
    assert app.state(RUNNING).status == "running"
    choose = BOTS["random"](random.Random(8))
    while (state := app.state(RUNNING)).status == "running":
        seat = state.turn
        app.play(RUNNING, choose(state, seat), token_hash=str(seat) * 64)
    app.join(OPEN, "Dmitri", token_hash="2" * 64)
    app.start(OPEN)
    last = app.recorder.max_notification_id() or 0
    runners = [projection_runner(settings, cls).start() for cls in PROJECTIONS.values()]
    try:
        for runner in runners:
            runner.wait(last, timeout=30)
    finally:
        for runner in runners:
            runner.stop()
            runner.join()
            runner.store.close()
    app.close()
    # The upgrade step of the release that keyed the leaderboard on player
    # identities (README): its view is built again; the others go on.
    rebuilt = CliRunner().invoke(main, ["rebuild", "leaderboard", "--blue-green"])
    assert rebuilt.exit_code == 0, rebuilt.output
    verified = CliRunner().invoke(main, ["verify"])
    assert verified.exit_code == 0, verified.output
    assert "4 games verified, 0 failed" in verified.output
    assert verified.output.count("equals a rebuild") == len(PROJECTIONS)
