"""The read side on real stores: every projection, on SQLite views and on
Redis views, with the same test code (the ``views`` fixture).

Events go to a fresh SQLite file per test; the game's own state (the write
model) is the oracle the views are checked against.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.persistence import Tracking

from domain.application import Opus
from domain.bots import BOTS
from domain.disclosure import own_fields
from domain.events import CardsDrawn, GameEvent, PointsAwarded
from domain.pipeline import Caller
from domain.ruleset import RuleSet
from domain.simulation import NAMES, play_game
from domain.table import public_view
from infra.bootstrap import rebuild_workers
from infra.settings import Settings
from projections.base import EventDecoder, record_of
from projections.ports import (
    DEFAULT_GENERATION,
    Changes,
    Commit,
    ListChange,
    NoSuchItemError,
    TrackingConflictError,
    namespace,
)
from projections.queries import Queries
from projections.rebuild import rebuild
from projections.registry import PROJECTIONS, select
from projections.runner import ProjectionError, ProjectionRunner
from projections.scoreboard import Scoreboard
from projections.view import View
from tests.conftest import REDIS_URL, ViewsUnderTest, open_test_views, opener
from tests.leaks import card_ids
from tests.redis_keys import drop_prefix
from tests.slow_path import decoded, event_of, project_event

EXTRA_TABLE_FIELDS = ("game", "version", "position")


# ---- helpers ----------------------------------------------------------------


def start_game(app: Opus, players: int, seed: int, variant: RuleSet | None = None) -> UUID:
    game_id = app.create_game(variant, secret=seed.to_bytes(32, "big"))
    for name in NAMES[:players]:
        app.join(game_id, name, f"{name}-{seed}")
    app.start(game_id)
    return game_id


def play_moves(app: Opus, game_id: UUID, moves: int, seed: int, bot: str = "greedy") -> int:
    """Up to ``moves`` moves (fewer if the game ends); returns the last position."""
    choose = BOTS[bot](random.Random(seed))
    position = 0
    for _ in range(moves):
        state = app.state(game_id)
        if state.status != "running":
            break
        position = app.play(game_id, choose(state, state.turn)).position
    return position


def logged_events(app: Opus) -> list[tuple[int, Any]]:
    """Every (position, event) of the log, decoded by the library's mapper."""
    notifications = app.recorder.select_notifications(0, 1_000_000)
    return [(n.id, app.mapper.to_domain_event(n)) for n in notifications]


def last_position(app: Opus) -> int:
    return app.recorder.max_notification_id() or 0


def table_without_extras(view: dict[str, Any] | None) -> dict[str, Any]:
    assert view is not None
    return {k: v for k, v in view.items() if k not in EXTRA_TABLE_FIELDS}


def games_of(app: Opus) -> list[UUID]:
    seen: dict[UUID, None] = {}
    for _, event in logged_events(app):
        seen.setdefault(event.originator_id)
    return list(seen)


def assert_views_match_the_games(app: Opus, queries: Queries) -> None:
    """Every view of every game equals what the write model says."""
    events = logged_events(app)
    ended_states = []
    for game_id in games_of(app):
        state = app.state(game_id)
        version = app.version(game_id)
        table = queries.table_view(game_id)
        assert table_without_extras(table) == public_view(state)
        assert table is not None and table["version"] == version
        for seat in range(state.players):
            assert queries.hand(game_id, seat) == (state.hands[seat] if state.hands else None)
        awards = [
            (position, e)
            for position, e in events
            if e.originator_id == game_id and isinstance(e, PointsAwarded)
        ]
        board = queries.scoreboard(game_id)
        assert board is not None
        assert [p["name"] for p in board["players"]] == state.names
        assert [p["points"] for p in board["players"]] == (state.scores or [0] * state.players)
        provenance = [
            (a["position"], a["seat"], a["points"], a["rule"], a["cause"], a["cause_version"])
            for p in board["players"]
            for a in p["awards"]
        ]
        expected = [
            (pos, e.player, e.points, e.rule, e.cause, e.cause_version) for pos, e in awards
        ]
        assert sorted(provenance) == expected
        log = queries.move_log(game_id)
        game_events = [e for _, e in events if e.originator_id == game_id]
        assert [entry["event"] for entry in log] == [type(e).__name__ for e in game_events]
        assert [entry["version"] for entry in log] == list(range(1, version + 1))
        assert queries.move_log(game_id, since=version - 2) == log[-2:]
        if state.status == "ended":
            ended_states.append(state)
    games, wins, points = Counter[str](), Counter[str](), Counter[str]()
    for state in ended_states:
        for seat, name in enumerate(state.names):
            games[name] += 1
            points[name] += state.scores[seat]
            wins[name] += seat in state.winners
    board = {row["name"]: row for row in queries.leaderboard()}
    assert {n: (r["games"], r["wins"], r["points"]) for n, r in board.items()} == {
        n: (games[n], wins[n], points[n]) for n in games
    }


