"""Every analytics figure equals a plain Python computation over the same
events (tests/analytics_oracle.py), on random small sets of simulated games
and on a tournament; the Parquet scores and winners equal the read side's
(the scoreboard and table projections)."""

from __future__ import annotations

import math
import random
import tempfile
from pathlib import Path
from typing import Any
from uuid import UUID

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.application import Opus
from domain.bots import BOTS
from domain.pipeline import Caller
from domain.simulation import (
    ORGANISER,
    enter_tournament,
    play_on,
    play_out,
    token_hash,
    token_of,
)
from infra.eventlog import read_records
from projections.analytics.engines import Answer, DuckDBEngine
from projections.analytics.export import data_files, export
from projections.analytics.report import QUESTIONS, run_questions
from projections.queries import Queries
from projections.rebuild import rebuild
from projections.registry import select
from projections.sqlite_views import SQLiteViewStore
from tests.analytics_oracle import GameSpec, figures, play_mixed


def sqlite_app(folder: Path) -> Opus:
    return Opus(
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(folder / "e.db")}
    )


def answers(app: Opus, folder: Path) -> dict[str, Answer]:
    """Export the store and answer every question by DuckDB."""
    export(app, folder / "parquet")
    engine = DuckDBEngine(data_files(folder / "parquet"))
    try:
        return run_questions(engine)
    finally:
        engine.close()


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            return a is b
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return bool(a == b)


def _key(row: dict[str, Any]) -> tuple[str, ...]:
    """A row's identity: its values other than floats (SQL and Python may
    round a float's last bit differently, and so order ties differently)."""
    return tuple(repr(v) for v in row.values() if not isinstance(v, float))


def assert_figures_equal(
    sql: dict[str, Answer], reference: dict[str, list[dict[str, Any]]]
) -> None:
    assert set(sql) == set(reference) == set(QUESTIONS)
    for question in QUESTIONS:
        got, want = sql[question].dicts(), reference[question]
        assert len(got) == len(want), question
        for row, expected in zip(sorted(got, key=_key), sorted(want, key=_key), strict=True):
            assert list(row) == list(expected), question
            assert all(_same(row[k], expected[k]) for k in row), (question, row, expected)


def assert_read_side_agrees(app: Opus, folder: Path, sql_engine_folder: Path) -> None:
    """Scores and winners in Parquet = the scoreboard's totals and the table
    view's winners, game by game."""
    store = SQLiteViewStore(str(folder / "views.db"))
    try:
        rebuild(store, app, select(["scoreboard", "table"]))
        queries = Queries(store)
        engine = DuckDBEngine(data_files(sql_engine_folder))
        try:
            seats = engine.run("SELECT game_id, seat, score, won FROM seat ORDER BY game_id, seat")
            games = engine.run("SELECT game_id, winners FROM game")
        finally:
            engine.close()
        scores: dict[str, dict[int, int]] = {}
        won: dict[str, list[int]] = {}
        for game, seat, score, is_winner in seats.rows:
            scores.setdefault(game, {})[seat] = score
            if is_winner:
                won.setdefault(game, []).append(seat)
        for game, winners in games.rows:
            board = queries.scoreboard(game)
            assert board is not None
            assert {p["seat"]: p["points"] for p in board["players"]} == scores[game]
            view = queries.table_view(game)
            assert view is not None
            assert view["winners"] == [int(w) for w in winners.split(",")] == won[game]
    finally:
        store.close()


bots = st.sampled_from(["random", "random", "greedy"])
specs = st.builds(
    GameSpec,
    st.integers(2, 6).flatmap(lambda n: st.tuples(*[bots] * n)),
    st.sampled_from(["five", "one"]),
    st.booleans(),
)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(games=st.lists(specs, min_size=1, max_size=3), seed=st.integers(0, 10**6))
def test_every_figure_equals_a_python_pass_over_the_events(
    games: list[GameSpec], seed: int
) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        app = sqlite_app(folder)
        try:
            for i, spec in enumerate(games):
                play_mixed(app, spec, seed + i)
            sql = answers(app, folder)
            assert_figures_equal(sql, figures(read_records(app)))
            assert_read_side_agrees(app, folder, folder / "parquet")
        finally:
            app.close()


def test_a_tournament_with_drops_and_a_correction(tmp_path: Path) -> None:
    """Withdrawn seats, a corrected result (T7.1: the latest counts), match
    points and seat balance, against the Python pass."""
    app = sqlite_app(tmp_path)
    run = enter_tournament(app, 7, 3, seed=5)
    app.tournaments.pair(run.tournament)
    choose = BOTS["random"](random.Random(5))
    for table in app.tournaments.get(run.tournament).state.rounds[-1].tables:
        hashes = [token_hash(token_of(run.seed, p)) for p in table.players]
        play_out(app, table.game, hashes, choose)
    results = app.tournaments.get(run.tournament).state.results
    game = next(iter(results))
    places = list(results[game].places)
    upside_down = [1 + sum(other > mine for other in places) for mine in places]
    app.tournaments.correct(
        run.tournament,
        game,
        upside_down,
        "places reversed",
        "arbiter",
        caller=Caller(token_hash(ORGANISER)),
    )
    play_on(app, run, "random", drop_rate=0.25)
    results = app.tournaments.get(run.tournament).state.results
    sql = answers(app, tmp_path)
    assert_figures_equal(sql, figures(read_records(app)))
    assert_read_side_agrees(app, tmp_path, tmp_path / "parquet")
    assert sql["tournament_seats"].rows
    seated = sum(len(result.places) for result in results.values())
    assert sum(r[2] for r in sql["tournament_match_points"].rows) == seated
    engine = DuckDBEngine(data_files(tmp_path / "parquet"))
    latest = engine.run(
        f"SELECT place FROM result WHERE game_id = '{game}' AND kind = 'corrected' ORDER BY seat"
    )
    engine.close()
    assert [row[0] for row in latest.rows] == upside_down
    assert UUID(sql["tournament_seats"].rows[0][0]) == run.tournament
    app.close()
