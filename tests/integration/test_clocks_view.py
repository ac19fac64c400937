"""The running clocks' view (projections/clocks.py) rebuilt from a store of
timed and untimed games: an untimed game has no document and moves nothing;
a timed game's document is the fold of its events' times, and the games due
are those whose turn runs a clock, by deadline (the scheduler's list)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from domain import clock as clock_module
from domain.application import Opus
from domain.bots import BOTS
from domain.clock import SECOND, Clock, Clocks, micros
from domain.ruleset import RuleSet
from projections.queries import Queries
from projections.rebuild import rebuild
from projections.registry import select
from projections.sqlite_views import SQLiteViewStore


def test_the_clocks_view_rebuilt_holds_the_timed_games_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [datetime(2026, 12, 8, 9, 0, tzinfo=UTC)]
    monkeypatch.setattr(clock_module, "now", lambda: now[0])
    app = Opus(
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}
    )
    rng = random.Random(5)
    games = {}
    for name, variant in (
        ("untimed", RuleSet()),
        ("timed", RuleSet.timed(Clock(60, 2))),
        ("paused", RuleSet.timed(Clock(60))),
    ):
        game = app.create_game(variant, secret=bytes(32))
        for seat in range(3):
            app.join(game, f"P{seat + 1}")
        app.start(game)
        for _ in range(4):
            now[0] += timedelta(seconds=3)
            state = app.state(game)
            app.play(game, BOTS["random"](rng)(state, state.turn))
        games[name] = game
    app.pause_clocks(games["paused"], "a break", "Arbiter")
    store = SQLiteViewStore(str(tmp_path / "views.db"))
    try:
        rebuild(store, app, select(["clocks"]))
        queries = Queries(store)
        assert queries.clocks(games["untimed"], timeout=1) is None
        doc = queries.clocks(games["timed"], timeout=1)
        assert doc is not None and doc["expired"] is None
        live = app.state(games["timed"]).clocks
        assert live is not None and Clocks.from_doc(doc["fold"]) == live
        due = queries.clocks_due(micros(now[0]) + 3600 * SECOND)
        assert [game for game, _ in due] == [str(games["timed"])]  # paused: none due
        assert due[0][1] == live.deadline()
        assert queries.clocks_due(micros(now[0])) == []  # not yet
    finally:
        store.close()
        app.close()
