"""The read side of a sharded event store: two shards, each an ``Opus`` on
a SQLite file of its own (the accounts on shard 0, the home shard), games
and a tournament on each, games rated across shards.

Every view is the same byte for byte whether a live runner followed the
two logs, a rebuild read them one after the other, or their events were
fed in other interleavings (a shard's whole log before the other's, or
both in batches of random sizes); ``?after=`` of a shard-1 position waits
for shard 1; and a runner goes on projecting one shard while the other is
unreachable, then catches that one up. On SQLite views and Redis views.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from json import loads
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from domain.application import Opus
from domain.bots import BOTS
from domain.pipeline import Caller
from domain.sharding import position_of, upstream_name
from domain.simulation import simulate_tournament
from infra.bootstrap import SUBSCRIBABLE_SQLITE_RECORDER
from projections.base import EventDecoder, ViewProjection, read_rows
from projections.ports import namespace
from projections.queries import Queries
from projections.ratings import RatingsView
from projections.rebuild import rebuild
from projections.registry import PROJECTIONS
from projections.runner import ProjectionRunner, project_batch
from projections.view import View
from projections.view_check import verify_views
from tests.conftest import ViewsUnderTest, opener
from tests.private_servers import PostgresServer, private_postgres

TOKEN = "7" * 64  # a seat no account holds, playing on both shards
ADOPTED = "5" * 64  # a token that sits on shard 1 before Dee adopts it, and after


@dataclass
class Shards:
    apps: list[Opus]
    envs: list[dict[str, str]]
    holders: dict[str, str] = field(default_factory=dict)
    accounts: dict[str, UUID] = field(default_factory=dict)
    games: dict[str, UUID] = field(default_factory=dict)

    def heads(self) -> list[int]:
        return [app.recorder.max_notification_id() or 0 for app in self.apps]


def shard_env(tmp_path: Path, shard: int) -> dict[str, str]:
    return {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / f"shard{shard}.db"),
        "APPLICATION_RECORDER_TOPIC": SUBSCRIBABLE_SQLITE_RECORDER,
    }


def play(app: Opus, seats: list[str], names: list[str], seed: int) -> UUID:
    """A whole game of greedy bots, each seat moved by its token hash."""
    game = app.create_game(secret=seed.to_bytes(32, "big"))
    for digest, name in zip(seats, names, strict=True):
        app.join(game, name, caller=Caller(digest))
    app.start(game)
    choose = BOTS["greedy"](random.Random(seed))
    while (state := app.state(game)).status == "running":
        app.play(game, choose(state, state.turn), caller=Caller(seats[state.turn]))
    return game


def fill(shards: Shards) -> None:
    """Accounts on the home shard; then games on both shards in turn (each
    ends after the one before, so the order across shards interleaves them),
    a token playing under another name on each, a token that sits on shard 1
    before its adoption and after; a tournament on each shard."""
    home, other = shards.apps
    for name in ("Ann", "Ben", "Cat", "Dee"):
        shards.accounts[name] = home.accounts.open(name).account
        shards.holders[name] = home.accounts.view(shards.accounts[name]).holder_hash
    h = shards.holders
    shards.games["before"] = play(other, [ADOPTED, h["Cat"]], ["Eve", "Cat"], 1)
    home.accounts.adopt(shards.accounts["Dee"], [ADOPTED])
    plan = [
        (home, [h["Ann"], h["Ben"]], ["Ann", "Ben"]),
        (other, [h["Ben"], h["Cat"], TOKEN], ["Ben", "Cat", "Tom"]),
        (home, [h["Cat"], h["Ann"]], ["Cat", "Ann"]),
        (other, [ADOPTED, h["Ann"]], ["Dee", "Ann"]),
        (home, [TOKEN, h["Ben"], h["Dee"]], ["Thomas", "Ben", "Dee"]),
        (other, [h["Ann"], h["Cat"]], ["Ann", "Cat"]),
    ]
    for n, (app, seats, names) in enumerate(plan, start=2):
        shards.games[f"game{n}"] = play(app, seats, names, n)
    for shard, app in enumerate(shards.apps):
        simulate_tournament(app, players=4, rounds=1, seed=10 + shard)


@pytest.fixture
def shards(tmp_path: Path) -> Iterator[Shards]:
    envs = [shard_env(tmp_path, k) for k in range(2)]
    built = Shards([Opus(env=env) for env in envs], envs)
    fill(built)
    yield built
    for app in built.apps:
        app.close()


def dumps(store: Any, generation: str | None = None) -> dict[str, Any]:
    """Every view of a generation (each projection's active one when None)."""
    return {
        name: store.dump(namespace(name, generation or store.active_generation(name)))
        for name in PROJECTIONS
    }


def rows_of_shard(app: Opus) -> tuple[list[Any], list[Any], list[int]]:
    """A shard's whole log: its rows, decoded, and their positions."""
    rows, text_ids = read_rows(app, 0, 1_000_000, app.recorder.max_notification_id() or 0, [])
    events, error = EventDecoder(app.mapper).decode(rows, text_ids=text_ids)
    assert error is None
    return rows, events, [row[0] for row in rows]


def feed(
    store: Any, shards: Shards, generation: str, runs: list[tuple[int, int]]
) -> dict[str, Any]:
    """Every projection fed the shards' events in ``runs``: (shard, how
    many of its next events), each run one batch through the same views,
    as a runner would; the views it made."""
    logs = [rows_of_shard(app) for app in shards.apps]
    projections: list[ViewProjection] = [
        cls(View(store, name, generation, shards=2)) for name, cls in PROJECTIONS.items()
    ]
    done = [0, 0]
    for shard, count in runs:
        rows, events, positions = logs[shard]
        start, end = done[shard], min(done[shard] + count, len(rows))
        if start == end:
            continue
        for projection in projections:
            project_batch(
                projection,
                rows[start:end],
                events[start:end],
                None,
                positions[start:end],
                shard,
            )
        done[shard] = end
    return dumps(store, generation)


def home_prefix(shards: Shards) -> int:
    """How many of the home shard's events come before its first game's:
    the accounts' (a runner projects the home shard's waiting events first)."""
    _, events, _ = rows_of_shard(shards.apps[0])
    return next(i for i, (_, kind, _, _) in enumerate(events) if kind == "GameCreated")


def test_views_equal_a_rebuild_whatever_order_the_shards_are_fed_in(
    shards: Shards, views: ViewsUnderTest, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = views.store
    rated_again: list[str] = []
    original = RatingsView._rate_again

    def counted(self: RatingsView, tx: Any, late: list[Any]) -> None:
        rated_again.extend(rated.game for _, rated in late)
        original(self, tx, late)

    monkeypatch.setattr(RatingsView, "_rate_again", counted)
    rebuild(store, shards.apps, list(PROJECTIONS.values()))
    rebuilt = dumps(store)
    lengths = [len(rows_of_shard(app)[0]) for app in shards.apps]
    prefix = home_prefix(shards)
    # the home shard's accounts, then shard 1 whole, then the rest of shard 0
    other_first = feed(store, shards, "other", [(0, prefix), (1, lengths[1]), (0, lengths[0])])
    # shard 0's games, fed last, ended between shard 1's: rated again from them
    assert str(shards.games["game2"]) in rated_again
    rng = random.Random(5)
    runs = [(0, prefix)]
    while sum(count for _, count in runs) < 3 * sum(lengths):
        runs.append((len(runs) % 2, rng.randint(1, 40)))
    interleaved = feed(store, shards, "mixed", runs)
    for name in PROJECTIONS:
        assert other_first[name] == rebuilt[name], name
        assert interleaved[name] == rebuilt[name], name
    # both logs are tracked, each under its shard's name
    heads = shards.heads()
    assert rebuilt["table"]["tracking"] == {upstream_name(0): heads[0], upstream_name(1): heads[1]}


def test_what_the_order_across_shards_decides(shards: Shards, views: ViewsUnderTest) -> None:
    rebuild(views.store, shards.apps, list(PROJECTIONS.values()))
    queries = Queries(views.store, shards=2)
    ids = {str(v): k for k, v in shards.accounts.items()}
    rated = [g["game"] for g in queries.ratings_record()["games"]]
    # every game with two accounts or more, in the order they ended across
    # shards; not "before": its token was not Dee's yet (she adopted it later)
    expected = ["game2", "game3", "game4", "game5", "game6", "game7"]
    assert rated == [str(shards.games[n]) for n in expected]
    dee = queries.account(shards.accounts["Dee"])
    assert dee is not None
    assert [g["game"] for g in dee["games"]] == [str(shards.games[n]) for n in ("game5", "game6")]
    ann = queries.account(shards.accounts["Ann"])
    assert ann is not None
    assert [g["game"] for g in ann["games"]] == [
        str(shards.games[n]) for n in ("game2", "game4", "game5", "game7")
    ]
    # the token's row shows the name of the last game it ended, on either shard
    rows = {row["name"]: row for row in queries.leaderboard()}
    assert "Thomas" in rows and "Tom" not in rows
    # the last games to end, across both shards, in the order they ended
    ended = [g["game"] for g in queries.lobby()["ended"]]
    assert ended.index(str(shards.games["game7"])) < ended.index(str(shards.games["game6"]))
    assert {p["account"] for p in queries.ratings()["players"]} == set(ids)


def test_an_account_seated_twice_keeps_its_games_and_their_order_when_a_seat_is_removed(
    shards: Shards, views: ViewsUnderTest
) -> None:
    """Dee sits twice at a lobby table on shard 1 (her own seat and a token
    she adopted); the first is removed before the start: the game stays hers
    under her other seat, and her list keeps one order key per game."""
    other = shards.apps[1]
    game = other.create_game(secret=b"\x09" * 32)
    other.join(game, "Dee's guest", caller=Caller(ADOPTED))
    other.join(game, "Dee", caller=Caller(shards.holders["Dee"]))
    other.remove_seat(game, 0)
    rebuild(views.store, shards.apps, list(PROJECTIONS.values()))
    dee = Queries(views.store, shards=2).account(shards.accounts["Dee"])
    assert dee is not None
    listed = {g["game"]: g["seat"] for g in dee["games"]}
    assert listed[str(game)] == 0
    account = shards.accounts["Dee"]
    stored = views.store.dump(namespace("accounts", views.store.active_generation("accounts")))
    games, keys = loads(stored[f"doc games:{account}"]), loads(stored[f"doc games:{account}@order"])
    assert len(games) == len(keys) == len(dee["games"])


def test_a_live_runner_of_two_shards_equals_a_rebuild(
    shards: Shards, views: ViewsUnderTest
) -> None:
    store = views.store
    runner = ProjectionRunner(
        list(PROJECTIONS.values()), store, [opener(env) for env in shards.envs]
    )
    with runner:
        runner.wait_heads(shards.heads(), timeout=60)
        # a game played on shard 1 while the runner follows both
        game = play(shards.apps[1], [shards.holders["Ben"], shards.holders["Dee"]], ["B", "D"], 40)
        runner.wait_heads(shards.heads(), timeout=30)
    live = dumps(store)
    heads = shards.heads()
    done = rebuild(store, shards.apps, list(PROJECTIONS.values()), as_of=heads)
    assert done.generation == f"asof{heads[0]}-{heads[1]}"
    assert done.positions == tuple(heads)
    clean = dumps(store, done.generation)
    for name in PROJECTIONS:
        assert live[name] == clean[name], name
    assert Queries(store, shards=2).table_view(game) is not None


def test_verify_compares_each_view_with_a_rebuild_as_of_every_shard(
    shards: Shards, views: ViewsUnderTest
) -> None:
    rebuild(views.store, shards.apps, list(PROJECTIONS.values()))
    verdicts = verify_views(views.store, shards.apps)
    assert all(v.ok for v in verdicts), [v.line() for v in verdicts]
    heads = shards.heads()
    assert verdicts[0].line() == (
        f"ok   view table at {heads[0]} of shard 0, {heads[1]} of shard 1 equals a rebuild"
    )
    play(shards.apps[1], [shards.holders["Ann"], TOKEN], ["Ann", "Tom"], 60)
    behind = verify_views(views.store, shards.apps)[0]
    assert not behind.ok and "behind the log by" in behind.reason
    assert f"{shards.heads()[1]} of shard 1" in behind.reason


def test_after_a_shard_1_position_waits_for_shard_1(shards: Shards, views: ViewsUnderTest) -> None:
    store = views.store
    heads = shards.heads()
    lengths = [len(rows_of_shard(app)[0]) for app in shards.apps]
    feed(store, shards, "g0", [(0, lengths[0])])  # shard 0 only
    queries = Queries(store, shards=2)
    on_shard_0 = position_of(0, heads[0], 2)
    on_shard_1 = position_of(1, 1, 2)  # shard 1's first event
    assert on_shard_1 < on_shard_0
    queries.wait_for("table", on_shard_0, timeout=1)
    with pytest.raises(TimeoutError, match="shard 1"):
        queries.wait_for("table", on_shard_1, timeout=0.2)
    game = shards.games["before"]
    with pytest.raises(TimeoutError):
        queries.table_view(game, after=on_shard_1, timeout=0.2)
    assert queries.lags("table", heads) == {0: 0, 1: heads[1]}
    rebuild(store, shards.apps, [PROJECTIONS["table"]])
    assert queries.table_view(game, after=position_of(1, heads[1], 2), timeout=1) is not None
    assert queries.lags("table", heads) == {0: 0, 1: 0}


def test_the_position_of_one_shard_stays_todays(views: ViewsUnderTest, tmp_path: Path) -> None:
    """One shard: positions, tracking names and generations as before shards."""
    app = Opus(env=shard_env(tmp_path, 0))
    try:
        game = play(app, ["1" * 64, "2" * 64], ["A", "B"], 3)
        head = app.recorder.max_notification_id() or 0
        done = rebuild(views.store, app, [PROJECTIONS["table"]], as_of=head)
    finally:
        app.close()
    assert done.generation == f"asof{head}" and done.position == head
    queries = Queries(views.store)
    table = queries.table_view(game, generation=done.generation, after=head)
    assert table is not None and table["position"] == head
    assert views.store.dump(namespace("table", done.generation))["tracking"] == {"Opus": head}


@pytest.fixture
def postgres() -> Iterator[PostgresServer]:
    with private_postgres() as server:
        yield server


def play_on(env: dict[str, str], seats: list[str], seed: int) -> int:
    """A game played through an application of its own; its log's head."""
    app = Opus(env=env)
    try:
        play(app, seats, [f"Seat {n}" for n in range(len(seats))], seed)
        return app.recorder.max_notification_id() or 0
    finally:
        app.close()


@pytest.mark.parametrize("down", [1, 0], ids=["shard 1 down", "the home shard down"])
def test_a_shard_unreachable_does_not_stop_the_other(
    postgres: PostgresServer, views: ViewsUnderTest, tmp_path: Path, down: int
) -> None:
    """One shard on a private PostgreSQL, killed under the runner (the home
    shard too: the other's events do not wait for it): the other shard's
    events go on being projected; the killed one's are caught up once it is
    back, and the views equal a rebuild."""
    store = views.store
    up = 1 - down
    envs = [shard_env(tmp_path, 0), shard_env(tmp_path, 1)]
    envs[down] = postgres.env
    seats = ["1" * 64, "2" * 64]
    heads = [play_on(envs[0], seats, 1), play_on(envs[1], seats, 2)]
    runner = ProjectionRunner(
        [PROJECTIONS["table"], PROJECTIONS["leaderboard"]],
        store,
        [opener(env) for env in envs],
        check_interval=0.1,
        reconnect_timeout=1.0,  # one shard of two: retried past it all the same
    )
    queries = Queries(store, shards=2)
    with runner:
        runner.wait_heads(heads, timeout=30)
        postgres.kill()
        time.sleep(2.0)  # past the reconnect timeout: the runner goes on
        assert runner.is_running, runner.error
        heads[up] = play_on(envs[up], seats, 3)
        runner.wait(position_of(up, heads[up], 2), timeout=20)
        assert queries.lags("table", heads) == {0: 0, 1: 0}
        postgres.start()
        heads[down] = play_on(envs[down], seats, 4)
        runner.wait(position_of(down, heads[down], 2), timeout=30)
    assert runner.error is None
    apps = [Opus(env=env) for env in envs]
    try:
        done = rebuild(store, apps, [PROJECTIONS["table"], PROJECTIONS["leaderboard"]], as_of=heads)
    finally:
        for app in apps:
            app.close()
    for name in ("table", "leaderboard"):
        live = store.dump(namespace(name, store.active_generation(name)))
        assert live == store.dump(namespace(name, done.generation)), name