def dumps(views: ViewsUnderTest, generation: str | None = None) -> dict[str, Any]:
    """Every projection's stored values, byte for byte, by projection."""
    store = views.store
    return {
        name: store.dump(namespace(name, generation or store.active_generation(name)))
        for name in PROJECTIONS
    }


def without_tracking(dump: dict[str, Any]) -> dict[str, Any]:
    return {name: {k: v for k, v in d.items() if k != "tracking"} for name, d in dump.items()}


@pytest.fixture
def app(events_env: dict[str, str]) -> Any:
    application = Opus(env=events_env)
    yield application
    application.close()


def run_all(views: ViewsUnderTest, env: dict[str, str]) -> list[ProjectionRunner]:
    """Every projection on one subscription, as ``opus project`` runs them."""
    return [ProjectionRunner(list(PROJECTIONS.values()), views.store, opener(env)).start()]


def stop_all(runners: list[ProjectionRunner]) -> None:
    for runner in runners:
        runner.stop()
    for runner in runners:
        runner.join()
        assert runner.error is None, runner.error


def wait_all(runners: list[ProjectionRunner], position: int) -> None:
    for runner in runners:
        runner.wait(position, timeout=20)


# ---- every projection ----------------------------------------------------------


def test_every_view_matches_the_write_model_after_a_rebuild(
    app: Opus, views: ViewsUnderTest
) -> None:
    """Ended games of 2 to 6 players, each variant, and games in progress:
    table, hands, scoreboard with provenance, move log and leaderboard."""
    rng = random.Random(3)
    play_game(app, 2, "random", rng, secret=b"\x01" * 32)
    play_game(app, 4, "greedy", rng, RuleSet(draw="one"), secret=b"\x02" * 32)
    play_game(app, 3, "greedy", rng, RuleSet(guild=False), secret=b"\x03" * 32)
    play_game(app, 6, "greedy", rng, secret=b"\x04" * 32)
    running = start_game(app, 4, 5)
    play_moves(app, running, 30, seed=5)
    open_game = app.create_game()
    app.join(open_game, "Ada")
    done = rebuild(views.store, app, select([]))
    assert done.position == last_position(app)
    assert_views_match_the_games(app, Queries(views.store))


