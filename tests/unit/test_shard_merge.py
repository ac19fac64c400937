"""Which shard's events go next (projections/merge.py): the earliest first,
a run stopping a second past another shard's next event, another shard's
before the home shard's next event, and waiting for the home shard when it
has nothing at hand and is behind."""

from __future__ import annotations

from typing import Any

from domain.accounts.events import AccountOpened
from projections.merge import Pending, next_run

T0 = "2026-12-01T21:00:00+00:00"


def at(seconds: float) -> str:
    whole, micro = divmod(round(seconds * 1_000_000), 1_000_000)
    stamp = f"2026-12-01T21:00:{whole:02d}"
    return f"{stamp}.{micro:06d}+00:00" if micro else f"{stamp}+00:00"


def pending(*seconds: float) -> Pending:
    """Events stamped at these seconds past T0, at positions 1, 2, 3 …"""
    events: list[Any] = [(object, "E", "k", {"timestamp": at(s)}) for s in seconds]
    rows: list[Any] = [(n, None, 1, "t", b"") for n in range(1, len(seconds) + 1)]
    return Pending(rows=rows, events=events)


def never() -> bool:
    raise AssertionError("the home shard's readiness is not asked")


def test_one_shard_takes_all_it_has() -> None:
    waiting = [pending(0, 5, 9)]
    assert next_run(waiting, never) == (0, None)
    rows, _, error = waiting[0].take(None)
    assert len(rows) == 3 and error is None and not waiting[0]


def test_the_earliest_goes_first_up_to_a_second_past_the_others_next() -> None:
    waiting = [pending(2, 2.5, 3.5, 4), pending(0.5, 1, 2.2, 3)]
    shard, horizon = next_run(waiting, never) or (None, None)
    assert shard == 1 and horizon == at(3)  # a second past the home shard's next (2)
    rows, _, _ = waiting[1].take(horizon)
    assert [row[0] for row in rows] == [1, 2, 3]  # 0.5, 1 and 2.2; 3 waits
    shard, horizon = next_run(waiting, never) or (None, None)
    assert shard == 0 and horizon == at(4)  # a second past shard 1's next (3)
    rows, _, _ = waiting[0].take(horizon)
    assert [row[0] for row in rows] == [1, 2, 3]  # 2, 2.5 and 3.5; 4 waits


def test_another_shards_run_stops_at_the_home_shards_next_holding_event() -> None:
    waiting = [pending(2, 2.5, 4, 9), pending(0.5, 1, 2.2, 3, 3.2)]
    waiting[0].events[1] = (AccountOpened, "AccountOpened", "a", {"timestamp": at(2.5)})
    shard, horizon = next_run(waiting, never) or (None, None)
    assert shard == 1 and horizon == at(2.5)  # not a second past the home shard's 2
    waiting[0].events[1] = (object, "E", "k", {"timestamp": at(2.5)})
    shard, horizon = next_run(waiting, never) or (None, None)
    assert shard == 1 and horizon == at(3)  # nothing holding at hand: a second past 2
    waiting = [pending(0.1), pending(0.5, 1)]
    waiting[0].rows.clear()
    waiting[0].events.clear()
    assert next_run(waiting, lambda: False) is None


def test_another_shard_waits_while_the_home_shard_is_behind() -> None:
    waiting = [Pending(), pending(1, 2)]
    assert next_run(waiting, lambda: False) is None
    assert next_run(waiting, lambda: True) == (1, None)


def test_a_run_is_one_event_at_least_and_stamps_sort_as_time() -> None:
    waiting = pending(1, 1.5)
    rows, _, _ = waiting.take(at(0))  # its first is past the stop already
    assert [row[0] for row in rows] == [1] and len(waiting.rows) == 1
    assert T0 < at(0.000001) < at(1)  # "…:00+00:00" before "…:00.000001+00:00"
