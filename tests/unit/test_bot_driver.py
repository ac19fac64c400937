"""The bots at play (infra/bot_driver.py), in memory: a person plays a
whole game against three bots of three kinds, the bots moving on their own
through the service, each move under its kind's command id, after the
driver's delay; a withdrawn bot's seat is left alone; a driver started
after the game stopped at a bot's turn (a restart) finds it by its sweep;
the set of games due is bounded. Every wait has a deadline."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from uuid import UUID, uuid4

import pytest

from domain.application import Opus
from domain.bot_seats import bots_at, seat_bots
from domain.moves import Cast
from domain.pipeline import Caller
from domain.simulation import token_hash
from infra.bot_driver import BotDriver, command_id

PERSON = token_hash("the person at the table")
MOVES = ("CardDiscarded", "RecipeAssembled", "RecipePlaced", "SpellCast")
DEADLINE = 60.0  # seconds a whole game may take


def in_memory() -> Opus:
    return Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})


def wait_for(check: Callable[[], bool], timeout: float = DEADLINE) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not so after {timeout} s")
        time.sleep(0.005)


def status_and_turn(app: Opus, game_id: UUID) -> tuple[str, int]:
    with app.reading(game_id) as (state, _):
        return state.status, state.turn


@pytest.fixture
def app() -> Iterator[Opus]:
    opus = in_memory()
    yield opus
    opus.close()


def driver(app: Opus, games: list[UUID] | None = None, **options: float) -> BotDriver:
    """A driver whose sweep finds ``games`` running (the lobby view's part)."""

    def running() -> list[tuple[UUID, list[str]]]:
        return [(game_id, app.state(game_id).names) for game_id in games or []]

    return BotDriver(app, running, **options)  # type: ignore[arg-type]


def game_against(app: Opus, kinds: list[str], person_first: bool = True) -> UUID:
    game_id = app.create_game(caller=Caller(PERSON))
    if person_first:
        app.join(game_id, "Ada", caller=Caller(PERSON))
    seat_bots(app, game_id, kinds)
    if not person_first:
        app.join(game_id, "Ada", caller=Caller(PERSON))
    return game_id


def play_as_person(app: Opus, game_id: UUID, seed: int) -> int:
    """The person's turns, each a main action the service offers, until the
    game ends; the moves made."""
    rng = random.Random(seed)
    made = 0
    while True:
        wait_for(
            lambda: status_and_turn(app, game_id)[0] == "ended" or is_persons_turn(app, game_id)
        )
        if ended(app, game_id):
            return made
        legal = app.legal_moves_of(game_id, PERSON)
        mains = [m for m in legal.moves if not isinstance(m, Cast)]
        move = rng.choice(mains)
        app.play(game_id, move, caller=Caller(PERSON, expected_version=legal.version))
        made += 1


def ended(app: Opus, game_id: UUID) -> bool:
    return status_and_turn(app, game_id)[0] == "ended"


def is_persons_turn(app: Opus, game_id: UUID) -> bool:
    status, turn = status_and_turn(app, game_id)
    with app.reading(game_id) as (state, _):
        return status == "running" and state.token_hashes[turn] == PERSON


def test_a_person_plays_a_whole_game_against_three_bots_that_move_on_their_own(app: Opus) -> None:
    bots = driver(app, delay=0).start()
    try:
        game_id = game_against(app, ["greedy", "shrewd", "random"])
        app.start(game_id, caller=Caller(PERSON))
        made = play_as_person(app, game_id, 1)
    finally:
        bots.stop()
    events = list(app.events.get(game_id))
    assert type(events[-1]).__name__ == "GameEnded"
    kinds = bots_at(app, game_id)
    assert kinds == {1: "greedy", 2: "shrewd", 3: "random"}
    by_command: dict[str, list[object]] = {}
    for event in events:
        by_command.setdefault(getattr(event, "command", ""), []).append(event)
    movers: set[int] = set()
    for command, made_by in by_command.items():
        if not command.startswith("bot."):
            continue
        first = made_by[0]  # the move's own event, or its pass's TurnEnded: the mover's
        seat = first.player  # type: ignore[attr-defined]
        version = first.originator_version  # type: ignore[attr-defined]
        # its kind's command id, on the version it decided on; its events together
        assert command == command_id(kinds[seat], game_id, version - 1)
        versions = [e.originator_version for e in made_by]  # type: ignore[attr-defined]
        assert versions == list(range(version, version + len(versions)))
        movers.add(seat)
    assert movers == {1, 2, 3}
    assert made > 5
    # each bot move applied once, by this driver: as many as its commands
    assert bots.played == sum(1 for c in by_command if c.startswith("bot."))
    turns = [e for e in events if type(e).__name__ == "TurnEnded"]
    persons = [e for e in turns if e.player == 0]  # type: ignore[attr-defined]
    assert len(persons) == made and all(e.command == "" for e in persons)  # type: ignore[attr-defined]


def test_a_bot_waits_the_drivers_delay_before_it_moves(app: Opus) -> None:
    delay = 0.25
    bots = driver(app, delay=delay).start()
    try:
        game_id = game_against(app, ["greedy"])
        app.start(game_id, caller=Caller(PERSON))
        for seed in range(3):  # three of the person's turns, each answered by the bot
            wait_for(lambda: is_persons_turn(app, game_id))
            legal = app.legal_moves_of(game_id, PERSON)
            mains = [m for m in legal.moves if not isinstance(m, Cast)]
            app.play(game_id, random.Random(seed).choice(mains), caller=Caller(PERSON))
        wait_for(lambda: is_persons_turn(app, game_id))
    finally:
        bots.stop()
    events = list(app.events.get(game_id))
    gaps = []
    for before, after in itertools.pairwise(events):
        command = getattr(after, "command", "")
        if command.startswith("bot.") and not getattr(before, "command", "").startswith("bot."):
            gaps.append(after.timestamp - before.timestamp)
    assert len(gaps) >= 3
    # (the event's clock and the driver's differ by a little)
    assert all(gap >= timedelta(seconds=delay - 0.01) for gap in gaps), gaps


def test_a_withdrawn_bot_is_left_alone_and_the_game_still_ends(app: Opus) -> None:
    bots = driver(app, delay=0).start()
    try:
        game_id = game_against(app, ["greedy", "random"])
        app.start(game_id, caller=Caller(PERSON))
        wait_for(lambda: is_persons_turn(app, game_id))
        app.withdraw(game_id, 2)  # R3.5 (the service's own call: no idle limit)
        withdrawn_at = app.version(game_id)
        play_as_person(app, game_id, 2)
    finally:
        bots.stop()
    late = [
        e
        for e in app.events.get(game_id, gt=withdrawn_at)
        if type(e).__name__ in MOVES and e.player == 2  # type: ignore[attr-defined]
    ]
    assert late == []
    assert status_and_turn(app, game_id)[0] == "ended"


def test_a_driver_started_later_finds_a_game_waiting_for_a_bot_by_its_sweep(app: Opus) -> None:
    game_id = game_against(app, ["shrewd"], person_first=False)  # the bot sits first: R2.1
    app.start(game_id, caller=Caller(PERSON))
    assert not is_persons_turn(app, game_id)
    bots = driver(app, [game_id], delay=0, sweep_seconds=0.05).start()
    try:
        wait_for(lambda: is_persons_turn(app, game_id), timeout=10)
    finally:
        bots.stop()
    assert bots.played >= 1


def test_the_games_due_are_bounded_and_a_stopped_driver_notices_nothing(app: Opus) -> None:
    bots = driver(app, delay=60, capacity=1)
    bots.wake(uuid4(), 60)
    bots.wake(uuid4(), 60)
    assert bots.dropped == 1
    bots.start()
    bots.stop()
    assert bots.notice not in app.listeners
