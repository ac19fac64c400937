"""The event store split over shards (infra/shards.py): two databases of the
shared PostgreSQL as two shards, opened from settings alone.

Each aggregate lands where domain/sharding.py places it, with every
aggregate saved in the same call; a call that would cross shards is refused
and saves nothing; a command's position names its shard; a process that has
never seen an aggregate finds it; the log-wide reads are refused on the
router, and each shard's log reads gap-free by itself."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from uuid import UUID

import pytest
from eventsourcing.persistence import StoredEvent

from domain.accounts.aggregate import admission_id, name_id
from domain.application import Opus
from domain.bots import BOTS
from domain.pipeline import Caller
from domain.sharding import position_of, shard_of, shard_position, tournament_shard
from domain.simulation import play_game
from infra.bootstrap import open_application, shard_openers
from infra.settings import Settings, describe_shard
from infra.shards import CrossShardSaveError, ShardedLogError, shard_apps
from tests.settings import connect_test_postgres, test_postgres_env

pytestmark = pytest.mark.postgres
SHARDS = 2


@pytest.fixture
def settings() -> Iterator[Settings]:
    """Settings naming two fresh databases of the shared PostgreSQL as shards."""
    names = [f"opus_shard_{uuid.uuid4().hex[:10]}_{k}" for k in range(SHARDS)]
    base = test_postgres_env()
    with connect_test_postgres() as conn:
        for name in names:
            conn.execute(f'CREATE DATABASE "{name}"')
    host, port = base["POSTGRES_HOST"], base["POSTGRES_PORT"]
    env = {
        "POSTGRES_USER": base["POSTGRES_USER"],
        "POSTGRES_PASSWORD": base["POSTGRES_PASSWORD"],
        "OPUS_SHARDS": ",".join(f"{host}:{port}/{name}" for name in names),
    }
    try:
        yield Settings.from_env(env)
    finally:
        with connect_test_postgres() as conn:
            for name in names:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def app(settings: Settings) -> Iterator[Opus]:
    application = open_application(settings)
    yield application
    application.close()


def on_shard(app: Opus, aggregate_id: UUID) -> list[int]:
    """The shards whose own store holds events of the aggregate."""
    return [
        k for k, shard in enumerate(shard_apps(app)) if shard.recorder.select_events(aggregate_id)
    ]


def test_a_tournament_and_its_games_live_on_its_shard_with_each_result(app: Opus) -> None:
    t = app.tournaments
    tournament = t.create("Sharded", sizes=(4, 4, 4), rounds=1).aggregate_id
    for n in range(8):
        t.register(tournament, f"P{n}", caller=Caller(f"{n:064x}"))
    t.pair(tournament)
    games = [table.game for table in t.get(tournament).state.rounds[-1].tables]
    home = tournament_shard(tournament, SHARDS)
    assert on_shard(app, tournament) == [home]
    for game in games:
        assert on_shard(app, game) == [home]
    # a game played to its end saves its result on the tournament (T5.1): one call, one shard
    state = app.state(games[0])
    choose = BOTS["random"](random.Random(3))
    outcome = None
    while state.status == "running":
        outcome = app.play(games[0], choose(state, state.turn))
        state = app.state(games[0])
    assert outcome is not None and outcome.position is not None
    assert shard_position(outcome.position, SHARDS)[0] == home
    assert games[0] in t.get(tournament).state.results, "the end saved its result (T5.1)"


def test_a_lobby_game_and_its_admission_live_on_its_own_ids_shard(app: Opus) -> None:
    outcomes = [app.create(admission="invitation") for _ in range(8)]
    for outcome in outcomes:
        game = outcome.aggregate_id
        home = shard_of(game, SHARDS)
        assert on_shard(app, game) == [home]
        assert on_shard(app, admission_id(game)) == [home]
        assert outcome.position is not None
        assert shard_position(outcome.position, SHARDS)[0] == home
    assert {shard_of(o.aggregate_id, SHARDS) for o in outcomes} == {0, 1}


def test_accounts_and_their_names_live_on_the_home_shard(app: Opus) -> None:
    opened = [app.accounts.open(f"Alchemist {n}") for n in range(6)]
    bot = app.accounts.bot("greedy")
    for account in [*(o.account for o in opened), bot]:
        assert on_shard(app, account) == [0]
    assert on_shard(app, name_id("Alchemist 3")) == [0]
    app.accounts.rename(opened[0].account, "Alchemist Zero")
    assert on_shard(app, name_id("Alchemist Zero")) == [0]


def test_a_call_that_would_cross_shards_is_refused_and_saves_nothing(app: Opus) -> None:
    games: dict[int, UUID] = {}
    while len(games) < SHARDS:
        game = app.create_game()
        games.setdefault(shard_of(game, SHARDS), game)
    events = [
        StoredEvent(originator_id=game, originator_version=2, topic="domain.events:X", state=b"{}")
        for game in games.values()
    ]
    with pytest.raises(CrossShardSaveError, match="cross shards"):
        app.recorder.insert_events(events)
    for game in games.values():
        assert app.version(game) == 1
        assert all(len(shard.recorder.select_events(game)) <= 1 for shard in shard_apps(app)), (
            "nothing of the refused call was saved"
        )


def test_a_new_process_finds_every_aggregate_and_reads_a_moves_position(
    app: Opus, settings: Settings
) -> None:
    rng = random.Random(7)
    played = [play_game(app, 3, "greedy", rng)[0] for _ in range(4)]
    again = open_application(settings)
    try:
        for game in played:
            assert again.version(game) == app.version(game)
            assert again.state(game).status == "ended"
        assert again.recorder.select_events(uuid.uuid4()) == []  # in no shard
    finally:
        again.close()


def test_the_router_refuses_log_wide_reads_and_each_shard_keeps_its_own_gap_free_log(
    app: Opus, settings: Settings
) -> None:
    for _ in range(6):
        app.create_game()
    with pytest.raises(ShardedLogError, match="shard_apps"):
        app.recorder.max_notification_id()
    with pytest.raises(ShardedLogError):
        app.recorder.select_notifications(0, 10)
    openers = shard_openers(settings)
    assert len(openers) == SHARDS
    for k, open_shard in enumerate(openers):
        shard = open_shard()
        try:
            ids = [n.id for n in shard.recorder.select_notifications(1, 1000)]
            assert ids == list(range(1, len(ids) + 1))
            for n in shard.recorder.select_notifications(1, 1000):
                home = shard_of(UUID(str(n.originator_id)), SHARDS)
                assert home == k or n.topic.startswith("domain.accounts.")
        finally:
            shard.close()


def test_one_entry_in_opus_shards_is_the_one_store_as_today(settings: Settings) -> None:
    first = settings.shards[0]
    one = Settings.from_env({**first, "OPUS_SHARDS": describe_shard(first)})
    assert one.shard_count == 1 and one.shards == ()
    app = open_application(one)
    try:
        assert type(app) is Opus and shard_apps(app) == [app]
        outcome = app.create(admission="invitation")
        head = app.recorder.max_notification_id()
        assert head is not None and outcome.position == head == position_of(0, head, 1)
    finally:
        app.close()
