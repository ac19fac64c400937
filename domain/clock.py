"""A game's clocks (RULES.md §11): the clock a rule set carries (R11.1) and
the fold that derives every seat's time from recorded timestamps (R11.2,
R11.3, R11.6). Pure: the times are whole microseconds since the epoch (UTC),
and all arithmetic is on integers, exact, so anyone holding the log
re-derives every clock as the service did.

The fold is told what happened, in version order, each with its command's
time: the start, each turn's end (and whose turn comes next), a seat
withdrawn or handed to a bot, pauses, resumptions and time added. It answers
what R11.3 asks: the deadline of the turn in progress, if its clock runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from domain.errors import ClockError

SECOND = 1_000_000  # microseconds
DAY = 86_400  # seconds
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
WITHDRAW = "withdraw"
BOT = "bot:"


def now() -> datetime:
    """The service's clock (UTC): a timed game's command time (R11.2). The
    one place the game asks the time, so that tests may set it."""
    return datetime.now(UTC)


def micros(moment: datetime | str) -> int:
    """A recorded timestamp as whole microseconds since the epoch, exactly."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    return (moment - EPOCH) // timedelta(microseconds=1)


def moment(us: int) -> datetime:
    """The inverse of ``micros``: a UTC datetime, exact to the microsecond."""
    return EPOCH + timedelta(microseconds=us)


