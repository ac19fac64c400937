"""The shared runner and an event that cannot be decoded
(projections/runner.py, ``project_batch``): a view that holds the event
already, standing exactly at its position, goes on; only the views behind it
fail. On SQLite views and Redis views."""

from __future__ import annotations

import random
import sqlite3
from typing import Any

import pytest

from domain.application import Opus
from domain.bots import BOTS
from domain.simulation import NAMES
from projections.queries import Queries
from projections.registry import PROJECTIONS
from projections.runner import ProjectionError, ProjectionRunner
from projections.scoreboard import Scoreboard
from tests.conftest import ViewsUnderTest, opener


@pytest.fixture
def app(events_env: dict[str, str]) -> Any:
    application = Opus(env=events_env)
    yield application
    application.close()


def last_position(app: Opus) -> int:
    return app.recorder.max_notification_id() or 0


def play(app: Opus, game: Any, moves: int, seed: int) -> None:
    choose = BOTS["greedy"](random.Random(seed))
    for _ in range(moves):
        state = app.state(game)
        if state.status != "running":
            return
        app.play(game, choose(state, state.turn))


def test_a_view_standing_exactly_at_an_undecodable_event_goes_on(
    app: Opus, events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    """The scoreboard is projected up to position p, which then stops
    decoding; the table, behind it, reads p again on the same subscription.
    The table fails at p with everything before it; the scoreboard, which
    holds p, is not failed by it and stays at p."""
    game = app.create_game(secret=bytes([9]) * 32)
    for name in NAMES[:3]:
        app.join(game, name, f"{name}-9")
    app.start(game)
    play(app, game, 8, seed=9)
    with ProjectionRunner(Scoreboard, views.store, opener(events_env)) as ahead:
        ahead.wait(last_position(app), timeout=20)
    broken = last_position(app)
    play(app, game, 4, seed=10)  # events after it, which neither view reaches
    assert last_position(app) > broken
    with sqlite3.connect(events_env["SQLITE_DBNAME"]) as db:
        table = app.recorder.events_table_name  # type: ignore[attr-defined]
        db.execute(f"UPDATE {table} SET state = ? WHERE rowid = ?", (b"not json", broken))
    queries = Queries(views.store)
    assert queries.position("scoreboard") == broken
    # the scoreboard first: the view that holds the event is asked first
    runner = ProjectionRunner(
        [Scoreboard, PROJECTIONS["table"]], views.store, opener(events_env)
    ).start()
    with pytest.raises(ProjectionError) as raised:
        runner.run_forever(timeout=20)
    assert raised.value.projection == "table", raised.value
    assert f"projection table failed at position {broken}: " in str(raised.value)
    assert queries.position("table") == broken - 1
    assert queries.position("scoreboard") == broken
