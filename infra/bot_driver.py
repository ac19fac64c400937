"""The service's bots at play: a bot seat's move, made through the service.

``BotDriver`` listens to every saved command (``Opus.listeners``: it only
notes the games the records name, never working inside the command's
response path) and sweeps the running games of the lobby now and then (the
games left waiting when a process stopped, and those another process's
commands moved). A noted game is looked at on a worker thread after
``delay`` seconds (so that people at the table can follow; 0 in tests),
one game at a time per game, from a bounded set of games due: a full set
drops the notice, and the next sweep finds the game again.

Looking at a game: when it runs and a seat held by a bot account (the
roster of domain/bot_seats.py: the seat's token hash is the account's
holder hash) has a legal move (its turn; asked of every bot seat whenever
the game changes, so a choice on another's turn would be found too), the
bot of the account's kind decides on what its seat knows
(``domain.bots.knowledge``: its hand and the open table, no other hand,
never the deck's order) and plays through ``Opus.play`` with the account's
holder hash, as a client would, with the command id
``bot.<kind>.<game>.<version>`` and the version it decided on as If-Match. So the bots of two
processes (API workers on one store) apply a move once: the second is
answered as a replay, or clashes and looks again. A withdrawn seat has no
legal move (R3.5: its turns pass by themselves); an ended game has none.
A tournament's tables seat the tournament's registrations, never a bot
account unless it registered.

A game seen running with no seat named as a bot, or seen ended, is not
looked at again (a running game's seats never change): this process
remembers the last ``REMEMBERED`` of them.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from uuid import UUID

from domain.application import Opus
from domain.audit import Record
from domain.bot_seats import named_as_bot, roster
from domain.bots import BOTS, Bot, knowledge
from domain.errors import (
    GameNotFoundError,
    NotAuthorisedError,
    OpusError,
    VersionClashError,
)
from domain.events import EVENT_TYPES
from domain.legal import legal_moves
from domain.pipeline import Caller
from domain.state import GameState
from infra.logthrottle import LogThrottle
from infra.settings import DEFAULT_BOT_DELAY_SECONDS as DEFAULT_DELAY
from projections.queries import Queries

log = logging.getLogger(__name__)
_failures = LogThrottle(log)

SWEEP_SECONDS = 5.0  # how often the running games are looked through
SWEEP_LIMIT = 1000  # the running games a sweep reads from the lobby view (the latest)
CAPACITY = 10_000  # games due at once; past it a notice is dropped (the sweep finds it)
WORKERS = 2
REMEMBERED = 50_000  # games known to need no bot (running without one, or ended)
JOIN_SECONDS = 5.0

RunningGames = Callable[[], Iterable[tuple[UUID, Sequence[str]]]]


def command_id(kind: str, game_id: UUID, version: int) -> str:
    """A bot's move's command id: the same for every process's bot deciding
    on that version of the game. It has no colon: a command id's key is what
    comes before one (domain/chained.py), and each decision is its own key."""
    return f"bot.{kind}.{game_id}.{version}"


class BotDriver:
    def __init__(
        self,
        opus: Opus,
        running: RunningGames,
        *,
        delay: float = DEFAULT_DELAY,
        sweep_seconds: float = SWEEP_SECONDS,
        workers: int = WORKERS,
        capacity: int = CAPACITY,
    ) -> None:
        self.opus = opus
        self.running = running
        self.delay = delay
        self.sweep_seconds = sweep_seconds
        self.workers = workers
        self.capacity = capacity
        self.roster = roster(opus)
        self.played = 0  # moves this driver applied
        self.dropped = 0  # notices dropped, the set of due games full
        self._cond = threading.Condition()
        self._due: dict[UUID, float] = {}  # game -> when to look at it (monotonic)
        self._heap: list[tuple[float, int, UUID]] = []
        self._order = itertools.count()
        self._busy: set[UUID] = set()
        self._again: dict[UUID, float] = {}  # noticed while busy: due once done
        self._settled: OrderedDict[UUID, None] = OrderedDict()  # need no bot, for good
        self._looked: dict[UUID, float] = {}  # game -> when this driver last looked at it
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    # ---- starting and stopping -----------------------------------------------------

    def start(self) -> BotDriver:
        self.opus.listeners.append(self.notice)
        for number in range(self.workers):
            thread = threading.Thread(target=self._work, name=f"opus-bots-{number}", daemon=True)
            self._threads.append(thread)
        self._threads.append(
            threading.Thread(target=self._sweep, name="opus-bots-sweep", daemon=True)
        )
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        """Stop noticing and working (a move under way is finished first)."""
        if self.notice in self.opus.listeners:
            self.opus.listeners.remove(self.notice)
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        for thread in self._threads:
            thread.join(JOIN_SECONDS)

    # ---- what is due ------------------------------------------------------------------

    def notice(self, records: list[Record]) -> None:
        """A listener of ``Opus``: each game a saved command changed is due
        after the delay. It only notes them (it runs in the command's path)."""
        for game in {r.aggregate_id for r in records if r.type in EVENT_TYPES}:
            self.wake(UUID(game), self.delay)

    def wake(self, game_id: UUID, after: float = 0.0) -> None:
        """Look at the game in ``after`` seconds (sooner if it is due sooner)."""
        due = time.monotonic() + after
        with self._cond:
            if game_id in self._settled:
                return
            if game_id in self._busy:
                self._again[game_id] = min(due, self._again.get(game_id, due))
                return
            self._schedule(game_id, due)

    def _schedule(self, game_id: UUID, due: float) -> None:
        known = self._due.get(game_id)
        if known is not None and known <= due:
            return
        if known is None and len(self._due) >= self.capacity:
            self.dropped += 1
            return
        self._due[game_id] = due
        heapq.heappush(self._heap, (due, next(self._order), game_id))
        self._cond.notify()

    def _next(self) -> UUID | None:
        """The next game due (waiting for it), or None once stopped."""
        with self._cond:
            while not self._stop.is_set():
                if not self._heap:
                    self._cond.wait()
                    continue
                due, _, game_id = self._heap[0]
                if self._due.get(game_id) != due:  # rescheduled sooner, or taken
                    heapq.heappop(self._heap)
                    continue
                wait = due - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                heapq.heappop(self._heap)
                del self._due[game_id]
                self._busy.add(game_id)
                return game_id
        return None

    def _done(self, game_id: UUID) -> None:
        with self._cond:
            self._busy.discard(game_id)
            again = self._again.pop(game_id, None)
            if again is not None and game_id not in self._settled:
                self._schedule(game_id, again)

    def _settle(self, game_id: UUID) -> None:
        with self._cond:
            self._settled[game_id] = None
            self._settled.move_to_end(game_id)
            if len(self._settled) > REMEMBERED:
                self._settled.popitem(last=False)

    # ---- the threads ------------------------------------------------------------------

    def _work(self) -> None:
        bots = {kind: make(random.Random()) for kind, make in BOTS.items()}
        while (game_id := self._next()) is not None:
            try:
                self.look(game_id, bots)
            except Exception as e:  # the store down, a bug: logged, and the sweep tries again
                _failures.failed("a bot's move failed", e)
            finally:
                with self._cond:
                    self._looked[game_id] = time.monotonic()
                self._done(game_id)

    def _sweep(self) -> None:
        """Every ``sweep_seconds``, each running game with a seat named as a
        bot that this driver has not looked at since the last sweep (the
        others it follows as they change)."""
        wait = 0.0  # the first sweep at once: games left waiting by a restart
        while not self._stop.wait(wait):
            wait = self.sweep_seconds
            since = time.monotonic() - self.sweep_seconds
            with self._cond:
                self._looked = {g: at for g, at in self._looked.items() if at >= since}
                recent = set(self._looked)
            try:
                for game_id, names in self.running():
                    if game_id not in recent and any(named_as_bot(name) for name in names):
                        self.wake(game_id)
            except Exception as e:
                _failures.failed("the bots' sweep of the running games failed", e)

    # ---- a game ------------------------------------------------------------------------

    def look(self, game_id: UUID, bots: dict[str, Bot]) -> bool:
        """Play a bot seat's move in the game if one has a legal move now;
        whether this driver applied one."""
        with self.opus.reading(game_id) as (state, version):
            if state.status == "ended" or (
                state.status == "running" and not any(named_as_bot(n) for n in state.names)
            ):
                self._settle(game_id)
                return False
            if state.status != "running":
                return False
            hashes, names = list(state.token_hashes), list(state.names)
            # what each seat with a legal move knows, taken while the game holds still
            movers: dict[int, GameState] = {
                seat: knowledge(state, seat)
                for seat in range(state.players)
                if seat not in state.withdrawn and legal_moves(state, seat)
            }
        seated = self.roster.seated(hashes, names)  # (after the game's lock: it may read accounts)
        for seat, seen in sorted(movers.items()):
            bot = seated.get(seat)
            if bot is None:
                continue
            move = bots[bot.kind](seen, seat)
            caller = Caller(
                bot.holder_hash,
                command=command_id(bot.kind, game_id, version),
                expected_version=version,
            )
            try:
                outcome = self.opus.play(game_id, move, caller=caller)
            except VersionClashError:  # the game moved meanwhile: look again at once
                self.wake(game_id)
                return False
            except (GameNotFoundError, NotAuthorisedError):  # gone, or the seat is not its
                return False
            except OpusError as e:  # a rule refused the bot's move: a bug, never retried at once
                _failures.failed(f"a {bot.kind} bot's move was refused", e, logging.ERROR)
                return False
            if outcome.replayed:  # another process's bot made it: go on from there
                self.wake(game_id, self.delay)
                return False
            with self._cond:
                self.played += 1
            return True
        return False


def running_games(views: Queries, limit: int = SWEEP_LIMIT) -> RunningGames:
    """The running lobby games (not a tournament's) with their players'
    names, from the lobby view."""

    def running() -> list[tuple[UUID, Sequence[str]]]:
        return [
            (UUID(doc["game"]), list(doc["players"]))
            for doc in views.lobby(limit)["running"]
            if not doc.get("tournament")
        ]

    return running


def start(opus: Opus, views: Queries, delay: float = DEFAULT_DELAY) -> BotDriver:
    """A started driver of the bots of ``opus``'s games (``stop`` it)."""
    return BotDriver(opus, running_games(views), delay=delay).start()
