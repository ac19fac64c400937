"""The command pipeline's steps (domain/pipeline.py's docstring), each held
as its promise is written, with two workers on one SQLite store where the
step is about another process's writes, and two threads racing where it is
about locks. Each test fails with its step planted wrong:

1. locks taken each once in one sorted order: two commands touching the
   same two aggregates from opposite ends never deadlock;
2. (and 9.) a command is decided on the store's latest: a move the cached
   copy would refuse (another worker moved meanwhile) is decided again and
   applied;
4. a replayed command is answered with the version it reached, not the
   target's version now;
5. If-Match is checked on the store's latest, not on the cached copy;
7. what joins the save is saved after the target: a tournament's result
   comes after its game's end in the log.
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from domain.application import Opus
from domain.bots import BOTS
from domain.errors import VersionClashError
from domain.game import Game
from domain.pipeline import Caller, Command, Unit
from domain.ruleset import RuleSet
from domain.simulation import simulate_tournament, token_hash
from infra.eventlog import game_records

JOIN_SECONDS = 20.0
ROUNDS = 2000


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[tuple[Opus, Opus]]:
    """Two workers on one SQLite event store, each with its own cache."""
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}
    first, second = Opus(env=env), Opus(env=env)
    yield first, second
    first.close()
    second.close()


def started(app: Opus, seats: int = 3) -> tuple[UUID, list[Caller]]:
    game = app.create_game(secret=bytes(32))
    callers = [Caller(token_hash(f"pipeline {n}")) for n in range(seats)]
    for n, caller in enumerate(callers):
        app.join(game, f"P{n + 1}", caller=caller)
    app.start(game)
    return game, callers


def a_move(app: Opus, game: UUID, rng: random.Random) -> Any:
    state = app.state(game)
    return BOTS["random"](rng)(state, state.turn)


def main_move(app: Opus, game: UUID, rng: random.Random) -> Any:
    """A move that ends the turn (no spell), so the turn passes on."""
    state = app.state(game)
    while True:
        move = BOTS["random"](rng)(state, state.turn)
        if type(move).__name__ != "Cast":
            return move


def test_step_2_a_move_the_stale_copy_would_refuse_is_decided_again_on_the_store(
    workers: tuple[Opus, Opus],
) -> None:
    """Worker one has the game cached at seat 0's turn; worker two applies
    seat 0's move; seat 1's move then reaches worker one, whose cached copy
    still says it is seat 0's turn (R3.4 would refuse it): it is decided
    again on the latest and applied."""
    one, two = workers
    game, callers = started(one)
    rng = random.Random(1)
    one.state(game)  # cached at seat 0's turn
    two.play(game, main_move(two, game, rng), caller=callers[0])
    seat1 = main_move(two, game, rng)  # seat 1's move, as the latest state allows it
    outcome = one.play(game, seat1, caller=callers[1])
    assert not outcome.replayed
    assert one.state(game).turn == 2


def test_step_4_a_replay_answers_the_version_its_command_reached(
    workers: tuple[Opus, Opus],
) -> None:
    one, _ = workers
    game, callers = started(one)
    rng = random.Random(2)
    retried = Caller(callers[0].token_hash, command="move-key-1")
    first = one.play(game, main_move(one, game, rng), caller=retried)
    one.play(game, main_move(one, game, rng), caller=callers[1])
    again = one.play(game, main_move(one, game, rng), caller=retried)
    assert again.replayed and again.version == first.version < one.version(game)


def test_step_5_if_match_is_checked_on_the_latest_not_on_the_cached_copy(
    workers: tuple[Opus, Opus],
) -> None:
    """The client read version v from worker two's answer; worker one has
    an older copy cached: If-Match v is the store's latest, so it holds."""
    one, two = workers
    game, callers = started(one)
    rng = random.Random(3)
    one.state(game)  # cached before worker two's move
    latest = two.play(game, main_move(two, game, rng), caller=callers[0]).version
    move = main_move(two, game, rng)
    matched = Caller(callers[1].token_hash, expected_version=latest)
    assert one.play(game, move, caller=matched).version > latest
    stale = Caller(callers[2].token_hash, expected_version=latest)
    with pytest.raises(VersionClashError):
        one.play(game, main_move(one, game, rng), caller=stale)


def test_step_7_a_tournaments_result_is_saved_after_its_games_end(tmp_path: Path) -> None:
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "t.db")}
    app = Opus(env=env)
    try:
        run = simulate_tournament(app, 6, 1, "random", seed=4)
        for game in run.games:
            ended = next(r for r in game_records(app, game) if r.type == "GameEnded")
            result = next(
                r
                for r in game_records(app, run.tournament)
                if r.type == "GameResultRecorded" and (r.payload or {})["game"] == str(game)
            )
            assert ended.position is not None and result.position is not None
            assert ended.position < result.position
    finally:
        app.close()


def stripe_colliding_ids() -> tuple[UUID, UUID]:
    """Two ids whose hashes and lock stripes (id mod 256) fall in one slot
    of a small set's table (both 3 mod 8), so that a set of them, or of
    their stripes, iterates in the order they were added: each command adds
    its target first."""
    return UUID(int=3), UUID(int=11)


def test_step_1_commands_touching_two_aggregates_from_opposite_ends_never_deadlock() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    first, second = stripe_colliding_ids()
    for game_id in (first, second):
        app.runner.create(Game.create(RuleSet(), id=game_id), Caller(), lambda g: True, "")

    def across(target: UUID, other: UUID) -> Command[Game]:
        def act(game: Game, unit: Unit, caller: Caller) -> None:
            unit.get(other, Game)  # read only: nothing saved

        return Command(target, Game, act, touches=lambda game: [other])

    stop = threading.Event()
    done = [0, 0]

    def race(index: int, target: UUID, other: UUID) -> None:
        for _ in range(ROUNDS):
            if stop.is_set():
                return
            app.runner.run(across(target, other), Caller())
            done[index] += 1

    threads = [
        threading.Thread(target=race, args=(0, first, second), daemon=True),
        threading.Thread(target=race, args=(1, second, first), daemon=True),
    ]
    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between any two locks' acquisitions
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(JOIN_SECONDS)
    finally:
        sys.setswitchinterval(switching)
        stop.set()
    assert not any(thread.is_alive() for thread in threads), f"deadlocked after {done}"
    assert done == [ROUNDS, ROUNDS]
