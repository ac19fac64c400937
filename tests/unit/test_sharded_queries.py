"""The read side's positions over shards, on a fake view store (the port,
projections/ports.py, held in a dict): ``?after=`` waits for the shard its
position names, lags are each shard's, a view's commit checks every other
shard's position; and the order across shards (domain.sharding.order_key)
sorts by time as the stored timestamps' text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from eventsourcing.persistence import Tracking

from domain.sharding import order_key, position_of
from projections.ports import Changes, TrackingConflictError
from projections.queries import Queries
from projections.view import View


class FakeViews:
    """Only positions and commits: what these queries and views ask."""

    def __init__(self) -> None:
        self.tracking: dict[str, dict[str, int]] = {}
        self.commits: list[tuple[str, int, dict[str, int | None] | None]] = []

    def position(self, ns: str, application_name: str) -> int | None:
        return self.tracking.get(ns, {}).get(application_name)

    def active_generation(self, projection: str) -> str:
        return "g0"

    def get(self, ns: str, key: str) -> str | None:
        return None

    def commit(
        self,
        ns: str,
        changes: Changes,
        application_name: str,
        expected: int | None,
        position: int,
        active: Any = None,
        *,
        holds: dict[str, int | None] | None = None,
    ) -> None:
        stored = self.tracking.setdefault(ns, {})
        if stored.get(application_name) != expected:
            raise TrackingConflictError(f"{application_name} moved")
        for name, believed in (holds or {}).items():
            if stored.get(name) != believed:
                raise TrackingConflictError(f"{name} moved")
        stored[application_name] = position
        self.commits.append((application_name, position, holds))


def test_after_a_position_waits_for_the_shard_it_names_only() -> None:
    store = FakeViews()
    store.tracking["table.g0"] = {"Opus": 10, "Opus.1": 3}
    queries = Queries(store, shards=2, heads=lambda: [10, 5])  # type: ignore[arg-type]
    queries.wait_for("table", position_of(0, 10, 2), timeout=0.1)
    queries.wait_for("table", position_of(1, 3, 2), timeout=0.1)
    with pytest.raises(TimeoutError, match="shard 1's notification 4"):
        queries.wait_for("table", position_of(1, 4, 2), timeout=0.05)
    assert queries.lags("table") == {0: 0, 1: 2}
    assert queries.lags("table", {1: 3}) == {1: 0}
    written, beyond = position_of(1, 5, 2), position_of(1, 6, 2)
    assert queries.capped(written) == written  # in shard 1's log
    assert queries.capped(beyond) == written < beyond  # past it: its last position
    assert queries.head() == position_of(0, 10, 2)


def test_one_shard_keeps_todays_positions() -> None:
    store = FakeViews()
    store.tracking["table.g0"] = {"Opus": 7}
    queries = Queries(store, head=lambda: 9)  # type: ignore[arg-type]
    queries.wait_for("table", 7, timeout=0.1)
    with pytest.raises(TimeoutError, match="is at position 7, not yet 8 "):
        queries.wait_for("table", 8, timeout=0.05)
    assert queries.head() == 9 and queries.heads() == [9]
    assert queries.lags("table") == {0: 2}


def test_a_views_commit_of_one_shard_checks_every_other_shards_position() -> None:
    store = FakeViews()
    view = View(store, "table", "g0", shards=2)  # type: ignore[arg-type]
    view.follow(1)
    view.insert_tracking(Tracking("Opus.1", 4))
    assert store.commits[-1] == ("Opus.1", 4, {"Opus": None})
    store.tracking["table.g0"]["Opus"] = 2  # another writer took shard 0's events
    view.follow(0)
    with pytest.raises(TrackingConflictError):
        view.insert_tracking(Tracking("Opus", 1))
    assert store.tracking["table.g0"] == {"Opus": 2, "Opus.1": 4}


def test_one_shards_view_commits_as_before() -> None:
    store = FakeViews()
    view = View(store, "table", "g0")  # type: ignore[arg-type]
    view.insert_tracking(Tracking("Opus", 3))
    assert store.commits == [("Opus", 3, None)]


def test_the_order_across_shards_is_the_timestamps_then_shard_then_notification() -> None:
    start = datetime(2026, 12, 1, 21, 0, tzinfo=UTC)
    on_the_second = start.isoformat()  # no fraction: "…:00+00:00"
    just_after = (start + timedelta(microseconds=1)).isoformat()  # "…:00.000001+00:00"
    later = (start + timedelta(seconds=1)).isoformat()
    keys = [
        order_key(later, position_of(0, 1, 2), 2),
        order_key(just_after, position_of(0, 9, 2), 2),
        order_key(on_the_second, position_of(1, 8, 2), 2),
        order_key(on_the_second, position_of(0, 7, 2), 2),
    ]
    assert sorted(keys) == [keys[3], keys[2], keys[1], keys[0]]
    assert keys[2] == (on_the_second, 1, 8)
