"""The command pipeline (domain/pipeline.py): locks by id in one order and
no global lock, a command that turns out to touch more takes its locks
again, save policies join the save, refused and clashing commands leave
nothing behind. Threads here always join with a timeout."""

from __future__ import annotations

import hashlib
import random
import threading
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.persistence import OperationalError

from domain.application import Opus
from domain.bots import BOTS
from domain.errors import (
    GameNotFoundError,
    IdempotencyConflictError,
    RuleError,
    SetupError,
    VersionClashError,
)
from domain.events import GameEnded
from domain.game import Game
from domain.internals import evict
from domain.moves import Move
from domain.pipeline import LOCK_STRIPES, Caller, Command, Unit
from domain.ruleset import RuleSet
from domain.tournaments.aggregate import Tournament
from domain.tournaments.events import GameResultRecorded, RoundClosed
from domain.tournaments.verify import verify_tournament
from infra.eventlog import read_records

ORGANISER = hashlib.sha256(b"organiser").hexdigest()
WAIT = 20.0  # seconds a thread may take before the test fails


def token(n: int) -> str:
    return hashlib.sha256(f"player {n}".encode()).hexdigest()


@pytest.fixture
def app() -> Opus:
    return Opus({"PERSISTENCE_MODULE": "eventsourcing.popo"})


def stripe(aggregate_id: UUID) -> int:
    return aggregate_id.int % LOCK_STRIPES


def tournament_of(app: Opus, players: int, key: str, **options: Any) -> UUID:
    created = app.tournaments.create("Cup", caller=Caller(ORGANISER, command=key), **options)
    for n in range(1, players + 1):
        app.tournaments.register(created.aggregate_id, f"P{n}", "", caller=Caller(token(n)))
    return created.aggregate_id


def late(tournament: Tournament) -> datetime:
    """A moment past round 1's time limit (T8.1)."""
    round_ = tournament.state.rounds[0]
    return datetime.fromisoformat(round_.paired_at) + timedelta(seconds=61)


def two_tournaments(app: Opus, players: int) -> tuple[UUID, UUID]:
    """Two tournaments whose locks are not the same stripe."""
    first = tournament_of(app, players, "first")
    for i in range(LOCK_STRIPES):
        second = tournament_of(app, players, f"second-{i}")
        if stripe(second) != stripe(first):
            return first, second
    raise AssertionError("no second stripe")


def in_thread(work: Callable[[], object]) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as e:  # reported by the test
            errors.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, errors


def test_a_tournament_command_does_not_wait_for_another_tournaments_lock(app: Opus) -> None:
    first, second = two_tournaments(app, 4)
    with app.runner.holding([first]):
        thread, errors = in_thread(lambda: app.tournaments.pair(second))
        thread.join(WAIT)
        assert not thread.is_alive() and not errors
    assert app.tournaments.get(second).state.paired == 1
    assert app.tournaments.get(first).state.paired == 0


def test_a_move_in_a_tournament_game_takes_its_tournaments_lock_first_then_runs(
    app: Opus,
) -> None:
    tournament = tournament_of(app, 4, "cup")
    app.tournaments.pair(tournament)
    table = app.tournaments.get(tournament).state.rounds[0].tables[0]
    state = app.state(table.game)
    move = BOTS["greedy"](random.Random(1))(state, state.turn)
    version = app.version(table.game)
    with app.runner.holding([tournament]):
        thread, errors = in_thread(lambda: app.play(table.game, move))
        thread.join(0.3)
        assert thread.is_alive()  # T5.1's save policy may need the tournament
    thread.join(WAIT)
    assert not thread.is_alive() and not errors
    assert app.version(table.game) > version


