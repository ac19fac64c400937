"""``opus verify --file``: exported logs checked from a file, clean and tampered."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from api.cli import main
from domain.application import Opus
from domain.simulation import simulate
from infra.eventlog import export_lines


@cache
def finished_app(games: int = 3) -> Opus:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    simulate(app, games, 3, "greedy", seed=11)
    return app


def test_a_clean_log_of_one_hundred_games_verifies_with_stable_output(tmp_path: Path) -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    simulate(app, 100, 4, "random", seed=5)
    log = tmp_path / "log.ndjson"
    log.write_text("\n".join(export_lines(app)) + "\n", encoding="utf-8")
    runner = CliRunner()
    first = runner.invoke(main, ["verify", "--file", str(log)])
    second = runner.invoke(main, ["verify", "--file", str(log)])
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout
    assert "100 games verified, 0 failed" in first.stdout
    assert first.stdout.count("re-judged") == 100


@pytest.mark.parametrize("kind", ["byte", "delete", "swap"])
def test_tampered_export_file_fails_verify_with_exit_code(tmp_path: Path, kind: str) -> None:
    lines = list(export_lines(finished_app()))
    k = len(lines) // 2
    # Positions count from 1; after a delete or a swap, the first line out of
    # sequence is the one that was at k + 1 (0-based), position k + 2.
    first_bad = k + 1 if kind == "byte" else k + 2
    if kind == "byte":
        line = json.loads(lines[k])
        stamp = line["timestamp"]
        line["timestamp"] = stamp[:20] + str((int(stamp[20]) + 1) % 10) + stamp[21:]
        lines[k] = json.dumps(line)
    elif kind == "delete":
        del lines[k]
    else:
        lines[k], lines[k + 1] = lines[k + 1], lines[k]
    path = tmp_path / "log.ndjson"
    path.write_text("\n".join(lines), encoding="utf-8")
    result = CliRunner().invoke(main, ["verify", "--file", str(path)])
    assert result.exit_code == 1
    assert f"at position {first_bad} " in result.stdout
    assert result.stdout.count("FAIL") == 1
