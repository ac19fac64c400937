"""infra/logthrottle.py: one record per kind of failure per interval, each
with the count of those not logged; the first of a burst with its traceback."""

from __future__ import annotations

import logging

import pytest

from infra.logthrottle import LogThrottle


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_one_record_per_kind_per_interval_with_the_count_of_the_rest(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    throttle = LogThrottle(logging.getLogger("throttled"), interval=10, clock=clock)
    caplog.set_level(logging.WARNING, logger="throttled")
    for step in range(100):  # a failure every 0.25 s for 25 s, of two kinds
        clock.now = step * 0.25
        throttle.failed("publishing", ConnectionError("refused"))
        throttle.failed("publishing", TimeoutError("slow"))
    records = caplog.records
    # each kind at 0, 10 and 20 s
    assert [(r.getMessage().split(" [")[0], r.suppressed) for r in records] == [  # type: ignore[attr-defined]
        ("publishing: ConnectionError: refused", 0),
        ("publishing: TimeoutError: slow", 0),
        ("publishing: ConnectionError: refused", 39),
        ("publishing: TimeoutError: slow", 39),
        ("publishing: ConnectionError: refused", 39),
        ("publishing: TimeoutError: slow", 39),
    ]
    assert "39 more like it in the last 10 s not logged" in records[2].getMessage()
    assert [bool(r.exc_info) for r in records] == [True, True] + [False] * 4


def test_a_new_burst_after_a_quiet_interval_logs_its_traceback_and_the_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    throttle = LogThrottle(logging.getLogger("throttled"), interval=10, clock=clock)
    caplog.set_level(logging.WARNING, logger="throttled")
    for now in (0.0, 1.0, 2.0):
        clock.now = now
        throttle.failed("cache", ConnectionError("refused"))
    clock.now = 100.0  # the outage is over; another begins
    throttle.failed("cache", ConnectionError("refused"))
    assert [r.suppressed for r in caplog.records] == [0, 2]  # type: ignore[attr-defined]
    assert [bool(r.exc_info) for r in caplog.records] == [True, True]
