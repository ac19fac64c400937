"""The clock scheduler (RULES.md R11.4): each passed deadline of a timed
game is recorded, within the clock's ``grace``, by the service itself.

It reads the running clocks' view (projections/clocks.py: the games whose
turn runs a clock, by deadline) every ``tick`` seconds and, for each
deadline passed, asks ``Opus.expire`` with the command id
``clock.<game>.<deadline>``: the game records TimeExpired and what R11.5
owes, once. Nothing is kept here: after kill -9 or a restart the view still
holds every deadline not yet recorded, so the first round fires each one
missed, once; a second scheduler over the same store (a standby) is
answered as a replay or refused as settled (R11.4: nothing owed), never
records twice. A deadline the view shows that the game has settled since
(a move made in time, a command that recorded the expiry first) is refused
by the game and dropped.

Why a role of its own (``opus clocks``; a thread of ``opus serve`` on the
embedded defaults), not the projector: it writes, through the one command
pipeline, as the API does; the projector only reads the log and keeps views.
"""

from __future__ import annotations

import logging
import threading
from uuid import UUID

from domain import clock
from domain.application import Opus
from domain.clock import micros
from domain.errors import OpusError, RuleError
from domain.pipeline import Caller
from infra.logthrottle import LogThrottle
from projections.queries import Queries

TICK_SECONDS = 0.25  # well within a clock's grace (1 s at least, R11.1)
JOIN_SECONDS = 5.0
log = logging.getLogger(__name__)


class ClockScheduler:
    def __init__(self, opus: Opus, views: Queries, tick: float = TICK_SECONDS) -> None:
        self.opus = opus
        self.views = views
        self.tick = tick
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._throttle = LogThrottle(log)
        self.fired = 0  # deadlines this scheduler recorded

    def run_once(self) -> list[UUID]:
        """Fire every deadline passed now; the games whose expiry it recorded."""
        recorded = []
        for game, deadline in self.views.clocks_due(micros(clock.now())):
            caller = Caller(command=f"clock.{game}.{deadline}")
            try:
                outcome = self.opus.expire(UUID(game), caller=caller)
            except RuleError:
                continue  # settled meanwhile: the view has not caught up yet
            except OpusError as e:
                self._throttle.failed(f"clock scheduler: game {game}", e)
                continue
            if not outcome.replayed:
                recorded.append(UUID(game))
                self.fired += 1
        return recorded

    def run(self) -> None:
        """Fire deadlines until ``stop``; a round that fails is logged and tried again."""
        while not self._stop.is_set():
            try:
                self.run_once()
            except Exception as e:  # a store away: the next round asks again
                self._throttle.failed("clock scheduler", e)
            self._stop.wait(self.tick)

    def start(self) -> ClockScheduler:
        self._thread = threading.Thread(target=self.run, name="opus-clocks", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(JOIN_SECONDS)
