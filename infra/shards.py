"""The event store split over shards: one application, one recorder per shard.

With more than one shard (``OPUS_SHARDS``, infra/settings.py) the service
runs one ``Opus`` (one command pipeline, one aggregate cache) whose
recorder is a ``ShardedRecorder``: it routes each call to the shard an
aggregate lives on (the placement rule is domain/sharding.py's) over the
recorders of one ``Opus`` per shard, each on its own PostgreSQL. Those
per-shard applications are what the log's readers use: ``shard_apps``
gives them (the application itself when there is one shard), and every
reader of the log goes shard by shard through it.

- ``insert_events``: a command's events are saved in one call, so the whole
  call goes to one shard: a tournament's events (and the games saved with
  them) to its tournament's shard; a new lobby game (with its
  ``Admission``) to its own id's shard; the private aggregates' (accounts,
  names, bot accounts) to the home shard; anything else to where its
  aggregates already live. A call whose aggregates would live on two shards
  is refused (``CrossShardSaveError``: a bug, no command does it). The ids
  it returns are positions (``position_of``), so a command's answer names
  its shard.
- ``select_events``: the shard the aggregate lives on. Placement never
  changes, so where each id lives is kept (``LOCATIONS`` ids, least
  recently used forgotten), learnt on saving and on finding; an id not
  known is looked for on ``shard_of(id)`` first, then on the others. An
  aggregate not found while a shard that might hold it cannot be reached is
  ``ShardUnreachableError`` (503), never "not found".
- The log-wide reads (``select_notifications``, ``max_notification_id``,
  ``subscribe``) raise ``ShardedLogError``: there is no one log, a reader
  follows each shard's (``shard_apps``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import (
    ApplicationRecorder,
    InterfaceError,
    Mapper,
    Notification,
    OperationalError,
    StoredEvent,
)
from eventsourcing.utils import get_topic

from domain.accounts.aggregate import admission_id
from domain.accounts.events import PRIVATE_TOPIC_PREFIX
from domain.application import Opus
from domain.events import GameCreated, TournamentGameCreated
from domain.sharding import position_of, private_shard, shard_of, tournament_shard

LOCATIONS = 100_000  # ids whose shard a process keeps (a game's, an account's …)
TOURNAMENT_TOPIC_PREFIX = "domain.tournaments."
GAME_CREATED = frozenset({get_topic(GameCreated), get_topic(TournamentGameCreated)})
LOBBY_GAME_CREATED = get_topic(GameCreated)
UNREACHABLE = (OperationalError, InterfaceError)  # the library's, for a store it cannot reach


class ShardUnreachableError(OperationalError):
    """A shard that might hold the aggregate asked for cannot be reached:
    the event store's unavailable error (503 with Retry-After), never a
    "not found"."""


class CrossShardSaveError(RuntimeError):
    """One call would save aggregates that live on two shards (a bug: no
    command does, domain/sharding.py)."""


class ShardedLogError(RuntimeError):
    """A log-wide read on the sharded application: each shard has its own log."""


class ShardedRecorder(ApplicationRecorder):
    """Routes each aggregate's reads and writes to its shard's recorder."""

    def __init__(self, recorders: Sequence[ApplicationRecorder], names: Sequence[str]) -> None:
        if len(recorders) < 2 or len(names) != len(recorders):
            raise ValueError("a sharded recorder needs two or more shards, each named")
        self.recorders = list(recorders)
        self.names = list(names)
        self._locations: OrderedDict[UUID, int] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def shards(self) -> int:
        return len(self.recorders)

    # ---- where an aggregate lives ------------------------------------------------------

    def known(self, aggregate_id: UUID) -> int | None:
        """The shard an aggregate lives on, if this process has learnt it."""
        with self._lock:
            shard = self._locations.get(aggregate_id)
            if shard is not None:
                self._locations.move_to_end(aggregate_id)
            return shard

    def _learn(self, aggregate_id: UUID, shard: int, first_topic: str = "") -> None:
        with self._lock:
            self._locations[aggregate_id] = shard
            self._locations.move_to_end(aggregate_id)
            if first_topic in GAME_CREATED:  # a game's admission lives with it
                self._locations[admission_id(aggregate_id)] = shard
            while len(self._locations) > LOCATIONS:
                self._locations.popitem(last=False)

    def place_with(self, aggregate_id: UUID, anchor: UUID | None) -> None:
        """Learn where an aggregate lives without asking every shard: with
        ``anchor`` (a game's admission with its game), or on the home shard
        (``anchor`` None: an account, a name). Nothing if it is known
        already, or if the anchor is found nowhere."""
        if self.known(aggregate_id) is not None:
            return
        shard = private_shard(self.shards) if anchor is None else self.locate(anchor)
        if shard is not None:
            self._learn(aggregate_id, shard)

    def locate(self, aggregate_id: UUID) -> int | None:
        """The shard the aggregate lives on; None if no shard holds it
        (every shard answered). ``ShardUnreachableError`` if it was not
        found and a shard that was not asked could hold it."""
        shard = self.known(aggregate_id)
        if shard is not None:
            return shard
        first = shard_of(aggregate_id, self.shards)
        order = [first, *(k for k in range(self.shards) if k != first)]
        down: list[tuple[int, Exception]] = []
        for shard in order:
            try:
                found = self.recorders[shard].select_events(aggregate_id, limit=1)
            except UNREACHABLE as e:
                down.append((shard, e))
                continue
            if found:
                self._learn(aggregate_id, shard, found[0].topic)
                return shard
        if down:
            shard, error = down[0]
            raise ShardUnreachableError(
                f"{aggregate_id} was not found on the shards that answered, and "
                f"{self._describe([k for k, _ in down])} cannot be reached now: {error}"
            ) from error
        return None

    def _describe(self, shards: Sequence[int]) -> str:
        named = ", ".join(f"shard {k} ({self.names[k]})" for k in shards)
        return named

    # ---- the recorder ------------------------------------------------------------------

    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        key = originator_id if isinstance(originator_id, UUID) else UUID(originator_id)
        shard = self.locate(key)
        if shard is None:
            return []
        return self.recorders[shard].select_events(key, gt=gt, lte=lte, desc=desc, limit=limit)

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        if not stored_events:
            return []
        shard = self.shard_of_call(stored_events)
        ids = self.recorders[shard].insert_events(stored_events, **kwargs)
        for event in stored_events:
            if event.originator_version == 1 or self.known(_id(event)) is None:
                self._learn(_id(event), shard, event.topic)
        if ids is None:
            return None
        return [position_of(shard, local, self.shards) for local in ids]

    def shard_of_call(self, stored_events: Sequence[StoredEvent]) -> int:
        """The one shard a call's events go to (the module's docstring):
        each aggregate's, by its first event in the call; a new tournament
        game follows the tournament saved with it."""
        firsts: dict[UUID, StoredEvent] = {}
        for event in stored_events:
            firsts.setdefault(_id(event), event)
        lobby_games = {
            key: shard_of(key, self.shards)
            for key, event in firsts.items()
            if event.topic == LOBBY_GAME_CREATED and event.originator_version == 1
        }
        by_admission = {admission_id(game): shard for game, shard in lobby_games.items()}
        placed: dict[UUID, int] = {}
        followers: list[UUID] = []
        for key, event in firsts.items():
            new = event.originator_version == 1
            if event.topic.startswith(TOURNAMENT_TOPIC_PREFIX):
                placed[key] = tournament_shard(key, self.shards)
            elif key in lobby_games:
                placed[key] = lobby_games[key]
            elif new and key in by_admission:
                placed[key] = by_admission[key]
            elif new and event.topic.startswith(PRIVATE_TOPIC_PREFIX):
                placed[key] = private_shard(self.shards)
            elif new:
                followers.append(key)  # a tournament's new game
            else:
                located = self.locate(key)
                if located is None:
                    raise CrossShardSaveError(
                        f"{key} is saved at version {event.originator_version} "
                        "but no shard holds its earlier events"
                    )
                placed[key] = located
        shards = set(placed.values())
        if len(shards) != 1:
            where = ", ".join(f"{key} on shard {shard}" for key, shard in placed.items())
            raise CrossShardSaveError(
                f"one save would cross shards: {where or f'{len(followers)} new aggregates'}"
            )
        return shards.pop()

    def select_notifications(
        self,
        start: int | None,
        limit: int,
        stop: int | None = None,
        topics: Sequence[str] = (),
        *,
        inclusive_of_start: bool = True,
    ) -> Sequence[Notification]:
        raise self._no_one_log("select_notifications")

    def max_notification_id(self) -> int | None:
        raise self._no_one_log("max_notification_id")

    def subscribe(self, gt: int | None = None, topics: Sequence[str] = ()) -> Any:
        raise self._no_one_log("subscribe")

    def _no_one_log(self, method: str) -> ShardedLogError:
        return ShardedLogError(
            f"{method}: the event log is split over {self.shards} shards, each with its own "
            "notification log; read each shard's (infra.shards.shard_apps)"
        )


def _id(event: StoredEvent) -> UUID:
    key = event.originator_id
    return key if isinstance(key, UUID) else UUID(str(key))


class ShardedOpus(Opus):
    """The service's one application over several shards: its recorder a
    ``ShardedRecorder`` over the recorders of ``shards`` (one ``Opus`` each,
    shard 0 first), its mapper shard 0's (every shard's is configured
    alike). Closing it closes them."""

    name = "Opus"  # the library reads the application's variables under its name

    def __init__(self, shards: Sequence[Opus], names: Sequence[str]) -> None:
        self.shards = list(shards)
        self._names = list(names)
        env = {
            key: value
            for key, value in shards[0].env.items()
            if not key.startswith(("POSTGRES_", "OPUS_POSTGRES_", "SQLITE_", "OPUS_SQLITE_"))
        }
        # the router keeps no store of its own: its recorder is the shards'
        env["PERSISTENCE_MODULE"] = "eventsourcing.popo"
        env.pop("OPUS_PERSISTENCE_MODULE", None)
        env.pop("APPLICATION_RECORDER_TOPIC", None)
        env.pop("OPUS_APPLICATION_RECORDER_TOPIC", None)
        super().__init__(env)
        recorder = self.recorder
        assert isinstance(recorder, ShardedRecorder)
        # what lives on the home shard, or with its game, is asked of it alone
        self.runner.placement = recorder.place_with

    def construct_mapper(self) -> Mapper[UUID]:
        return self.shards[0].mapper

    def construct_recorder(self) -> ApplicationRecorder:
        return ShardedRecorder([shard.recorder for shard in self.shards], self._names)

    def close(self) -> None:
        super().close()
        for shard in getattr(self, "shards", []):
            shard.close()


def shard_apps(app: Opus) -> list[Opus]:
    """Each shard's application, shard 0 first: the one way a reader of the
    log finds the logs (the application itself when there is one shard)."""
    return list(app.shards) if isinstance(app, ShardedOpus) else [app]


def shard_count(app: Opus) -> int:
    return len(app.shards) if isinstance(app, ShardedOpus) else 1


def home_shard(app: Opus, aggregate_id: UUID) -> int | None:
    """The shard an aggregate lives on (0 when there is one shard); None if
    no shard holds it. ``ShardUnreachableError`` as ``ShardedRecorder.locate``."""
    recorder = app.recorder
    if isinstance(recorder, ShardedRecorder):
        return recorder.locate(aggregate_id)
    return 0