def test_runners_follow_the_log_live_and_queries_read_their_own_writes(
    app: Opus, events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    queries = Queries(views.store)
    runners = run_all(views, events_env)
    try:
        game_id = start_game(app, 3, 11)
        choose = BOTS["greedy"](random.Random(11))
        for _ in range(25):
            state = app.state(game_id)
            outcome = app.play(game_id, choose(state, state.turn))
            # the view already reflects the move: no sleep, a bounded wait
            table = queries.table_view(game_id, after=outcome.position, timeout=5)
            assert table is not None and table["position"] >= outcome.position
            assert table_without_extras(table) == public_view(app.state(game_id))
            seat = app.state(game_id).turn
            hand = queries.hand(game_id, seat, after=outcome.position)
            assert hand == app.state(game_id).hands[seat]
        wait_all(runners, last_position(app))
        assert_views_match_the_games(app, queries)
    finally:
        stop_all(runners)


def test_wait_for_is_bounded(app: Opus, views: ViewsUnderTest) -> None:
    queries = Queries(views.store)
    started = time.monotonic()
    with pytest.raises(TimeoutError, match="table is at position None, not yet 5"):
        queries.wait_for("table", 5, timeout=0.2)
    assert time.monotonic() - started < 1
    assert queries.table_view(UUID(int=1)) is None
    assert queries.scoreboard(UUID(int=1)) is None
    assert queries.move_log(UUID(int=1)) == []
    assert queries.leaderboard() == []


# ---- rebuild, blue/green, time travel --------------------------------------------


def test_a_rebuild_from_zero_gives_byte_identical_views_to_the_live_ones(
    app: Opus, events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    runners = run_all(views, events_env)
    try:
        rng = random.Random(21)
        for i in range(4):
            play_game(app, 2 + i, "greedy", rng, secret=bytes([i + 10]) * 32)
        running = start_game(app, 3, 22)
        play_moves(app, running, 20, seed=22)
        wait_all(runners, last_position(app))
    finally:
        stop_all(runners)
    live = dumps(views)
    end = last_position(app)
    rebuilt = rebuild(views.store, app, select([]), as_of=end)
    assert rebuilt.generation == f"asof{end}"
    fresh = dumps(views, rebuilt.generation)
    assert fresh == live  # every document, list item and score, and the positions
    assert all(d["tracking"] == {"Opus": end} for d in live.values())
    assert len(live["table"]) >= 10 and len(live["move_log"]) >= 5


def test_one_runner_brings_views_at_different_positions_to_the_same_bytes(
    app: Opus, events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    """A shared subscription starts at the lowest view's position; a view
    ahead skips what it holds, each commits its own position."""
    game_id = start_game(app, 4, 31)
    play_moves(app, game_id, 15, seed=31)
    with ProjectionRunner(Scoreboard, views.store, opener(events_env)) as ahead:
        ahead.wait(last_position(app), timeout=20)
    play_moves(app, game_id, 15, seed=32)
    with ProjectionRunner(
        [PROJECTIONS["table"], PROJECTIONS["move_log"]], views.store, opener(events_env)
    ) as behind:
        behind.wait(last_position(app), timeout=20)
    play_moves(app, game_id, 15, seed=33)
    queries = Queries(views.store)
    assert queries.position("scoreboard") < queries.position("table") < last_position(app)
    runner = run_all(views, events_env)[0]
    try:
        runner.wait(last_position(app), timeout=20)
        assert sorted(runner.views) == sorted(PROJECTIONS)
    finally:
        stop_all([runner])
    end = last_position(app)
    live = dumps(views)
    rebuilt = rebuild(views.store, app, select([]), as_of=end)
    assert dumps(views, rebuilt.generation) == live
    assert all(d["tracking"] == {"Opus": end} for d in live.values())


def test_an_undecodable_event_fails_only_the_views_that_need_it(
    app: Opus, events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    """One runner, two views: the scoreboard holds the event that cannot be
    decoded, the table does not. The failure names the table and the
    event's position; the table has everything before it."""
    game_id = start_game(app, 3, 71)
    play_moves(app, game_id, 10, seed=71)
    with ProjectionRunner(Scoreboard, views.store, opener(events_env)) as ahead:
        ahead.wait(last_position(app), timeout=20)
    broken = last_position(app) - 5
    with sqlite3.connect(events_env["SQLITE_DBNAME"]) as db:
        table = app.recorder.events_table_name  # type: ignore[attr-defined]
        db.execute(f"UPDATE {table} SET state = ? WHERE rowid = ?", (b"not json", broken))
    runner = ProjectionRunner(
        [Scoreboard, PROJECTIONS["table"]], views.store, opener(events_env)
    ).start()
    with pytest.raises(ProjectionError) as raised:
        runner.run_forever(timeout=20)
    assert f"projection table failed at position {broken}: " in str(raised.value)
    queries = Queries(views.store)
    assert queries.position("table") == broken - 1
    assert queries.position("scoreboard") == last_position(app)


def test_a_rebuild_in_worker_processes_gives_the_same_bytes(
    app: Opus, events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    rng = random.Random(25)
    for i in range(2):
        play_game(app, 3, "greedy", rng, secret=bytes([i + 30]) * 32)
    one = rebuild(views.store, app, select([]))
    single = dumps(views)
    shared = rebuild_workers(Settings.from_env({**events_env, **views.env}), 2)
    two = rebuild(views.store, app, select([]), blue_green=True, workers=shared)
    assert two.position == one.position and two.generation != DEFAULT_GENERATION
    assert dumps(views) == single


def test_blue_green_swaps_generations_under_a_live_runner(
    app: Opus, events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    store = views.store
    queries = Queries(store)
    runners = run_all(views, events_env)
    try:
        game_id = start_game(app, 2, 31)
        play_moves(app, game_id, 10, seed=31)
        wait_all(runners, last_position(app))
        before = without_tracking(dumps(views))
        done = rebuild(store, app, select([]), blue_green=True)
        assert all(store.active_generation(n) == done.generation for n in PROJECTIONS)
        assert done.generation != DEFAULT_GENERATION
        assert namespace("table", DEFAULT_GENERATION) not in store.namespaces()
        assert without_tracking(dumps(views)) == before
        # the runners notice the swap at their next commit and write the new generation
        position = play_moves(app, game_id, 10, seed=32)
        table = queries.table_view(game_id, after=position, timeout=10)
        assert table_without_extras(table) == public_view(app.state(game_id))
        wait_all(runners, last_position(app))
        assert_views_match_the_games(app, queries)
    finally:
        stop_all(runners)
    assert set(store.namespaces()) == {namespace(n, done.generation) for n in PROJECTIONS}


def test_as_of_a_position_gives_the_views_as_they_stood_then(
    app: Opus, views: ViewsUnderTest
) -> None:
    game_id = start_game(app, 3, 41)
    play_moves(app, game_id, 12, seed=41)
    middle_version = app.version(game_id)
    middle = last_position(app)
    play_moves(app, game_id, 12, seed=42)
    rebuild(views.store, app, select([]))
    then = rebuild(views.store, app, select(["table", "scoreboard"]), as_of=middle)
    queries = Queries(views.store)
    past_game = app.repository.get(game_id, version=middle_version)
    past = queries.table_view(game_id, generation=then.generation)
    assert table_without_extras(past) == public_view(past_game.state)
    assert past is not None and past["position"] == middle
    now = queries.table_view(game_id)
    assert table_without_extras(now) == public_view(app.state(game_id))
    assert now != past
    assert queries.position("table", generation=then.generation) == middle
    assert queries.position("table") == last_position(app)


# ---- exactly once ---------------------------------------------------------------


def test_an_event_at_or_below_the_tracked_position_is_skipped(
    app: Opus, views: ViewsUnderTest
) -> None:
    game_id = start_game(app, 2, 51)
    play_moves(app, game_id, 15, seed=51)
    decode = app.mapper.to_domain_event
    notifications = app.recorder.select_notifications(0, 10_000)
    projection = Scoreboard(View(views.store, "scoreboard"))
    for n in notifications:  # one transaction per event
        project_event(projection, decode(n), Tracking("Opus", n.id))
    once = views.store.dump(namespace("scoreboard", DEFAULT_GENERATION))
    again = Scoreboard(View(views.store, "scoreboard"))
    with again.view.batch():  # replayed in a batch, and one by one
        for n in notifications:
            project_event(again, decode(n), Tracking("Opus", n.id))
    for n in notifications[-3:]:
        project_event(again, decode(n), Tracking("Opus", n.id))
    assert views.store.dump(namespace("scoreboard", DEFAULT_GENERATION)) == once
    awards = Queries(views.store).scoreboard(game_id)
    assert awards is not None
    assert sum(len(p["awards"]) for p in awards["players"]) == sum(
        isinstance(e, PointsAwarded) for _, e in logged_events(app)
    )


def test_a_commit_built_on_a_stale_position_is_refused_and_writes_nothing(
    views: ViewsUnderTest,
) -> None:
    store, ns = views.store, namespace("scoreboard", DEFAULT_GENERATION)
    store.commit(ns, Changes(docs={"a": '"1"'}), "Opus", None, 1)
    with pytest.raises(TrackingConflictError, match="at position 1, not None"):
        store.commit(ns, Changes(docs={"a": '"2"', "b": '"2"'}), "Opus", None, 2)
    store.activate("scoreboard", "g9")
    with pytest.raises(TrackingConflictError, match="now reads generation g9"):
        store.commit(ns, Changes(docs={"a": '"3"'}), "Opus", 1, 3, ("scoreboard", "g0"))
    assert store.dump(ns) == {"doc a": '"1"', "tracking": {"Opus": 1}}


def test_a_commit_writes_every_kind_of_change_in_its_order(views: ViewsUnderTest) -> None:
    """Documents set and deleted; a list emptied, appended to, its items
    replaced after the appends (new ones and stored ones); sorted-set
    members removed before the increments."""
    store, ns = views.store, namespace("move_log", DEFAULT_GENERATION)
    store.commit(
        ns,
        Changes(
            docs={"a": '"1"', "gone": '"x"'},
            lists={"l": ListChange(appended=['"0"', '"1"', '"2"'])},
            zsets={"z": {"m": 3, "n": 1}},
        ),
        "Opus",
        None,
        1,
    )
    store.commit(
        ns,
        Changes(
            docs={"a": '"2"', "gone": None},
            lists={
                "l": ListChange(appended=['"3"', '"4"'], replaced={0: '"zero"', 4: '"four"'}),
                "fresh": ListChange(appended=['"a"'], cleared=True),
            },
            zsets={"z": {"m": 2, "o": 5}},
            zset_removed={"z": {"n"}},
        ),
        "Opus",
        1,
        2,
    )
    assert store.dump(ns) == {
        "doc a": '"2"',
        "list fresh": ['"a"'],
        "list l": ['"zero"', '"1"', '"2"', '"3"', '"four"'],
        "zset z": {"m": 5, "o": 5},
        "tracking": {"Opus": 2},
    }
    store.commit(ns, Changes(lists={"l": ListChange(appended=['"b"'], cleared=True)}), "Opus", 2, 3)
    assert store.items(ns, "l") == ['"b"']
    # a list and a document read together: each as read alone, absent as absent
    store.commit(ns, Changes(lists={"l": ListChange(appended=['"c"', '"d"'])}), "Opus", 3, 4)
    assert store.items_and_doc(ns, "l", 1, "a") == (['"c"', '"d"'], '"2"')
    assert store.items_and_doc(ns, "l", 0, "none") == (['"b"', '"c"', '"d"'], None)
    assert store.items_and_doc(ns, "none", 0, "a") == ([], '"2"')


def test_a_commit_whose_other_shards_moved_or_that_replaces_no_item_writes_nothing(
    views: ViewsUnderTest,
) -> None:
    store, ns = views.store, namespace("table", DEFAULT_GENERATION)
    store.commit(ns, Changes(lists={"l": ListChange(appended=['"0"'])}), "Opus", None, 1)
    store.commit(ns, Changes(), "Opus/shard/1", None, 7)
    before = store.dump(ns)
    with pytest.raises(TrackingConflictError, match="Opus/shard/1 is at position 7, not 6"):
        store.commit(ns, Changes(docs={"a": '"1"'}), "Opus", 1, 2, holds={"Opus/shard/1": 6})
    with pytest.raises(NoSuchItemError, match="l has no item 2 to replace"):
        store.commit(
            ns,
            Changes(
                docs={"a": '"1"'}, lists={"l": ListChange(appended=['"1"'], replaced={2: '"x"'})}
            ),
            "Opus",
            1,
            2,
        )
    assert store.dump(ns) == before
    store.commit(ns, Changes(docs={"a": '"1"'}), "Opus", 1, 2, holds={"Opus/shard/1": 7})
    assert store.get(ns, "a") == '"1"'


def test_commits_made_at_once_each_stand_or_fail_on_their_own(views: ViewsUnderTest) -> None:
    """``commit_many`` (a live runner's views after each run): what each
    commit raised or None, in order; the refused write nothing."""
    store = views.store
    a, b, c = (namespace(p, DEFAULT_GENERATION) for p in ("table", "hands", "seats"))
    store.commit(b, Changes(docs={"x": '"b0"'}), "Opus", None, 4)
    outcomes = store.commit_many(
        [
            Commit(a, Changes(docs={"x": '"a1"'}), "Opus", None, 5),
            Commit(b, Changes(docs={"x": '"b1"'}), "Opus", None, 5),  # b is at 4
            Commit(c, Changes(lists={"l": ListChange(replaced={3: '"c"'})}), "Opus", None, 5),
        ]
    )
    assert outcomes[0] is None
    assert isinstance(outcomes[1], TrackingConflictError)
    assert "at position 4, not None" in str(outcomes[1])
    assert isinstance(outcomes[2], NoSuchItemError)
    assert store.dump(a) == {"doc x": '"a1"', "tracking": {"Opus": 5}}
    assert store.dump(b) == {"doc x": '"b0"', "tracking": {"Opus": 4}}
    assert store.dump(c) == {"tracking": {}}


def test_commits_at_once_after_redis_forgot_the_script(tmp_path: Path) -> None:
    views = open_test_views("redis", tmp_path)
    try:
        store = views.store
        store.redis.script_flush()
        ns = [namespace(p, DEFAULT_GENERATION) for p in ("table", "hands")]
        outcomes = store.commit_many(
            [Commit(n, Changes(docs={"x": f'"{n}"'}), "Opus", None, 1) for n in ns]
        )
        assert outcomes == [None, None]
        assert [store.get(n, "x") for n in ns] == [f'"{n}"' for n in ns]
    finally:
        drop_prefix(REDIS_URL, views.env["OPUS_REDIS_PREFIX"])
        views.store.close()


def test_a_live_runner_commits_its_views_at_once_after_each_run(
    app: Opus, events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    """Every view of a run in one ``commit_many``, never a ``commit`` each."""
    calls: list[int] = []
    store = views.store
    many = store.commit_many

    def counted(commits: Any) -> Any:
        calls.append(len(commits))
        return many(commits)

    store.commit_many = counted  # type: ignore[method-assign]
    game_id = start_game(app, 2, 91)
    projections = select(["table", "scoreboard", "move_log", "hands"])
    with ProjectionRunner(projections, store, opener(events_env)) as runner:
        runner.wait(last_position(app), timeout=20)
        play_moves(app, game_id, 6, seed=91)
        runner.wait(last_position(app), timeout=20)
    assert calls and max(calls) == 4  # the four views' commits of one run together
    board = Queries(store).scoreboard(game_id)
    assert board is not None
    assert [p["points"] for p in board["players"]] == app.state(game_id).scores


def test_a_redis_commit_a_command_would_refuse_halfway_writes_nothing(tmp_path: Path) -> None:
    """Redis runs a commit's writes one by one (a script), so a key holding
    another kind of value is found before the first write, not after it."""
    views = open_test_views("redis", tmp_path)
    try:
        store, ns = views.store, namespace("hands", DEFAULT_GENERATION)
        store.commit(ns, Changes(docs={"d": '"1"'}, zsets={"z": {"m": 1}}), "Opus", None, 1)
        before = store.dump(ns)
        for wrong in (
            Changes(zsets={"z": {"m": 1}}, lists={"d": ListChange(appended=['"x"'])}),
            Changes(lists={"l": ListChange(appended=['"x"'])}, docs={"z": '"2"'}),
            Changes(zsets={"d": {"m": 1}}),
        ):
            with pytest.raises(TypeError, match="holds a"):
                store.commit(ns, wrong, "Opus", 1, 2)
            assert store.dump(ns) == before
        # a list emptied first may take the key's place
        store.commit(ns, Changes(docs={"d": None}, zsets={"z": {"m": 1}}), "Opus", 1, 2)
        assert store.dump(ns) == {"zset z": {"m": 2}, "tracking": {"Opus": 2}}
    finally:
        drop_prefix(REDIS_URL, views.env["OPUS_REDIS_PREFIX"])
        views.store.close()


class Failing(Scoreboard):
    """The scoreboard, broken at one position (a bug in a handler)."""

    name = "scoreboard"  # eventsourcing names a Projection subclass after itself
    fail_at = 0

    def process_events(self, events: list[Any], positions: list[int]) -> None:
        if self.fail_at in positions:
            before = positions.index(self.fail_at)
            super().process_events(events[:before], positions[:before])
            raise RuntimeError("a bug")
        super().process_events(events, positions)


class Refused(Scoreboard):
    """The scoreboard, replacing a list item that is not there (a bug the
    store finds only when the run is committed)."""

    name = "scoreboard"

    def process_events(self, events: list[Any], positions: list[int]) -> None:
        super().process_events(events, positions)
        tx = self.view.batch_tx
        assert tx is not None
        tx.replace("nowhere", 3, '"x"')


def test_a_run_the_store_refuses_for_one_view_stops_the_runner_naming_it_and_the_rest_stand(
    app: Opus, events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    game_id = start_game(app, 2, 93)
    play_moves(app, game_id, 4, seed=93)
    hands = select(["hands"])[0]
    runner = ProjectionRunner([hands, Refused], views.store, opener(events_env)).start()
    with pytest.raises(ProjectionError) as raised:
        runner.run_forever(timeout=20)
    message = str(raised.value)
    assert raised.value.projection == "scoreboard"
    assert "NoSuchItemError" in message and "nowhere has no item 3" in message
    queries = Queries(views.store)
    assert queries.position("scoreboard") is None  # nothing of the refused runs
    assert (queries.position("hands") or 0) >= raised.value.position  # the other view's stand


def test_a_projection_error_stops_its_runner_at_the_failing_position_and_a_restart_resumes(
    app: Opus, events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    game_id = start_game(app, 3, 61)
    play_moves(app, game_id, 20, seed=61)
    Failing.fail_at = last_position(app) - 7
    runner = ProjectionRunner(Failing, views.store, opener(events_env)).start()
    with pytest.raises(ProjectionError) as raised:
        runner.run_forever(timeout=20)
    message = str(raised.value)
    assert f"projection scoreboard failed at position {Failing.fail_at}: " in message
    assert "RuntimeError: a bug" in message and str(game_id) in message
    assert not runner.is_running or runner.join(5) is None
    queries = Queries(views.store)
    assert queries.position("scoreboard") == Failing.fail_at - 1  # the events before it landed
    with ProjectionRunner(Scoreboard, views.store, opener(events_env)) as fixed:
        fixed.wait(last_position(app), timeout=20)
    board = queries.scoreboard(game_id)
    assert board is not None
    assert [p["points"] for p in board["players"]] == app.state(game_id).scores


# ---- hidden information -----------------------------------------------------------


def strings(value: Any) -> str:
    return json.dumps(value)


def test_no_public_view_shows_a_card_in_a_hand_or_the_deck_before_the_game_ends(
    app: Opus, views: ViewsUnderTest
) -> None:
    game_id = start_game(app, 4, 71)
    play_moves(app, game_id, 40, seed=71)
    rebuild(views.store, app, select([]))
    state = app.state(game_id)
    assert state.status == "running"
    # Cards shown in public event fields (the cabinet deal, discards, what
    # Knowledge took...) were seen by all: only the rest is hidden.
    public_fields = [
        e for _, e in logged_events(app) if type(e).__name__ not in ("CardsDealt", "CardsDrawn")
    ]
    seen = card_ids([own_fields(vars(e)) for e in public_fields])
    hidden = (set(state.deck) | {c for hand in state.hands for c in hand}) - seen
    assert len(hidden) > 30, hidden  # the deck and most of the hands
    queries = Queries(views.store)
    public = {
        "table": queries.table_view(game_id),
        "scoreboard": queries.scoreboard(game_id),
        "move log": queries.move_log(game_id),
        "leaderboard": queries.leaderboard(),
    }
    for name, view in public.items():
        assert not card_ids(view) & hidden, f"the {name} shows hidden cards"
        assert state.secret not in strings(view), f"the {name} shows the secret"
        assert '"command"' not in strings(view) and "token_hash" not in strings(view)
    drawn = [e for e in queries.move_log(game_id) if e["event"] == "CardsDrawn"]
    assert drawn and all(set(e) >= {"player", "count"} and "cards" not in e for e in drawn)
    assert all(
        re.fullmatch(r"(Ada|Boris|Chloe|Dmitri) drew [1-5] cards?", e["text"]) for e in drawn
    )
    # and the hands themselves are right, for their owners only
    assert [queries.hand(game_id, s) for s in range(4)] == state.hands

    play_moves(app, game_id, 500, seed=72)  # to the end: GameEnded reveals all
    assert app.state(game_id).status == "ended"
    rebuild(views.store, app, select(["move_log"]))
    log = queries.move_log(game_id)
    events = [e for _, e in logged_events(app) if e.originator_id == game_id]
    draws = [
        (entry["cards"], e.cards)
        for entry, e in zip(log, events, strict=True)
        if isinstance(e, CardsDrawn)
    ]
    assert draws and all(shown == real for shown, real in draws)
    assert log[0]["secret"] == app.state(game_id).secret
    assert log[1]["event"] == "PlayerJoined" and "token_hash" not in log[1]


# ---- the SQLite subscription ------------------------------------------------------


def test_the_sqlite_subscription_wakes_at_once_in_process_and_by_polling_across(
    app: Opus, events_env: dict[str, str]
) -> None:
    start_game(app, 2, 81)
    known = last_position(app)
    reader = Opus(env=events_env)
    received: list[tuple[int, float]] = []
    subscription = reader.recorder.subscribe(gt=known)

    def read() -> None:
        for notification in subscription:
            received.append((notification.id, time.monotonic()))

    thread = threading.Thread(target=read)
    thread.start()
    try:
        written = time.monotonic()
        position = play_moves(app, app.create_game() and games_of(app)[0], 1, seed=81)
        deadline = time.monotonic() + 5
        while (not received or received[-1][0] < position) and time.monotonic() < deadline:
            time.sleep(0.002)
        assert [i for i, _ in received] == list(range(known + 1, position + 1))
        assert received[-1][1] - written < 0.5
    finally:
        subscription.stop()
        thread.join()
        reader.close()


def test_decoding_matches_the_library_mapper(app: Opus) -> None:
    """A record parsed from the stored JSON is the record of the event the
    library's mapper decodes, and makes that event again."""
    game_id = start_game(app, 3, 91)
    play_moves(app, game_id, 30, seed=91)
    decoder = EventDecoder(app.mapper)
    for n in app.recorder.select_notifications(0, 10_000):
        fast, slow = decoded(decoder, n), app.mapper.to_domain_event(n)
        assert fast == record_of(slow)
        cls, kind, key, fields = fast
        assert cls is type(slow) and kind == cls.__name__ and key == str(slow.originator_id)
        again = event_of(cls, fields)
        assert type(again) is type(slow) and vars(again) == vars(slow)
        assert isinstance(slow, GameEvent) or n.originator_version == 1


# ---- the command line --------------------------------------------------------------


def test_opus_rebuild_and_opus_view_on_the_configured_stores(
    app: Opus, events_env: dict[str, str], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from api.cli import main

    game_id = start_game(app, 2, 101)
    middle = play_moves(app, game_id, 8, seed=101)
    play_moves(app, game_id, 8, seed=102)
    for key in ("PERSISTENCE_MODULE", "SQLITE_DBNAME"):
        monkeypatch.setenv(key, events_env[key])
    monkeypatch.delenv("REDIS_URL", raising=False)
    monkeypatch.setenv("OPUS_VIEWS_DBNAME", str(tmp_path / "cli-views.db"))
    cli = CliRunner()

    done = cli.invoke(main, ["rebuild"])
    assert done.exit_code == 0, done.output
    assert f"up to position {last_position(app)}" in done.output
    past = cli.invoke(main, ["rebuild", "table", "--as-of", str(middle)])
    assert past.exit_code == 0 and f"generation asof{middle}" in past.output
    shown = cli.invoke(main, ["view", "table", str(game_id), "--generation", f"asof{middle}"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["position"] == middle
    now = cli.invoke(main, ["view", "table", str(game_id), "--after", str(last_position(app))])
    assert table_without_extras(json.loads(now.output)) == public_view(app.state(game_id))
    swapped = cli.invoke(main, ["rebuild", "--blue-green"])
    assert swapped.exit_code == 0 and "generation g" in swapped.output
    assert json.loads(cli.invoke(main, ["view", "position", "hands"]).output) == last_position(app)
    assert cli.invoke(main, ["view", "hand", str(game_id)]).exit_code == 2  # no --seat
    both = cli.invoke(main, ["rebuild", "--as-of", "3", "--blue-green"])
    assert both.exit_code == 2 and "never swapped in" in both.output


def test_a_seat_removed_before_the_start_moves_every_view_down_live_and_rebuilt(
    app: Opus, events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    """R2.1 (our decision): the live views, event by event, equal a rebuild
    and the write model after a removal, joins around it, and play."""
    runners = run_all(views, events_env)
    try:
        game_id = app.create_game(secret=bytes([7]) * 32)
        for k, name in enumerate(("Ada", "Boris", "Cleo")):
            app.join(game_id, name, caller=Caller(str(k) * 64))
        app.remove_seat(game_id, 1)
        app.join(game_id, "Dmitri", caller=Caller("3" * 64))
        app.remove_seat(game_id, 0)
        app.join(game_id, "Eva", caller=Caller("4" * 64))
        app.start(game_id)
        play_moves(app, game_id, 12, seed=23)
        wait_all(runners, last_position(app))
    finally:
        stop_all(runners)
    state = app.state(game_id)
    assert state.names == ["Cleo", "Dmitri", "Eva"]
    queries = Queries(views.store)
    assert table_without_extras(queries.table_view(game_id)) == public_view(state)
    board = queries.scoreboard(game_id)
    assert board is not None
    assert [(p["seat"], p["name"], p["points"]) for p in board["players"]] == [
        (seat, name, state.scores[seat]) for seat, name in enumerate(state.names)
    ]
    assert queries.seats(game_id) == {"2" * 64: 0, "3" * 64: 1, "4" * 64: 2}
    assert [queries.hand(game_id, s) for s in range(3)] == state.hands
    log = queries.move_log(game_id)
    assert [e["version"] for e in log] == list(range(1, len(log) + 1))
    live = dumps(views)
    end = last_position(app)
    fresh = dumps(views, rebuild(views.store, app, select([]), as_of=end).generation)
    assert fresh == live


def test_a_subclass_overriding_a_handler_has_its_own_called(
    app: Opus, views: ViewsUnderTest
) -> None:
    """Handlers are found by name: an override need not be declared again."""
    awarded: list[int] = []

    class Counting(Scoreboard):
        name = "scoreboard"

        def _awarded(self, kind: str, game: str, p: Any, tx: Any, position: int) -> None:
            awarded.append(position)

    play_moves(app, start_game(app, 2, 81), 20, seed=81)
    rebuild(views.store, app, [Counting])
    points = [
        n.id for n in app.recorder.select_notifications(0, 1000) if "PointsAwarded" in n.topic
    ]
    assert points and awarded == points
