"""The report (``opus analytics report``'s build_report, DuckDB) on tiny and
degenerate stores: one game, a game every seat wins (all tied), games of
one player count only, three games of three players. Each report is
written whole (charts included), every figure equals the Python pass over
the events (tests/analytics_oracle.py), and the seat advantage's 95 %
Wilson intervals hold their share within [0, 1]: a seat with no win has a
lower bound of exactly 0, a seat that won every game an upper bound of
exactly 1 (the chart's error bars are never negative)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from domain.application import Opus
from domain.simulation import NAMES, simulate
from infra.eventlog import read_records
from projections.analytics.engines import DuckDBEngine
from projections.analytics.export import data_files, export
from projections.analytics.report import QUESTIONS, build_report
from tests.analytics_oracle import GameSpec, figures, play_mixed
from tests.integration.test_analytics_figures import assert_figures_equal


def one_game(app: Opus) -> None:
    play_mixed(app, GameSpec(("greedy", "random")), 1)


def all_tied(app: Opus) -> None:
    """Three seats withdrawn in turn before anyone scores: R3.5 ends the
    game, and R7.3 ranks every seat alike (no points, stages or recipes), so
    all three share the win."""
    game = app.create_game()
    for name in NAMES[:3]:
        app.join(game, name)
    app.start(game)
    for seat in range(3):
        app.withdraw(game, seat)


def one_player_count(app: Opus) -> None:
    for seed in range(2):
        play_mixed(app, GameSpec(("random", "greedy", "random", "greedy")), seed)


def three_of_three(app: Opus) -> None:
    """``opus simulate --games 3 --players 3`` (greedy bots, seed 0)."""
    simulate(app, 3, 3, "greedy", seed=0)


STORES: dict[str, Callable[[Opus], None]] = {
    "one game": one_game,
    "all tied": all_tied,
    "one player count": one_player_count,
    "three games of three": three_of_three,
}


def reported(tmp_path: Path, fill: Callable[[Opus], None]) -> tuple[Any, Opus]:
    app = Opus(
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}
    )
    fill(app)
    export(app, tmp_path / "parquet")
    engine = DuckDBEngine(data_files(tmp_path / "parquet"))
    try:
        return build_report(engine, tmp_path / "parquet", tmp_path / "report"), app
    finally:
        engine.close()


@pytest.mark.parametrize("store", list(STORES))
def test_the_report_of_a_small_store_is_written_and_equals_the_python_pass(
    tmp_path: Path, store: str
) -> None:
    report, app = reported(tmp_path, STORES[store])
    try:
        assert_figures_equal(report.results, figures(read_records(app)))
    finally:
        app.close()
    out = tmp_path / "report"
    for name in ("index.html", "report.json", "charts/seat_advantage.png"):
        assert (out / name).stat().st_size > 0, name
    assert all((out / f"{question}.csv").exists() for question in QUESTIONS)
    rows = report.results["seat_advantage"].dicts()
    assert rows
    for row in rows:
        assert 0.0 <= row["wilson_low"] <= row["share"] <= row["wilson_high"] <= 1.0, row
        if row["wins"] == 0:
            assert row["wilson_low"] == 0.0, row
        if row["wins"] == row["games"]:
            assert row["wilson_high"] == 1.0, row


def test_the_degenerate_cases_are_there() -> None:
    """What the small stores are for: the cases are in them (seat shares
    read off the stores' own games, by their winners)."""
    shares: dict[str, dict[int, tuple[float, int]]] = {}
    for store, fill in STORES.items():
        app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
        fill(app)
        won: dict[int, float] = {}
        games = 0
        for record in read_records(app):
            if record.type == "GameEnded" and record.payload is not None:
                games += 1
                winners = record.payload["winners"]
                for seat in range(len(record.payload["scores"])):
                    won[seat] = won.get(seat, 0.0) + (1 / len(winners) if seat in winners else 0)
        shares[store] = {seat: (wins, games) for seat, wins in won.items()}
        app.close()
    assert {wins for wins, _ in shares["one game"].values()} == {0.0, 1.0}
    assert all(wins == 1 / 3 for wins, _ in shares["all tied"].values())
    assert len(shares["one player count"]) == 4
    assert any(wins == 0 for wins, _ in shares["three games of three"].values())
