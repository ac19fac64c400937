"""``opus verify --tournament`` (T10.1) on a SQLite store and on its export;
the whole-log ``opus verify`` with tournaments in the log."""

from __future__ import annotations

import json
from pathlib import Path
from uuid import UUID

import pytest
from click.testing import CliRunner

from api.cli import main
from domain.application import Opus
from domain.audit import Record
from domain.simulation import simulate, simulate_tournament
from infra.eventlog import export_lines, tournament_lines
from tests.unit.test_tournament_verify import rewritten


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[UUID, list[UUID]]:
    """A SQLite store holding a finished tournament of eight random bots over
    three rounds (with drops) and a game of its own; ``opus`` reads it."""
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    app = Opus(env=env)
    try:
        run = simulate_tournament(app, 8, 3, "random", seed=2, drop_rate=0.2)
        simulate(app, 1, 3, "random", seed=9)
    finally:
        app.close()
    return run.tournament, run.games


def exported(tmp_path: Path, tournament: UUID) -> Path:
    path = tmp_path / "tournament.ndjson"
    result = CliRunner().invoke(
        main, ["export", "--tournament", str(tournament), "--output", str(path)]
    )
    assert result.exit_code == 0, result.output
    return path


def test_verify_tournament_from_the_store_and_from_its_export(
    store: tuple[UUID, list[UUID]], tmp_path: Path
) -> None:
    tournament, games = store
    runner = CliRunner()
    live = runner.invoke(main, ["verify", "--tournament", str(tournament)])
    assert live.exit_code == 0, live.output
    assert f"ok   tournament {tournament} finished" in live.stdout
    assert "re-derived" in live.stdout
    assert f"{len(games)} games verified, 0 failed" in live.stdout
    assert live.stdout.count("re-judged") == len(games)
    path = exported(tmp_path, tournament)
    with Opus(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite"}) as app:
        assert path.read_text(encoding="utf-8").splitlines() == list(
            tournament_lines(app, tournament)
        )
    from_file = runner.invoke(
        main, ["verify", "--tournament", str(tournament), "--file", str(path)]
    )
    assert from_file.exit_code == 0, from_file.output
    assert from_file.stdout == live.stdout


def test_a_tampered_export_exits_1_naming_the_rule(
    store: tuple[UUID, list[UUID]], tmp_path: Path
) -> None:
    tournament, _ = store
    path = exported(tmp_path, tournament)
    lines = path.read_text(encoding="utf-8").splitlines()
    records = [Record.from_line(json.loads(line)) for line in lines]
    own = [r for r in records if r.aggregate_id == str(tournament)]
    closed = next(r for r in own if r.type == "RoundClosed")
    forged = rewritten(own, closed.version, lambda p: p.update(standings="0" * 64))
    path.write_text(
        "\n".join(r.line() for r in forged + records[len(own) :]) + "\n", encoding="utf-8"
    )
    result = CliRunner().invoke(
        main, ["verify", "--tournament", str(tournament), "--file", str(path)]
    )
    assert result.exit_code == 1, result.output
    assert f"FAIL tournament {tournament} at position {closed.position} " in result.stdout
    assert "first difference: T9.1: round 1's standings digest is recorded 000" in result.stdout


def test_the_whole_log_verifies_tournaments_and_their_games(
    store: tuple[UUID, list[UUID]], tmp_path: Path
) -> None:
    tournament, games = store
    runner = CliRunner()
    result = runner.invoke(main, ["verify", "--no-views"])
    assert result.exit_code == 0, result.output
    assert f"{len(games) + 1} games verified, 0 failed" in result.stdout
    assert "1 tournaments verified, 0 failed" in result.stdout
    assert f"ok   tournament {tournament} finished" in result.stdout
    with Opus(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite"}) as app:
        log = tmp_path / "log.ndjson"
        log.write_text("\n".join(export_lines(app)) + "\n", encoding="utf-8")
    from_file = runner.invoke(main, ["verify", "--file", str(log)])
    assert from_file.exit_code == 0, from_file.output
    assert from_file.stdout == result.stdout
    one = runner.invoke(main, ["verify", "--game", str(games[-1]), "--file", str(log)])
    assert one.exit_code == 0, one.output
    assert "1 games verified, 0 failed" in one.stdout
    as_game = runner.invoke(main, ["verify", "--game", str(tournament), "--file", str(log)])
    assert as_game.exit_code == 0, as_game.output
    assert f"ok   tournament {tournament} finished" in as_game.stdout


def test_an_unknown_tournament_is_an_error(store: tuple[UUID, list[UUID]]) -> None:
    _, games = store
    result = CliRunner().invoke(main, ["verify", "--tournament", str(games[0])])
    assert result.exit_code == 1
    assert f"no tournament in the log with id {games[0]}" in result.output
