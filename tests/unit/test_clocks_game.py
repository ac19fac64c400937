"""RULES.md §11 through the service (domain/game.py, domain/clock_rules.py)
and the audit (domain/audit.py), on an in-memory store with the service's
clock set by the test (``domain.clock.now``, the one place the game asks the
time): a timed game records its clock (R11.1), stamps each command's events
once (R11.2), refuses a seat's command at or after its deadline (R11.3),
records TimeExpired and the withdrawal the clock owes (R11.4, R11.5), takes
the organiser's time and pauses (R11.6), and verification re-derives every
clock and refuses each forgery R11.7 names. A property test races moves
against deadlines, each acceptance decided by tests/clock_oracle.py from
the recorded timestamps: no move is accepted at or after its deadline."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain import clock as clock_module
from domain.application import Opus
from domain.audit import Record, verify_game
from domain.bots import BOTS
from domain.clock import SECOND, Clock, micros
from domain.errors import RuleError
from domain.legal import legal_moves
from domain.pipeline import Caller
from domain.ruleset import RuleSet
from infra.eventlog import game_records
from tests import clock_oracle as oracle
from tests.forgery import rechain, rewritten

ORGANISER = Caller("0" * 64)
START = datetime(2026, 12, 8, 12, 0, tzinfo=UTC)


class Time:
    """The service's clock, moved by the test."""

    def __init__(self) -> None:
        self.at = START

    def __call__(self) -> datetime:
        return self.at

    def wait(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


@pytest.fixture
def time(monkeypatch: pytest.MonkeyPatch) -> Iterator[Time]:
    now = Time()
    monkeypatch.setattr(clock_module, "now", now)
    yield now


def timed_game(clock: Clock, seats: int = 2) -> tuple[Opus, UUID]:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game = app.create(RuleSet.timed(clock), caller=ORGANISER, secret=bytes(32)).aggregate_id
    for seat in range(seats):
        app.join(game, f"P{seat + 1}", f"c{seat}")
    app.start(game, caller=ORGANISER)
    return app, game


def records(app: Opus, game: UUID) -> list[Record]:
    return game_records(app, game)


def move_of(app: Opus, game: UUID, rng: random.Random) -> Any:
    state = app.state(game)
    return BOTS["random"](rng)(state, state.turn)


def refused(command: Any) -> RuleError:
    with pytest.raises(RuleError) as refusal:
        command()
    return refusal.value


# ---- R11.1, R11.2 ------------------------------------------------------------------------


def test_R11_1_a_timed_game_records_its_clock_and_starts_under_version_3(time: Time) -> None:
    app, game = timed_game(Clock(60, 2))
    log = records(app, game)
    assert log[0].payload is not None and log[0].payload["clock"] == Clock(60, 2).as_dict()
    started = next(r for r in log if r.type == "GameStarted").payload or {}
    assert started["rules"]["version"] == "3"
    assert started["rules"]["clock"] == Clock(60, 2).as_dict()
    with pytest.raises(RuleError, match=r"R11\.1"):
        RuleSet(clock=Clock(60), version="2")


def test_R11_2_a_commands_events_carry_its_id_and_one_timestamp(time: Time) -> None:
    app, game = timed_game(Clock(60, 2))
    rng = random.Random(1)
    for _ in range(6):
        time.wait(1.25)
        app.play(game, move_of(app, game, rng))
    log = records(app, game)
    commands: dict[str, set[str]] = {}
    for r in log[1:]:
        command = (r.payload or {})["command"]
        assert command, r.type  # assigned by the service when the client sent none
        commands.setdefault(command, set()).add(r.timestamp)
    assert all(len(stamps) == 1 for stamps in commands.values())
    assert [r.timestamp for r in log] == sorted(r.timestamp for r in log)
    assert verify_game(log).ok


def test_an_untimed_game_is_recorded_as_before(time: Time) -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game = app.create_game(secret=bytes(32))
    app.join(game, "A")
    app.join(game, "B")
    app.start(game)
    log = records(app, game)
    assert "clock" not in (log[0].payload or {})
    started = next(r for r in log if r.type == "GameStarted").payload or {}
    assert started["rules"]["version"] == "2" and "clock" not in started["rules"]
    assert {(r.payload or {})["command"] for r in log[1:]} == {""}


# ---- R11.3, R11.4, R11.5 -------------------------------------------------------------------


def test_R11_3_to_R11_5_out_of_time_the_move_is_refused_and_the_clock_withdraws_the_seat(
    time: Time,
) -> None:
    app, game = timed_game(Clock(60, 2), seats=3)
    rng = random.Random(2)
    time.wait(10)
    app.play(game, move_of(app, game, rng))  # seat 0: 10 s of 60, back to 52
    state = app.state(game)
    while state.turn == 0:  # a spell keeps the turn
        app.play(game, move_of(app, game, rng))
        state = app.state(game)
    version = app.version(game)
    time.wait(60)  # seat 1's deadline, exactly
    late = refused(lambda: app.play(game, move_of(app, game, rng)))
    assert late.rule == "R11.3" and "time is up" in str(late)
    assert app.version(game) == version  # a refused command records nothing
    app.expire(game)
    log = records(app, game)
    expired = next(r for r in log if r.type == "TimeExpired")
    assert expired.payload is not None
    assert (expired.payload["player"], expired.payload["grace"]) == (1, 5)
    assert expired.payload["at"] == time.at.isoformat()  # the deadline exactly
    after = [r.type for r in log[expired.version :]]
    assert after[:2] == ["SeatWithdrawn", "TurnEnded"]
    withdrawn = log[expired.version].payload or {}
    assert withdrawn["cause"] == "clock"
    again = refused(lambda: app.expire(game))
    assert again.rule == "R11.4"
    assert app.state(game).turn == 2 and 1 in app.state(game).withdrawn
    assert verify_game(records(app, game)).ok


def test_R11_4_a_command_after_a_deadline_records_the_owed_expiry_first(time: Time) -> None:
    """The organiser pauses the clocks 1 s after seat 0's deadline: the
    game records seat 0's TimeExpired and withdrawal, then the pause, all
    under the pause's command and time."""
    app, game = timed_game(Clock(30, 0), seats=3)
    time.wait(31)
    app.pause_clocks(game, "a fire drill", "Arbiter", caller=ORGANISER)
    log = records(app, game)
    first = next(r.version for r in log if r.type == "TimeExpired")
    tail = log[first - 1 :]
    assert [r.type for r in tail][:2] == ["TimeExpired", "SeatWithdrawn"]
    assert tail[-1].type == "ClocksPaused"
    assert len({((r.payload or {})["command"], r.timestamp) for r in tail}) == 1
    assert verify_game(log).ok


def test_R3_5_a_timed_game_offers_no_removal_for_inactivity(time: Time) -> None:
    app, game = timed_game(Clock(30, 0), seats=3)
    time.wait(5)
    refusal = refused(lambda: app.withdraw(game, 2, caller=ORGANISER))
    assert refusal.rule == "R3.5" and "inactivity" in str(refusal)


# ---- R11.6 ------------------------------------------------------------------------------------


def test_R11_6_time_added_and_a_pause_move_the_deadline(time: Time) -> None:
    app, game = timed_game(Clock(60, 0), seats=2)
    time.wait(50)
    # 10 s left, 60 more: capped at initial, 60 left from here (R11.1, R11.6)
    app.add_time(game, 0, 60, "a phone call", "Arbiter", caller=ORGANISER)
    assert app.state(game).clocks is not None
    assert app.state(game).clocks.deadline() == micros(START) + 110 * SECOND
    app.pause_clocks(game, "fire drill", "Arbiter", caller=ORGANISER)
    time.wait(300)
    app.resume_clocks(game, "drill over", "Arbiter", caller=ORGANISER)
    assert app.state(game).clocks.deadline() == micros(START) + 410 * SECOND
    time.wait(55)
    rng = random.Random(3)
    app.play(game, move_of(app, game, rng))  # 5 s before the deadline
    for command, rule in [
        (lambda: app.add_time(game, 0, 0, "none", "Arbiter", caller=ORGANISER), "R11.6"),
        (lambda: app.resume_clocks(game, "x", "Arbiter", caller=ORGANISER), "R11.6"),
        (lambda: app.add_time(game, 9, 5, "no seat", "Arbiter", caller=ORGANISER), "R11.6"),
    ]:
        assert refused(command).rule == rule
    assert verify_game(records(app, game)).ok


# ---- R11.7: forgeries, made as a lying server would (the chain recomputed) ------------------


def played(time: Time) -> tuple[Opus, UUID, list[Record]]:
    """Three seats, 60+2: a few moves, seat 1 runs out and is withdrawn."""
    app, game = timed_game(Clock(60, 2), seats=3)
    rng = random.Random(4)
    for think in (3, 7, 4, 9):
        time.wait(think)
        app.play(game, move_of(app, game, rng))
    while app.state(game).turn != 1:
        time.wait(1)
        app.play(game, move_of(app, game, rng))
    time.wait(61)
    app.expire(game)
    log = records(app, game)
    assert verify_game(log).ok
    return app, game, log


def later(timestamp: str, seconds: float) -> str:
    return (datetime.fromisoformat(timestamp) + timedelta(seconds=seconds)).isoformat()


def failing(log: list[Record]) -> str:
    verdict = verify_game(log)
    assert not verdict.ok, "the forgery verifies"
    return verdict.reason


def test_R11_7_a_seats_move_restamped_after_its_deadline_fails(time: Time) -> None:
    """Seat 0's first move, and everything after it, said to come 60 s
    later: at 63 s, past its 60 s."""
    _, _, log = played(time)
    first = next(r for r in log if r.type == "CardsDealt").version + 2  # after the draw phase
    while log[first - 1].type not in ("CardDiscarded", "RecipeAssembled", "RecipePlaced"):
        first += 1
    forged = rechain(
        [replace(r, timestamp=later(r.timestamp, 60)) if r.version >= first else r for r in log]
    )
    assert failing(forged).startswith("R11.3: time is up")


def test_R11_7_a_time_expired_at_another_time_fails(time: Time) -> None:
    _, _, log = played(time)
    expired = next(r for r in log if r.type == "TimeExpired")
    forged = rewritten(log, expired.version, lambda p: p.update(at=later(p["at"], -1)))
    assert failing(forged).startswith("R11.7")


def test_R11_7_events_after_a_deadline_without_its_time_expired_fail(time: Time) -> None:
    _, _, log = played(time)
    expired = next(r for r in log if r.type == "TimeExpired")
    forged = rechain([r for r in log if r.version != expired.version])
    assert failing(forged).startswith("R11.4")


def test_R11_7_a_commands_events_stamped_apart_fail(time: Time) -> None:
    _, _, log = played(time)
    turn = next(r for r in log if r.type == "TurnEnded")
    forged = rechain(
        [replace(r, timestamp=later(r.timestamp, 0.001)) if r is turn else r for r in log]
    )
    assert failing(forged).startswith("R11.2")


def test_R11_7_decreasing_timestamps_fail(time: Time) -> None:
    _, _, log = played(time)
    last = log[-1]
    forged = rechain([*log[:-1], replace(last, timestamp=later(last.timestamp, -3600))])
    assert failing(forged).startswith("R11.2")


def test_R11_7_a_log_that_ends_before_the_deadline_passes_is_not_refused(time: Time) -> None:
    _, _, log = played(time)
    expired = next(r for r in log if r.type == "TimeExpired")
    assert verify_game(log[: expired.version - 1]).ok


# ---- moves racing deadlines, held to the oracle -----------------------------------------


def oracle_events(log: list[Record]) -> list[oracle.Event]:
    out: list[oracle.Event] = []
    for r in log:
        p, at = r.payload or {}, micros(r.timestamp)
        if r.type == "GameStarted":
            out.append(("start", {"seats": p["rules"]["players"]}, at))
        elif r.type == "TurnEnded":
            out.append(("turn_ended", p, at))
        elif r.type == "SeatWithdrawn":
            out.append(("withdrawn", p, at))
        elif r.type == "TimeAdded":
            out.append(("added", p, at))
        elif r.type == "ClocksPaused":
            out.append(("paused", p, at))
        elif r.type == "ClocksResumed":
            out.append(("resumed", p, at))
        elif r.type == "GameEnded":
            out.append(("ended", p, at))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    initial=st.integers(10, 40),
    increment=st.integers(0, 5),
    limit=st.none() | st.integers(10, 20),
    thinks=st.lists(st.integers(0, 25 * SECOND), min_size=5, max_size=40),
    seed=st.integers(0, 2**16),
)
def test_R11_3_no_move_is_accepted_at_or_after_its_deadline(
    initial: int, increment: int, limit: int | None, thinks: list[int], seed: int
) -> None:
    now = Time()
    original = clock_module.now
    clock_module.now = now  # type: ignore[assignment]
    try:
        clock = Clock(
            initial, min(increment, initial), None if limit is None else min(limit, initial)
        )
        app, game = timed_game(clock, seats=3)
        rng = random.Random(seed)
        for think in thinks:
            if app.state(game).status != "running":
                break
            now.at += timedelta(microseconds=think)
            told = oracle.derive(clock.as_dict(), oracle_events(records(app, game)), micros(now.at))
            state = app.state(game)
            move = BOTS["random"](rng)(state, state.turn)
            assert move in legal_moves(state, state.turn)
            due = told["deadline"]
            if due is not None and micros(now.at) >= due:
                assert refused(lambda move=move: app.play(game, move)).rule == "R11.3"
                app.expire(game)
            else:
                app.play(game, move)
        log = records(app, game)
        assert verify_game(log).ok
        for r in log:  # every seat's move came before its turn's deadline
            if r.type in ("CardDiscarded", "RecipeAssembled", "RecipePlaced", "SpellCast"):
                before = oracle_events([e for e in log if e.version < r.version])
                told = oracle.derive(clock.as_dict(), before, micros(r.timestamp))
                assert told["deadline"] is None or micros(r.timestamp) < told["deadline"]
    finally:
        clock_module.now = original  # type: ignore[assignment]