def test_concurrent_moves_drops_and_penalties_record_every_result_once_and_verify(
    app: Opus,
) -> None:
    """Every table played in a thread of its own while drops and penalties
    arrive on the tournament: no deadlock, every game's result recorded
    exactly once (T5.1), the round sealed (T9.1), and the log verifies."""
    tournament = tournament_of(app, 14, "busy")
    app.tournaments.pair(tournament)
    tables = app.tournaments.get(tournament).state.rounds[0].tables

    def play(game: UUID, players: tuple[int, ...], seed: int) -> Callable[[], None]:
        def run() -> None:
            choose = BOTS["random"](random.Random(seed))
            while True:
                with app.reading(game) as (state, _):
                    if state.status != "running":
                        return
                    seat, move = state.turn, choose(state, state.turn)
                try:
                    app.play(game, move, caller=Caller(token(players[seat])))
                except RuleError:
                    continue  # the seat was withdrawn by a drop meanwhile: look again

        return run

    def organise() -> None:
        for player in (2, 9, 13):
            app.tournaments.drop(tournament, player, caller=Caller(ORGANISER))
            app.tournaments.penalise(tournament, player - 1, Fraction(1, 2), "slow", "arbiter")

    threads = [in_thread(play(t.game, t.players, i)) for i, t in enumerate(tables)]
    threads.append(in_thread(organise))
    for thread, _ in threads:
        thread.join(WAIT)
    assert not any(thread.is_alive() for thread, _ in threads)
    assert not [e for _, errors in threads for e in errors]
    records = list(read_records(app))
    results = Counter(r.payload["game"] for r in records if r.type == GameResultRecorded.__name__)
    assert results == Counter(str(t.game) for t in tables)
    state = app.tournaments.get(tournament).state
    assert state.rounds[0].closed and set(state.results) == {t.game for t in tables}
    ended = [r for r in records if r.type == GameEnded.__name__]
    assert len(ended) == len(tables)
    assert [r.type for r in records].count(RoundClosed.__name__) == 1
    groups: dict[str, list] = {}
    for r in records:
        groups.setdefault(r.aggregate_id, []).append(r)
    assert verify_tournament(groups.pop(str(tournament)), groups).ok


def test_a_command_that_touches_an_aggregate_it_did_not_name_takes_the_locks_again(
    app: Opus,
) -> None:
    """A command whose ``touches`` leaves out an aggregate it changes is
    not run under a lock it lacks: it is decided again with both locks."""
    games = [app.create_game(secret=bytes([k]) * 32) for k in (1, 2)]
    tries: list[frozenset[UUID]] = []

    def join_both(game: Game, unit: Unit, caller: Caller) -> None:
        tries.append(unit.locked)
        game.join("Ada")
        unit.get(games[1], Game).join("Boris")

    app.runner.run(Command(games[0], Game, join_both), Caller())
    assert tries == [frozenset(games[:1]), frozenset(games)]
    assert app.state(games[0]).names == ["Ada"] and app.state(games[1]).names == ["Boris"]


def test_a_command_refused_after_it_triggered_leaves_no_trace(app: Opus) -> None:
    game_id = app.create_game()
    app.join(game_id, "Ada")

    def join_then_refuse(game: Game, unit: Unit, caller: Caller) -> None:
        game.join("Boris")
        raise SetupError("refused after triggering")

    with pytest.raises(SetupError):
        app.runner.run(Command(game_id, Game, join_then_refuse), Caller())
    assert app.state(game_id).names == ["Ada"] and app.version(game_id) == 2


def test_a_command_decided_on_a_stale_copy_is_decided_again_on_the_store(
    tmp_path: Path,
) -> None:
    """Another process (another application on the same store) wrote since
    this one cached the game: the save clashes and the command is decided
    again, on the game as stored."""
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}
    app, other = Opus(env), Opus(env)
    game_id = app.create_game()
    app.join(game_id, "Ada")
    other.join(game_id, "Boris")
    outcome = app.join(game_id, "Chloe")
    assert outcome.value == 2 and app.state(game_id).names == ["Ada", "Boris", "Chloe"]


def test_an_unknown_target_or_one_of_another_kind_is_not_found(app: Opus) -> None:
    tournament = tournament_of(app, 2, "cup")
    with pytest.raises(GameNotFoundError, match=str(tournament)):
        app.start(tournament)
    with pytest.raises(GameNotFoundError):
        app.start(UUID(int=7))


def test_a_retried_create_of_another_kind_of_game_is_a_conflict(app: Opus) -> None:
    first = app.create(RuleSet(draw="one"), caller=Caller(command="k:1"))
    again = app.create(RuleSet(draw="one"), caller=Caller(command="k:1"))
    assert again.replayed and again.aggregate_id == first.aggregate_id
    evict(app, first.aggregate_id)
    with pytest.raises(IdempotencyConflictError):
        app.create(RuleSet(draw="five"), caller=Caller(command="k:2"))
    assert isinstance(app.runner.load(first.aggregate_id, Game), Game)
    with pytest.raises(Exception, match="no tournament"):
        app.runner.load(first.aggregate_id, Tournament)


def test_if_match_holds_for_a_join_as_for_every_command_on_an_existing_game(app: Opus) -> None:
    game_id = app.create_game()
    with pytest.raises(VersionClashError, match="at version 1, not 2"):
        app.join(game_id, "Ada", caller=Caller(expected_version=2))
    assert app.join(game_id, "Ada", caller=Caller(expected_version=1)).version == 2


def sqlite_env(tmp_path: Path) -> dict[str, str]:
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}


def started(app: Opus, players: int = 2) -> UUID:
    game_id = app.create_game(secret=bytes(32))
    for n in range(players):
        app.join(game_id, f"P{n}", caller=Caller(token(n)))
    app.start(game_id)
    return game_id


