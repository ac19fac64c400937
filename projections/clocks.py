"""The running clocks (RULES.md §11): what the clock scheduler fires and the
pages count down from (issue 37). Keys:

- ``<game>``: a timed game's clocks, the fold of domain/clock.py as JSON
  (``Clocks.to_doc``), and ``expired``, the seat whose TimeExpired this turn
  recorded (null for none);
- the sorted set ``due``: each game whose turn in progress runs a clock,
  scored by its deadline (microseconds since the epoch, UTC); a game leaves
  it while its clocks are paused, while a withdrawn seat's turn runs, once
  its deadline's TimeExpired is recorded and when it ends.

Built from the events' own command times (every timed game's event carries
one, R11.2), so a rebuild gives the same view, and the scheduler that reads
it after a restart fires every deadline it missed.
"""

from __future__ import annotations

from typing import Any

from domain.clock import Clock, Clocks, micros
from domain.events import (
    ClocksPaused,
    ClocksResumed,
    GameCreated,
    GameEnded,
    GameStarted,
    SeatWithdrawn,
    TimeAdded,
    TimeExpired,
    TurnEnded,
)
from projections.base import Fields, ViewProjection, on
from projections.view import Transaction

DUE = "due"


class ClocksView(ViewProjection):
    name = "clocks"

    @on(GameCreated)
    def _created(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        if p.get("clock"):
            tx.put(game, {"clock": p["clock"], "fold": None, "expired": None})

    @on(GameStarted)
    def _started(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        doc = tx.peek(game)
        if doc is None:  # an untimed game
            return
        clocks = Clocks(Clock.from_dict(doc["clock"]))
        clocks.start(p["rules"]["players"], micros(p["timestamp"]))
        self._keep(game, doc, clocks, tx)

    @on(TurnEnded, SeatWithdrawn, TimeExpired, TimeAdded, ClocksPaused, ClocksResumed, GameEnded)
    def _moved(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        doc = tx.peek(game)
        if doc is None or doc["fold"] is None:  # an untimed game, or not started
            return
        clocks = Clocks.from_doc(doc["fold"])
        clocks.step(kind, p, micros(p["timestamp"]))
        if kind == "TurnEnded":
            doc["expired"] = None
        elif kind == "TimeExpired":
            doc["expired"] = p["player"]
        self._keep(game, doc, clocks, tx)

    @staticmethod
    def _keep(game: str, doc: dict[str, Any], clocks: Clocks, tx: Transaction) -> None:
        doc["fold"] = clocks.to_doc()
        tx.put(game, doc)
        deadline = clocks.deadline()
        tx.zremove(DUE, game)
        if deadline is not None and doc["expired"] is None:
            tx.incr(DUE, game, deadline)