@dataclass(frozen=True)
class Clock:
    """R11.1: whole seconds. ``on_timeout`` is ``withdraw`` or
    ``bot:<kind>``; ``grace`` is the deployment's promise of R11.4."""

    initial: int
    increment: int = 0
    move_limit: int | None = None
    on_timeout: str = WITHDRAW
    grace: int = 5

    def __post_init__(self) -> None:
        numbers = [self.initial, self.increment, self.grace]
        if self.move_limit is not None:
            numbers.append(self.move_limit)
        if any(type(n) is not int for n in numbers):  # not 3.0, not true
            raise ClockError("a clock's times are whole seconds")
        if not 10 <= self.initial <= 30 * DAY:
            raise ClockError(f"initial is between 10 seconds and 30 days, not {self.initial}")
        if not 0 <= self.increment <= self.initial:
            raise ClockError(
                f"increment is between 0 and initial ({self.initial}), not {self.increment}"
            )
        if self.move_limit is not None and not 10 <= self.move_limit <= self.initial:
            raise ClockError(
                f"move_limit is between 10 and initial ({self.initial}), not {self.move_limit}"
            )
        if not 1 <= self.grace <= 60:
            raise ClockError(f"grace is between 1 and 60 seconds, not {self.grace}")
        if self.on_timeout != WITHDRAW:
            kind = self.on_timeout.removeprefix(BOT)
            if not self.on_timeout.startswith(BOT) or kind not in bot_kinds():
                raise ClockError(
                    f"on_timeout is {WITHDRAW!r} or 'bot:<kind>' of a bot we have "
                    f"({', '.join(sorted(bot_kinds()))}), not {self.on_timeout!r}"
                )
            if self.increment < 1:
                raise ClockError("a clock whose bot takes over has an increment of 1 or more")

    def as_dict(self) -> dict[str, Any]:
        return {
            "initial": self.initial,
            "increment": self.increment,
            "move_limit": self.move_limit,
            "on_timeout": self.on_timeout,
            "grace": self.grace,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Clock:
        return cls(**d)

    @property
    def bot(self) -> str | None:
        """R11.5: the bot kind that takes a seat over, or None (withdraw)."""
        return self.on_timeout.removeprefix(BOT) if self.on_timeout != WITHDRAW else None


# R11.1: names for values; only the values are recorded.
PRESETS: dict[str, Clock] = {
    "blitz": Clock(180, 5),
    "rapid": Clock(600, 10),
    "daily": Clock(3 * DAY, DAY),
}


def bot_kinds() -> frozenset[str]:
    """The bots R11.5 may hand a seat to (imported late: the bots play by
    the engine, which reads the rule set that holds the clock)."""
    from domain.bots import BOTS

    return frozenset(BOTS)


@dataclass
class Clocks:
    """R11.2, R11.3, R11.6 as a fold over what was recorded, each step
    given its command's time ``at`` (microseconds). ``remaining`` is each
    seat's time after its last turn (or its start); the turn in progress is
    ``turn``'s, started at ``started`` with ``budget`` to spend, ``paused``
    microseconds of it spent paused so far (and ``paused_since`` while the
    clocks are paused).
    Withdrawn seats' and bots' turns run no clock."""

    clock: Clock
    remaining: list[int] = field(default_factory=list)
    turn: int | None = None
    started: int = 0
    budget: int = 0  # the turn's time: remaining at its start, with R11.6's additions
    paused: int = 0
    paused_since: int | None = None
    withdrawn: set[int] = field(default_factory=set)
    bots: set[int] = field(default_factory=set)
    added: dict[int, int] = field(default_factory=dict)  # R11.6: kept for a bot's seat
    stopped: bool = False

    # ---- as a view keeps it -------------------------------------------------

    def to_doc(self) -> dict[str, Any]:
        """The fold as JSON (projections/clocks.py keeps it per game)."""
        return {
            "clock": self.clock.as_dict(),
            "remaining": list(self.remaining),
            "turn": self.turn,
            "started": self.started,
            "budget": self.budget,
            "paused": self.paused,
            "paused_since": self.paused_since,
            "withdrawn": sorted(self.withdrawn),
            "bots": sorted(self.bots),
            "added": {str(seat): us for seat, us in self.added.items()},
            "stopped": self.stopped,
        }

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> Clocks:
        return cls(
            clock=Clock.from_dict(doc["clock"]),
            remaining=list(doc["remaining"]),
            turn=doc["turn"],
            started=doc["started"],
            budget=doc["budget"],
            paused=doc["paused"],
            paused_since=doc["paused_since"],
            withdrawn=set(doc["withdrawn"]),
            bots=set(doc["bots"]),
            added={int(seat): us for seat, us in doc["added"].items()},
            stopped=doc["stopped"],
        )

    # ---- the fold -----------------------------------------------------------

    def start(self, seats: int, at: int) -> None:
        """GameStarted: every seat has ``initial``; seat 0's turn starts."""
        self.remaining = [self.clock.initial * SECOND] * seats
        self._begin(0, at)

    def turn_ended(self, seat: int, next_seat: int, at: int) -> None:
        """TurnEnded: the seat's turn ends at ``at`` (its time used, the
        increment added, capped at initial, when its clock ran); the next
        seat's starts."""
        if self.turn == seat and self.runs(seat):
            left = self.budget - self._used(at) + self.clock.increment * SECOND
            self.remaining[seat] = min(self.clock.initial * SECOND, left)
        self._begin(next_seat, at)

    def seat_withdrawn(self, seat: int) -> None:
        self.withdrawn.add(seat)

    def taken_over(self, seat: int, at: int) -> None:
        """R11.5: a bot plays the rest of the turn, with no clock; the seat
        keeps r, what it had left less the time used in this turn."""
        if self.turn == seat and self.runs(seat):
            self.remaining[seat] = max(0, self.budget - self._used(at))
        self.bots.add(seat)

    def reclaimed(self, seat: int, at: int) -> None:
        """R11.5: the seat's player takes its next turn back from here, with
        max(r, increment) plus any time added meanwhile, capped at initial."""
        self.bots.discard(seat)
        left = max(self.remaining[seat], self.clock.increment * SECOND)
        left += self.added.pop(seat, 0)
        self.remaining[seat] = min(self.clock.initial * SECOND, left)
        self._begin(seat, at)

    def time_added(self, seat: int, seconds: int, at: int) -> None:
        """R11.6: in the seat's own turn, added to what it has left at that
        instant, capped at initial (the deadline moves, unless move_limit
        binds); out of it, to its remaining, capped; for a bot's seat, kept
        until the seat is reclaimed."""
        extra, cap = seconds * SECOND, self.clock.initial * SECOND
        if seat in self.bots:
            self.added[seat] = self.added.get(seat, 0) + extra
        elif self.turn == seat and self.runs(seat):
            used = self._used(at)
            self.budget = used + min(cap, self.budget - used + extra)
        else:
            self.remaining[seat] = min(cap, self.remaining[seat] + extra)

    def clocks_paused(self, at: int) -> None:
        self.paused_since = at

    def clocks_resumed(self, at: int) -> None:
        if self.paused_since is not None:
            self.paused += at - max(self.paused_since, self.started)
        self.paused_since = None

    def game_ended(self) -> None:
        self.stopped = True

    def step(self, event_type: str, p: Mapping[str, Any], at: int) -> None:
        """A game's event after its start, by its type and fields, at its
        command time: the one reading of the events the game (GameState)
        and the running clocks' view (projections/clocks.py) both fold."""
        if event_type == "TurnEnded":
            self.turn_ended(p["player"], p["next_player"], at)
        elif event_type == "SeatWithdrawn":
            self.seat_withdrawn(p["player"])
        elif event_type == "TimeAdded":
            self.time_added(p["player"], p["seconds"], at)
        elif event_type == "ClocksPaused":
            self.clocks_paused(at)
        elif event_type == "ClocksResumed":
            self.clocks_resumed(at)
        elif event_type == "GameEnded":
            self.game_ended()

    # ---- what R11.3 asks ---------------------------------------------------

    def runs(self, seat: int) -> bool:
        """Whether the seat's turn runs a clock: not withdrawn, not a bot's."""
        return seat not in self.withdrawn and seat not in self.bots

    def deadline(self) -> int | None:
        """R11.3: the turn in progress's deadline, start + paused +
        min(remaining, move_limit); None when no clock runs (a withdrawn
        seat's or a bot's turn, the clocks stopped) or while paused (it
        moves later by the time paused, not known yet)."""
        seat = self.turn
        if seat is None or self.stopped or not self.runs(seat) or self.paused_since is not None:
            return None
        allowed = self.budget
        if self.clock.move_limit is not None:
            allowed = min(allowed, self.clock.move_limit * SECOND)
        return self.started + self.paused + allowed

    def left(self, at: int) -> list[int]:
        """Each seat's time left at ``at`` (the turn in progress's counting
        down, never below 0): what a page shows."""
        out = list(self.remaining)
        seat = self.turn
        if seat is not None and not self.stopped and self.runs(seat):
            out[seat] = max(0, self.budget - self._used(at))
        return out

    # ---- helpers --------------------------------------------------------------

    def _begin(self, seat: int, at: int) -> None:
        """A turn starts at ``at`` with the seat's remaining time as its
        budget; one that starts while paused counts from the resumption."""
        self.turn, self.started, self.paused = seat, at, 0
        self.budget = self.remaining[seat] if self.remaining else 0
        if self.paused_since is not None:
            self.paused_since = at

    def _used(self, at: int) -> int:
        """The time the turn in progress has counted up to ``at``: since its
        start, less the time paused within it."""
        paused = self.paused
        if self.paused_since is not None:
            paused += max(0, at - max(self.paused_since, self.started))
        return at - self.started - paused
