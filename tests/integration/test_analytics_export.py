"""The incremental Parquet export: run after run, no row missing or written
twice; a running game's rows wait for its end (no hidden information from
a running game); an export killed with SIGKILL resumes cleanly; the
commands and GET /analytics/{question}."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any
from uuid import UUID

import pyarrow.parquet as pq
from click.testing import CliRunner

from api.cli import main
from domain.application import Opus
from domain.bots import BOTS
from projections.analytics.export import MANIFEST, Manifest, data_files, export
from projections.analytics.tables import TABLES
from tests.analytics_oracle import GameSpec, play_mixed
from tests.apps import embedded_app

ROOT = Path(__file__).resolve().parents[2]
# what makes a row itself in each table
KEYS = {
    "game": ("game_id",),
    "seat": ("game_id", "seat"),
    "award": ("game_id", "version"),
    "assembly": ("game_id", "version"),
    "placement": ("game_id", "version"),
    "steal": ("game_id", "version", "card"),
    "spell": ("game_id", "version"),
    "turn": ("game_id", "turn"),
    "result": ("game_id", "version", "seat"),
}


def sqlite_env(folder: Path) -> dict[str, str]:
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(folder / "e.db")}


def rows_of(out: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, as the manifest's files hold them."""
    tables = {}
    for table, files in data_files(out).items():
        rows: list[tuple[Any, ...]] = []
        for path in files:
            data = pq.read_table(path).to_pylist()
            rows.extend(tuple(_hashable(v) for v in row.values()) for row in data)
        tables[table] = rows
    return tables


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def assert_unique(out: Path) -> None:
    for table, files in data_files(out).items():
        keys = Counter()
        for path in files:
            for row in pq.read_table(path, columns=list(KEYS[table])).to_pylist():
                keys[tuple(row.values())] += 1
        assert not [k for k, n in keys.items() if n > 1], f"{table}: a row written twice"


def finish(app: Opus, game: UUID, seed: int) -> None:
    """Play a running game to its end (random bots)."""
    choose = BOTS["random"](random.Random(seed))
    state = app.state(game)
    while state.status == "running":
        app.play(game, choose(state, state.turn))
        state = app.state(game)


def test_export_play_more_export_again_equals_one_export(tmp_path: Path) -> None:
    app = Opus(env=sqlite_env(tmp_path))
    four = GameSpec(("random", "greedy", "random", "random"))
    for seed in range(3):
        play_mixed(app, four, seed)
    running = play_mixed(app, GameSpec(("random", "random", "greedy")), 10, moves=25)
    out = tmp_path / "parquet"

    first = export(app, out)
    assert first.games == 3
    exported = {row[0] for row in rows_of(out)["game"]}
    assert str(running) not in exported  # R9.3: nothing of a running game yet
    assert all(str(running) not in {r[0] for r in rows} for rows in rows_of(out).values())

    play_mixed(app, four, 20)  # a game from start to end between two runs
    finish(app, running, 11)  # one that began before the first run ends after it
    play_mixed(app, GameSpec(("greedy", "random")), 30, moves=7)  # and one left running
    second = export(app, out)
    assert second.games == 2
    assert export(app, out).games == 0  # nothing new: nothing written

    one_shot = tmp_path / "one-shot"
    export(app, one_shot)
    incremental, whole = rows_of(out), rows_of(one_shot)
    for table in TABLES:
        assert Counter(incremental[table]) == Counter(whole[table]), table
    assert_unique(out)
    assert str(running) in {row[0] for row in incremental["game"]}
    manifest = Manifest.load(out)
    assert manifest.position == app.recorder.max_notification_id()
    assert manifest.games == 5 and len(manifest.runs) == 3
    app.close()


def test_an_export_killed_mid_run_resumes_cleanly(tmp_path: Path) -> None:
    """SIGKILL while part files are being written and before the manifest
    names them: the next run removes them and exports everything once."""
    app = Opus(env=sqlite_env(tmp_path))
    for seed in range(60):
        play_mixed(app, GameSpec(("random",) * 4), seed)
    out = tmp_path / "parquet"
    env = {**os.environ, **sqlite_env(tmp_path), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", "from api.cli import main; main()", "analytics", "export"]
    process = subprocess.Popen(
        [*command, "--out", str(out), "--chunk-rows", "40"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            written = [p for p in out.glob("*/part-*.parquet")]
            if len(written) >= 20 and not (out / MANIFEST).exists():
                break
            time.sleep(0.002)
        assert process.poll() is None, "the export ended before it could be killed"
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    finally:
        if process.poll() is None:
            process.kill()
    left = list(out.glob("*/part-*.parquet"))
    assert left and not (out / MANIFEST).exists()  # killed mid-run, nothing committed

    resumed = export(app, out)
    assert resumed.after == 0 and resumed.games == 60
    one_shot = tmp_path / "one-shot"
    export(app, one_shot)
    killed, whole = rows_of(out), rows_of(one_shot)
    for table in TABLES:
        assert Counter(killed[table]) == Counter(whole[table]), table
    assert_unique(out)
    listed = {p for files in data_files(out).values() for p in files}
    assert set(out.glob("*/part-*.parquet")) == listed  # the killed run's files are gone
    app.close()


def test_the_commands_and_the_http_answers(tmp_path: Path, monkeypatch: Any) -> None:
    app = Opus(env=sqlite_env(tmp_path))
    play_mixed(app, GameSpec(("random", "greedy", "random")), 1)
    play_mixed(app, GameSpec(("greedy", "random")), 2)
    app.close()
    analytics = tmp_path / "analytics"
    for name, value in sqlite_env(tmp_path).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("OPUS_ANALYTICS_DIR", str(analytics))

    http = embedded_app(tmp_path, run_projections=False)
    http.config["OPUS_ANALYTICS_DIR"] = str(analytics)
    client = http.test_client()
    assert client.get("/analytics/seat_advantage").status_code == 404  # no report yet

    runner = CliRunner()
    done = runner.invoke(main, ["analytics", "export"])
    assert done.exit_code == 0, done.output
    assert "games ended and exported: 2" in done.output
    done = runner.invoke(main, ["analytics", "report"])
    assert done.exit_code == 0, done.output
    report = analytics / "report"
    for name in ("index.html", "seat_advantage.csv", "charts/seat_advantage.png"):
        assert (report / name).stat().st_size > 0, name
    snapshot = json.loads((report / "report.json").read_text())

    answer = client.get("/analytics/seat_advantage")
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["rows"] == snapshot["questions"]["seat_advantage"]["rows"]
    assert body["games"] == 2 and body["engine"] == "duckdb"
    assert sum(row["games"] for row in body["rows"]) == 5  # five seats
    assert client.get("/analytics/no_such_question").status_code == 404
    assert "/analytics/{question}" in client.get("/openapi.json").get_json()["paths"]
