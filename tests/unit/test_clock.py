"""RULES.md §11, the clock's arithmetic (domain/clock.py): R11.1's bounds and
presets, and the fold held to tests/clock_oracle.py (written from the text,
importing nothing of the domain) over random games of turns, pauses, time
added and withdrawals: every seat's time, the time left and the deadline
agree to the microsecond (R11.2, R11.3, R11.6)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.clock import PRESETS, SECOND, Clock, Clocks, micros, moment
from domain.errors import ClockError
from tests import clock_oracle as oracle

# ---- R11.1 -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"initial": 9}, "initial is between 10 seconds and 30 days"),
        ({"initial": 30 * 86_400 + 1}, "initial is between 10 seconds and 30 days"),
        ({"initial": 60, "increment": 61}, "increment is between 0 and initial (60)"),
        ({"initial": 60, "increment": -1}, "increment is between 0 and initial (60)"),
        ({"initial": 60, "move_limit": 9}, "move_limit is between 10 and initial (60)"),
        ({"initial": 60, "move_limit": 61}, "move_limit is between 10 and initial (60)"),
        ({"initial": 60, "grace": 0}, "grace is between 1 and 60 seconds"),
        ({"initial": 60, "grace": 61}, "grace is between 1 and 60 seconds"),
        ({"initial": 60.0}, "whole seconds"),
        ({"initial": 60, "on_timeout": "bot:nobody", "increment": 1}, "on_timeout is"),
        ({"initial": 60, "on_timeout": "pass"}, "on_timeout is"),
        ({"initial": 60, "on_timeout": "bot:greedy"}, "increment of 1 or more"),
    ],
)
def test_R11_1_a_clock_out_of_bounds_is_refused_naming_the_rule(
    fields: dict[str, Any], words: str
) -> None:
    with pytest.raises(ClockError) as refused:
        Clock(**fields)
    assert str(refused.value).startswith("R11.1: ") and words in str(refused.value)


def test_R11_1_the_bounds_themselves_and_the_presets_are_values() -> None:
    Clock(10, 10, 10, "withdraw", 1)
    Clock(30 * 86_400, 0, None, "withdraw", 60)
    Clock(10, 1, None, "bot:greedy", 5)
    assert Clock(60, 2, on_timeout="bot:greedy").bot == "greedy"
    assert Clock(60).bot is None
    assert PRESETS["blitz"] == Clock(180, 5) and PRESETS["rapid"] == Clock(600, 10)
    assert PRESETS["daily"] == Clock(3 * 86_400, 86_400)
    value = Clock(300, 3, 60, "withdraw", 7)
    assert Clock.from_dict(value.as_dict()) == value
    assert value.as_dict() == {
        "initial": 300,
        "increment": 3,
        "move_limit": 60,
        "on_timeout": "withdraw",
        "grace": 7,
    }


def test_R11_times_are_whole_microseconds_exactly() -> None:
    at = datetime(2026, 12, 8, 1, 2, 3, 456789, tzinfo=UTC)
    assert micros(at) == micros(at.isoformat()) and moment(micros(at)) == at
    assert micros(at) % SECOND == 456789


# ---- R11.2, R11.3: a worked example --------------------------------------------------------


def test_R11_2_R11_3_two_seats_60_plus_2_by_hand() -> None:
    """Seat 0 thinks 10 s, seat 1 thinks 70 s (it had 60: out of time at
    start + 60 s); seat 0 is back with 52 s (60 − 10 + 2)."""
    clocks = Clocks(Clock(60, 2))
    t0 = 1_000 * SECOND
    clocks.start(2, t0)
    assert clocks.deadline() == t0 + 60 * SECOND
    clocks.turn_ended(0, 1, t0 + 10 * SECOND)
    assert clocks.remaining == [52 * SECOND, 60 * SECOND]
    assert clocks.deadline() == t0 + 70 * SECOND
    assert clocks.left(t0 + 40 * SECOND) == [52 * SECOND, 30 * SECOND]


def test_R11_6_a_pause_moves_the_deadline_and_a_turn_begun_paused_counts_from_the_resumption() -> (
    None
):
    clocks = Clocks(Clock(60, 0, move_limit=20))
    clocks.start(2, 0)
    assert clocks.deadline() == 20 * SECOND  # move_limit binds
    clocks.clocks_paused(5 * SECOND)
    assert clocks.deadline() is None
    clocks.clocks_resumed(15 * SECOND)
    assert clocks.deadline() == 30 * SECOND
    clocks.clocks_paused(16 * SECOND)
    clocks.turn_ended(0, 1, 17 * SECOND)  # used 5 + 1 of its 60
    assert clocks.remaining[0] == 54 * SECOND
    clocks.clocks_resumed(40 * SECOND)
    assert clocks.deadline() == 60 * SECOND  # 17 + 23 paused + 20


# ---- the fold against the oracle -------------------------------------------------------


@st.composite
def games(draw: st.DrawFn) -> tuple[dict[str, Any], int, list[oracle.Event]]:
    initial = draw(st.integers(10, 600))
    clock = {
        "initial": initial,
        "increment": draw(st.integers(0, initial)),
        "move_limit": draw(st.none() | st.integers(10, initial)),
    }
    seats = draw(st.integers(2, 4))
    at = draw(st.integers(0, 10**12))
    events: list[oracle.Event] = [("start", {"seats": seats}, at)]
    turn, paused, withdrawn = 0, False, set[int]()
    for _ in range(draw(st.integers(0, 30))):
        at += draw(st.integers(0, 40 * SECOND))
        kind = draw(st.sampled_from(["turn_ended"] * 4 + ["paused", "added", "withdrawn"]))
        if kind == "turn_ended":
            following = [(turn + k) % seats for k in range(1, seats + 1)]
            nxt = next(s for s in following if s not in withdrawn or s == turn)
            events.append(("turn_ended", {"player": turn, "next_player": nxt}, at))
            turn = nxt
        elif kind == "paused":
            events.append(("resumed" if paused else "paused", {}, at))
            paused = not paused
        elif kind == "added":
            seat = draw(st.integers(0, seats - 1))
            events.append(("added", {"player": seat, "seconds": draw(st.integers(1, 100))}, at))
        elif len(withdrawn) < seats - 1:
            seat = draw(st.integers(0, seats - 1))
            withdrawn.add(seat)
            events.append(("withdrawn", {"player": seat}, at))
    return clock, at + draw(st.integers(0, 40 * SECOND)), events


def folded(clock: dict[str, Any], events: list[oracle.Event]) -> Clocks:
    clocks = Clocks(Clock(clock["initial"], clock["increment"], clock["move_limit"]))
    for kind, p, at in events:
        if kind == "start":
            clocks.start(p["seats"], at)
        elif kind == "turn_ended":
            clocks.turn_ended(p["player"], p["next_player"], at)
        elif kind == "withdrawn":
            clocks.seat_withdrawn(p["player"])
        elif kind == "paused":
            clocks.clocks_paused(at)
        elif kind == "resumed":
            clocks.clocks_resumed(at)
        elif kind == "added":
            clocks.time_added(p["player"], p["seconds"], at)
    return clocks


@settings(max_examples=400, deadline=None)
@given(games())
def test_R11_2_R11_3_R11_6_the_fold_is_the_oracles(
    game: tuple[dict[str, Any], int, list[oracle.Event]],
) -> None:
    clock, now, events = game
    for end in range(1, len(events) + 1):
        seen = events[:end]
        clocks = folded(clock, seen)
        told = oracle.derive(clock, seen, now)
        assert clocks.remaining == told["remaining"]
        assert clocks.deadline() == told["deadline"]
        if told["turn"] is not None:
            assert clocks.turn == told["turn"]
            assert clocks.left(now)[told["turn"]] == told["left"]
