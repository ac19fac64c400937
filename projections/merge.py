"""Which shard's events to project next, when several shards' are at hand.

A runner catching up, or a rebuild, has events of several shards waiting.
Projected one shard's log after another, every game of the later shard
would sort before games of the earlier one already rated (projections/
order.py), and each would be rated again. So the next run is the shard
whose first waiting event is the earliest (timestamp, then shard: the
order across shards), up to a second past another shard's first waiting
event (runs long enough to commit few times, games late by a second at
most); a run of another shard than the home one stops before the home
shard's next waiting event that says whose a token is (an account opened,
tokens adopted), or its last at hand, so that every such event is
projected before the seats taken after it. When the home
shard has nothing waiting, another shard's run waits for ``home_ready``
(the views hold the home shard's log to its head, or it cannot be
reached). With one shard, a run is all that waits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from domain.accounts.events import AccountOpened, TokensAdopted
from domain.internals import Row
from domain.sharding import HOME_SHARD
from projections.base import DecodedEvent

WINDOW = timedelta(seconds=1)  # how far a run may go past another shard's next event
HOLDING = (AccountOpened, TokensAdopted)  # the events that say whose a token is


@dataclass
class Pending:
    """One shard's events read and decoded, not yet projected: ``rows``, the
    records of the first of them (``events``) and, if the next row could not
    be decoded, its error (``error``); ``failure``: the reader's error,
    raised once these are projected."""

    rows: list[Row] = field(default_factory=list)
    events: list[DecodedEvent] = field(default_factory=list)
    error: Exception | None = None
    failure: BaseException | None = None

    def __bool__(self) -> bool:
        return bool(self.rows)

    def first_time(self) -> str:
        """The first event's timestamp ("" if it cannot be decoded: at once)."""
        return str(self.events[0][3]["timestamp"]) if self.events else ""

    def holding_time(self) -> str:
        """The timestamp of the first event that says whose a token is (an
        account opened, tokens adopted), else of the last event at hand
        (what comes after it is not known yet)."""
        for event in self.events:
            if issubclass(event[0], HOLDING):
                return str(event[3]["timestamp"])
        return str(self.events[-1][3]["timestamp"]) if self.events else ""

    def take(self, horizon: str | None) -> tuple[list[Row], list[DecodedEvent], Exception | None]:
        """The first events, up to the first stamped at ``horizon`` or later
        (one at least; all when None), taken out. With an undecodable row,
        everything: the run's last row is the one that failed."""
        if self.error is not None or horizon is None:
            run = self.rows, self.events, self.error
            self.rows, self.events, self.error = [], [], None
            return run
        count = next(
            (i for i, event in enumerate(self.events) if event[3]["timestamp"] >= horizon),
            len(self.events),
        )
        count = max(count, 1)
        if count == len(self.rows):
            run = self.rows, self.events, None
            self.rows, self.events = [], []
            return run
        run = self.rows[:count], list(self.events[:count]), None
        self.rows, self.events = self.rows[count:], list(self.events[count:])
        return run


def next_run(
    pending: list[Pending], home_ready: Callable[[], bool]
) -> tuple[int, str | None] | None:
    """The shard to project a run of next and the timestamp it stops before
    (None: all it has); None when nothing may go now. A run stops
    ``WINDOW`` after another shard's first waiting event (the games of
    that shard ending meanwhile come late, rated again: few), and one of
    another shard than the home one at the home shard's next waiting event
    that says whose a token is (``Pending.holding_time``)."""
    waiting = [shard for shard, events in enumerate(pending) if events]
    if not waiting:
        return None
    shard = min(waiting, key=lambda k: (pending[k].first_time(), k))
    stops = [_later(pending[k].first_time()) for k in waiting if k != shard]
    home = pending[HOME_SHARD]
    if shard != HOME_SHARD:
        if home:
            stops.append(home.holding_time())
        elif not home_ready():
            return None
    return shard, min(stops, default=None)


def _later(stamp: str) -> str:
    """``WINDOW`` after a timestamp, as the stored text (ISO 8601, UTC)."""
    try:
        return (datetime.fromisoformat(stamp) + WINDOW).isoformat()
    except ValueError:  # not a time: no later one
        return stamp
