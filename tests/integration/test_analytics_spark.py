"""DuckDB and Spark give identical tables: every question's SQL on one data
set (mixed bots, both draw rules, Guild on and off, and a tournament with
drops), Spark in local mode; and Spark's report of a small store (three
games of three players, a seat with no win) is written, its Wilson bounds
held to [0, 1]. One SparkSession for the module (its JVM takes 10-30 s to
start)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from domain.application import Opus
from domain.simulation import simulate, simulate_tournament
from projections.analytics.engines import DuckDBEngine, SparkEngine, spark_session
from projections.analytics.export import data_files, export
from projections.analytics.report import QUESTIONS, build_report, run_questions
from tests.analytics_oracle import GameSpec, play_mixed

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    session = spark_session()
    yield session
    session.stop()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("spark")
    app = Opus(
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(folder / "e.db")}
    )
    specs = [
        GameSpec(("random", "greedy", "random", "greedy")),
        GameSpec(("greedy", "greedy"), draw="one"),
        GameSpec(("random",) * 6, guild=False),
        GameSpec(("random", "random", "greedy"), draw="one", guild=False),
        GameSpec(("greedy", "random", "random", "random", "greedy")),
    ]
    for seed, spec in enumerate(specs):
        play_mixed(app, spec, seed)
    simulate_tournament(app, 6, 2, "random", seed=2, drop_rate=0.2)
    export(app, folder / "parquet")
    app.close()
    return folder / "parquet"


def test_duckdb_and_spark_give_identical_tables(spark: Any, data: Path) -> None:
    files = data_files(data)
    duck = DuckDBEngine(files)
    try:
        by_duckdb = run_questions(duck)
    finally:
        duck.close()
    by_spark = run_questions(SparkEngine(files, session=spark))
    for question in QUESTIONS:
        assert by_spark[question].columns == by_duckdb[question].columns, question
        assert by_spark[question].rows == by_duckdb[question].rows, question
        assert by_duckdb[question].rows or question == "bot_head_to_head", question


def test_sparks_report_of_three_games_of_three_players(spark: Any, tmp_path: Path) -> None:
    """``opus analytics report --engine spark`` on the store of ``opus
    simulate --games 3 --players 3``: a seat won nothing, and its interval's
    lower bound is exactly 0 (the chart's error bar is not negative)."""
    app = Opus(
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}
    )
    simulate(app, 3, 3, "greedy", seed=0)
    export(app, tmp_path / "parquet")
    app.close()
    files = data_files(tmp_path / "parquet")
    report = build_report(
        SparkEngine(files, session=spark), tmp_path / "parquet", tmp_path / "report"
    )
    assert (tmp_path / "report" / "charts" / "seat_advantage.png").stat().st_size > 0
    rows = report.results["seat_advantage"].dicts()
    assert any(row["wins"] == 0 for row in rows)
    for row in rows:
        assert 0.0 <= row["wilson_low"] <= row["share"] <= row["wilson_high"] <= 1.0, row
        assert row["wilson_low"] == 0.0 or row["wins"] > 0, row
    duck = DuckDBEngine(files)
    try:
        assert run_questions(duck, ("seat_advantage",))["seat_advantage"].rows == (
            report.results["seat_advantage"].rows
        )
    finally:
        duck.close()
