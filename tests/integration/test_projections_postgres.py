"""Production's pairing: events in PostgreSQL (the library's LISTEN/NOTIFY
subscription), views in Redis or SQLite. Each test has its own schema, so
the positions are its own on the shared database."""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from domain.application import Opus
from domain.simulation import play_game
from domain.table import public_view
from infra.bootstrap import RUNNER_POOL, projection_runner
from infra.settings import Settings
from projections import rebuild as rebuild_module
from projections.base import read_rows
from projections.ports import namespace
from projections.queries import Queries
from projections.rebuild import ReadAhead, rebuild
from projections.registry import PROJECTIONS, select
from projections.runner import ProjectionRunner
from tests.conftest import POSTGRES_ENV, ViewsUnderTest, opener

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_env() -> Iterator[dict[str, str]]:
    schema = f"opus_test_{uuid.uuid4().hex[:10]}"
    dsn = (
        f"dbname={POSTGRES_ENV['POSTGRES_DBNAME']} host={POSTGRES_ENV['POSTGRES_HOST']} "
        f"port={POSTGRES_ENV['POSTGRES_PORT']} user={POSTGRES_ENV['POSTGRES_USER']} "
        f"password={POSTGRES_ENV['POSTGRES_PASSWORD']}"
    )
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    yield {**POSTGRES_ENV, "POSTGRES_SCHEMA": schema}
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


def test_runners_follow_postgres_live_and_a_rebuild_gives_the_same_bytes(
    pg_env: dict[str, str], views: ViewsUnderTest
) -> None:
    app = Opus(env=pg_env)
    queries = Queries(views.store)
    # a runner a projection, each with a runner's pool (not the library's five)
    runner_env = {**pg_env, **RUNNER_POOL}
    runners = [
        ProjectionRunner(cls, views.store, opener(runner_env)).start()
        for cls in PROJECTIONS.values()
    ]
    try:
        game_id, _ = play_game(app, 3, "greedy", random.Random(1))
        outcome = app.join(app.create_game(), "Ada")
        # read-your-writes through LISTEN/NOTIFY: bounded, no sleep
        table = queries.table_view(game_id, after=outcome.position, timeout=10)
        assert table is not None
        assert {k: v for k, v in table.items() if k not in ("game", "version", "position")} == (
            public_view(app.state(game_id))
        )
        end = app.recorder.max_notification_id() or 0
        for runner in runners:
            runner.wait(end, timeout=20)
    finally:
        for runner in runners:
            runner.stop()
        for runner in runners:
            runner.join()
    assert [r.error for r in runners] == [None] * len(runners)
    store = views.store
    live = {n: store.dump(namespace(n, store.active_generation(n))) for n in PROJECTIONS}
    clean = rebuild(store, app, select([]), as_of=end)
    assert {n: store.dump(namespace(n, clean.generation)) for n in PROJECTIONS} == live
    board = queries.scoreboard(game_id)
    assert board is not None
    assert [p["points"] for p in board["players"]] == app.state(game_id).scores
    app.close()


def test_pages_read_ahead_are_the_logs_pages_wherever_the_next_is_asked_from(
    pg_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebuild over PostgreSQL reads the next page while it projects one
    (``ReadAhead``, in a thread of its own); each page it hands out is the
    page read when asked, also when the next is asked from another position
    than the last page's end (a rebuild reading on after a row it cannot
    decode). Over SQLite every page is read when asked."""
    readers: list[str] = []

    def read(*args: Any) -> Any:
        readers.append(threading.current_thread().name)
        return read_rows(*args)

    monkeypatch.setattr(rebuild_module, "read_rows", read)
    app = Opus(env=pg_env)
    try:
        play_game(app, 3, "greedy", random.Random(2))
        end = app.recorder.max_notification_id() or 0
        with ReadAhead(app, 9, end, []) as pages:
            position, served, short = 0, 0, 0
            while position < end:
                rows, text_ids = pages.after(position)
                assert (rows, text_ids) == read_rows(app, position, 9, end, [])
                served += 1
                short += rows[-1][0] < end  # a page the log goes on after
                # every third page is asked for from a row inside the one before
                position = rows[len(rows) // 2][0] if served % 3 == 0 else rows[-1][0]
        ahead = [name for name in readers if name.startswith("opus-read-ahead")]
        assert served > 9 and len(ahead) == short  # the next page after each, read ahead
        assert len(readers) - len(ahead) == 1 + served // 3  # the first, and each asked elsewhere
    finally:
        app.close()
    readers.clear()
    sqlite = Opus(
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}
    )
    try:
        play_game(sqlite, 2, "greedy", random.Random(3))
        end = sqlite.recorder.max_notification_id() or 0
        with ReadAhead(sqlite, 9, end, []) as pages:
            position = 0
            while position < end:
                position = pages.after(position)[0][-1][0]
        assert readers and set(readers) == {threading.current_thread().name}
    finally:
        sqlite.close()


def test_a_runner_keeps_a_small_pool_unless_told(pg_env: dict[str, str], tmp_path: Path) -> None:
    """A runner's application holds two connections to PostgreSQL (its
    subscription's and its reads'), not the library's five, and opens two
    more at most; POSTGRES_POOL_SIZE and POSTGRES_MAX_OVERFLOW say otherwise."""
    views = {"OPUS_VIEWS_DBNAME": str(tmp_path / "views.db")}
    app = Opus(env=pg_env)
    end = app.join(app.create_game(), "Ada").position
    app.close()
    for overrides, sizes in (({}, (2, 4)), ({"POSTGRES_POOL_SIZE": "3"}, (3, 5))):
        settings = Settings.from_env({**pg_env, **overrides}, overrides=views)
        runner = projection_runner(settings, PROJECTIONS["table"]).start()
        try:
            runner.wait(end, timeout=20)
            pool = runner.feeds[0].app.recorder.datastore.pool  # type: ignore[union-attr]
            assert (pool.min_size, pool.max_size) == sizes
        finally:
            runner.stop()
            runner.join(10)
            runner.store.close()