def a_move(app: Opus, game_id: UUID) -> tuple[Move, str]:
    with app.reading(game_id) as (state, version):
        return BOTS["random"](random.Random(version))(state, state.turn), token(state.turn)


def test_a_failed_save_of_any_kind_leaves_no_changed_copy_in_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The library takes the pending events off before it writes them: a
    store error that is not a clash must not leave the game cached a version
    ahead of the store (the next save would leave a gap no process loads)."""
    app = Opus(sqlite_env(tmp_path))
    game_id = started(app)
    insert = app.recorder.insert_events
    failures = [OperationalError("database is locked")]

    def fail_once(*args: Any, **kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return insert(*args, **kwargs)

    monkeypatch.setattr(app.recorder, "insert_events", fail_once)
    move, seat = a_move(app, game_id)
    with pytest.raises(OperationalError):
        app.play(game_id, move, caller=Caller(seat))
    move, seat = a_move(app, game_id)
    app.play(game_id, move, caller=Caller(seat))
    fresh = Opus(sqlite_env(tmp_path))
    assert fresh.version(game_id) == app.version(game_id)
    assert [e.originator_version for e in fresh.events.get(game_id)] == list(
        range(1, app.version(game_id) + 1)
    )


def test_if_match_is_held_to_the_store_even_when_the_command_leaves_its_target_as_it_was(
    tmp_path: Path,
) -> None:
    """A call changes only its game: a stale tournament in this process's
    cache must not let an If-Match on an older version through."""
    one, two = Opus(sqlite_env(tmp_path)), Opus(sqlite_env(tmp_path))
    tournament = tournament_of(one, 4, "cup", time_limit=60)
    one.tournaments.pair(tournament)
    seen = two.tournaments.get(tournament)  # cached by the second process
    game, stale, now = seen.state.rounds[0].tables[0].game, seen.version, late(seen)
    one.tournaments.penalise(tournament, 1, Fraction(1, 2), "late", "arbiter")
    with pytest.raises(VersionClashError, match=f"not {stale}"):
        two.tournaments.call(
            tournament, game, "arbiter", caller=Caller(expected_version=stale), now=now
        )
    assert not two.game(game).state.called


def test_a_retry_under_if_match_reaching_another_process_is_answered_as_a_replay(
    tmp_path: Path,
) -> None:
    one, two = Opus(sqlite_env(tmp_path)), Opus(sqlite_env(tmp_path))
    game_id = started(one)
    version = two.version(game_id)  # cached by the second process
    move, seat = a_move(one, game_id)
    first = one.play(game_id, move, caller=Caller(seat, "k:1", expected_version=version))
    again = two.play(game_id, move, caller=Caller(seat, "k:1", expected_version=version))
    assert again.replayed and again.version == first.version == two.version(game_id)


def test_a_drop_decided_on_a_tournament_cached_before_its_game_ended_is_accepted(
    tmp_path: Path,
) -> None:
    """Another process ended the dropped player's game and recorded its
    result; this process cached the tournament before: the drop is decided
    on the tournament as stored, not refused for a seat it no longer has."""
    one, two = Opus(sqlite_env(tmp_path)), Opus(sqlite_env(tmp_path))
    tournament = tournament_of(one, 4, "cup")
    one.tournaments.pair(tournament)
    table = two.tournaments.get(tournament).state.rounds[0].tables[0]
    choose = BOTS["random"](random.Random(2))
    while (state := one.state(table.game)).status == "running":
        one.play(table.game, choose(state, state.turn))
    two.tournaments.drop(tournament, table.players[0], caller=Caller(token(table.players[0])))
    state = one.tournaments.get(tournament).state
    assert table.players[0] not in state.active and table.game in state.results


def test_a_call_and_its_replay_answer_the_tournaments_version(app: Opus) -> None:
    """A call is recorded in its game, but answers, first and replayed, with
    its tournament's version (TournamentOutcomeSchema)."""
    tournament = tournament_of(app, 4, "cup", time_limit=60)
    app.tournaments.pair(tournament)
    seen = app.tournaments.get(tournament)
    game, now, version = seen.state.rounds[0].tables[0].game, late(seen), seen.version
    first = app.tournaments.call(tournament, game, "arbiter", caller=Caller(command="c:1"), now=now)
    app.tournaments.penalise(tournament, 1, Fraction(1, 2), "late", "arbiter")
    again = app.tournaments.call(tournament, game, "arbiter", caller=Caller(command="c:1"), now=now)
    assert first.version == version
    assert again.replayed and again.version == first.version + 1  # the penalty's
    assert again.version != app.version(game)
