"""The event store split over shards (infra/shards.py): two databases of the
shared PostgreSQL as two shards, opened from settings alone.

Each aggregate lands where domain/sharding.py places it, with every
aggregate saved in the same call; a call that would cross shards is refused
and saves nothing; a command's position names its shard; a process that has
never seen an aggregate finds it; the log-wide reads are refused on the
router, and each shard's log reads gap-free by itself."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from eventsourcing.persistence import StoredEvent

from api.cli import main
from domain.accounts.aggregate import admission_id, name_id
from domain.application import Opus
from domain.bots import BOTS
from domain.pipeline import Caller
from domain.sharding import position_of, shard_of, shard_position, tournament_shard
from domain.simulation import play_game
from infra.bootstrap import open_application, shard_openers
from infra.eventlog import export_lines, game_export, tournament_lines
from infra.settings import Settings, describe_shard
from infra.shards import CrossShardSaveError, ShardedLogError, shard_apps
from projections.analytics.export import Manifest, data_files
from projections.analytics.export import export as run_export
from tests.settings import connect_test_postgres, test_postgres_env

pytestmark = pytest.mark.postgres
SHARDS = 2


@pytest.fixture
def shards_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Variables naming two fresh databases of the shared PostgreSQL as
    shards, and a receipts key of their own (the signer's record of what it
    signed is the key's: fresh stores under one key would be a fork)."""
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
        "OPUS_RECEIPTS_KEY_FILE": str(tmp_path_factory.mktemp("shards-key") / "receipts.key"),
    }
    try:
        yield env
    finally:
        with connect_test_postgres() as conn:
            for name in names:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def settings(shards_env: dict[str, str]) -> Settings:
    return Settings.from_env(shards_env)


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


# ---- the log's readers: shard by shard --------------------------------------------------


def test_the_export_reads_shard_by_shard_resumes_per_shard_and_verifies(
    app: Opus, shards_env: dict[str, str], tmp_path: Path
) -> None:
    rng = random.Random(11)
    games = [play_game(app, 2, "random", rng)[0] for _ in range(4)]
    while len({shard_of(game, SHARDS) for game in games}) < SHARDS:  # ids are random
        games.append(play_game(app, 2, "random", rng)[0])
    running = app.create_game()
    lines = [json.loads(line) for line in export_lines(app)]
    where = [shard_position(line["position"], SHARDS) for line in lines]
    assert where == sorted(where), "shard 0's log, then shard 1's, each in its order"
    assert {shard for shard, _ in where} == {0, 1}
    for game in [*games, running]:
        mine = [line for line in lines if line["aggregate_id"] == str(game)]
        assert [line["version"] for line in mine] == list(range(1, app.version(game) + 1))
        assert {shard_position(line["position"], SHARDS)[0] for line in mine} == {
            shard_of(game, SHARDS)
        }
        assert [r.position for r in game_export(app, game)] == [m["position"] for m in mine]
    lasts = {shard: line["position"] for (shard, _), line in zip(where, lines, strict=True)}
    assert list(export_lines(app, lasts.values())) == []
    assert list(export_lines(app, [lasts[1]])) == list(export_lines(app, [0, lasts[1]]))

    cli, log = CliRunner(), str(tmp_path / "log.ndjson")
    exported = cli.invoke(main, ["export", "--output", log], env=shards_env)
    assert exported.exit_code == 0, exported.output
    for args in (["verify", "--no-views"], ["verify", "--file", log]):
        verified = cli.invoke(main, args, env=shards_env)
        assert verified.exit_code == 0, verified.output
        assert f"{len(games) + 1} games verified, 0 failed" in verified.output
    resumed = cli.invoke(
        main, ["export", *(f"--after={p}" for p in lasts.values())], env=shards_env
    )
    assert resumed.exit_code == 0 and resumed.output == ""


def test_a_tournaments_export_is_read_from_its_shard(app: Opus) -> None:
    t = app.tournaments
    tournament = t.create("Exported", sizes=(4, 4, 4), rounds=1).aggregate_id
    for n in range(4):
        t.register(tournament, f"P{n}", caller=Caller(f"{n:064x}"))
    t.pair(tournament)
    home = tournament_shard(tournament, SHARDS)
    lines = [json.loads(line) for line in tournament_lines(app, tournament)]
    assert {line["aggregate_id"] for line in lines} >= {str(tournament)}
    assert len({line["aggregate_id"] for line in lines}) == 2  # the tournament and its game
    assert {shard_position(line["position"], SHARDS)[0] for line in lines} == {home}


def test_the_analytics_export_reads_every_shard_once(app: Opus, tmp_path: Path) -> None:
    rng = random.Random(5)
    games = [play_game(app, 2, "random", rng)[0] for _ in range(4)]
    first = run_export(shard_apps(app), tmp_path)
    assert first.games == 4 and len(first.ranges) == SHARDS
    manifest = Manifest.load(tmp_path)
    assert [shard_position(p, SHARDS)[0] for p in manifest.positions] == [0, 1]
    games.append(play_game(app, 2, "random", rng)[0])
    again = run_export(shard_apps(app), tmp_path)
    assert again.games == 1
    seats = pq.read_table([str(f) for f in data_files(tmp_path)["game"]]).to_pylist()
    assert sorted(row["game_id"] for row in seats) == sorted(str(g) for g in games)
    with pytest.raises(ValueError, match="split store"):
        run_export(shard_apps(app)[0], tmp_path)


def test_the_global_logs_rebuild_makes_each_shards_and_refuses_a_shard_not_there(
    shards_env: dict[str, str],
) -> None:
    rebuilt = CliRunner().invoke(main, ["receipts", "rebuild"], env=shards_env)
    assert rebuilt.exit_code == 0, rebuilt.output
    for shard in range(SHARDS):
        assert f"shard {shard}'s global log's tree: 0 leaves" in rebuilt.output
    refused = CliRunner().invoke(main, ["receipts", "rebuild", "--shard", "2"], env=shards_env)
    assert refused.exit_code == 2
    assert "--shard 2: the event store has 2 shard(s), 0 to 1" in refused.output
