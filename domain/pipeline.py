"""The command pipeline: the one way a command on any aggregate runs.

Every entry point (the HTTP API, the web pages, the CLI, bots, simulation)
hands ``Opus`` a ``Caller`` read once from its request, and every command,
on a game or a tournament, runs through ``Runner.run``:

1. lock the ids the command touches, each lock once, in one sorted order
   (no lock is global; a command found to touch more takes them all again);
2. load the target (the cached copy, caught up where it must be);
3. authorise the caller, once more on the latest state if refused;
4. answer a replayed command (its id was applied already), never apply it
   twice;
5. check If-Match (``Caller.expected_version``) on the latest state;
6. act: the command decides, and triggers events on the target and on any
   aggregate it loads or adds through the ``Unit``;
7. ask the registered save policies what else joins the save (T5.1: a
   tournament's result joins the save of its game's end);
8. save everything the command changed in one transaction;
9. on a concurrent write, go again from 2 (VersionClashError under
   If-Match); on any failure, forget the cached copies it changed;
10. tell the listeners what was saved.

A create has its own short path (``Runner.create``): a new aggregate whose
id a command id may decide, so that a retried create finds what it made.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar
from uuid import UUID, uuid5

from eventsourcing.application import AggregateNotFoundError, Application
from eventsourcing.persistence import IntegrityError, Recording

from domain.chained import Chained
from domain.errors import (
    IdempotencyConflictError,
    NotAuthorisedError,
    RuleError,
    VersionClashError,
)
from domain.internals import evict

RETRIES = 5  # tries of a command whose save met another writer's
LOCK_STRIPES = 256  # a fixed set of locks: memory stays bounded however many aggregates

A = TypeVar("A", bound=Chained)
log = logging.getLogger(__name__)

COMMAND_IDS = UUID("6f1c9b54-3a0e-4f4e-9a65-0d8e8e0b6b1a")


def id_for(command: str, kind: str = "") -> UUID:
    """The id of an aggregate created under a command id, derived from the
    id's key (``kind`` keeps a game's and a tournament's apart), so that a
    retried create finds what it made the first time."""
    return uuid5(COMMAND_IDS, kind + command.partition(":")[0])


@dataclass(frozen=True)
class Caller:
    """Who asks, and how, as an entry point read it from its request.

    ``token_hash``: the SHA-256 of the caller's token (``Authorization``);
    None for the service's own callers (simulation, bots run by the
    service, the operator's CLI), whom nothing is refused for want of a
    token. A join or a registration gives its seat this token; a create
    makes it the organiser's.
    ``command``: the command id (the ``Idempotency-Key``, scoped to the
    caller): a command retried with it is answered, never applied twice.
    ``expected_version``: ``If-Match``: refused unless the target is at
    this version."""

    token_hash: str | None = None
    command: str = ""
    expected_version: int | None = None


SERVICE = Caller()


def holds(stored: str, token_hash: str) -> bool:
    """Whether a caller's token hash is the stored one, compared in constant
    time; an empty stored hash is nobody's."""
    return bool(stored) and hmac.compare_digest(stored, token_hash)


@dataclass(frozen=True)
class CommandOutcome:
    """Where a command's events landed, and what it answers."""

    position: int | None  # notification id of its last event; None for a replay
    version: int  # the target's version after it
    aggregate_id: UUID  # the target (for a create, the new aggregate)
    replayed: bool = False  # the command id was seen before: nothing was applied again
    value: int | None = None  # a join's seat, a registration's number, a pairing's round


class Unit:
    """The aggregates one try of a command loads, adds and changes. Only
    aggregates whose locks the runner holds may be loaded."""

    def __init__(self, runner: Runner, locked: frozenset[UUID]) -> None:
        self.runner = runner
        self.locked = locked
        self.aggregates: dict[UUID, Chained] = {}

    def get(self, aggregate_id: UUID, kind: type[A]) -> A:
        """The aggregate, caught up with the store; one that already holds
        this command's unsaved events is not (the store's later events would
        land on top of them): if it was behind, the save clashes and the
        command is decided again."""
        aggregate = self.cached(aggregate_id, kind)
        if not aggregate.pending_events:
            self.runner.catch_up(aggregate)
        return aggregate

    def cached(self, aggregate_id: UUID, kind: type[A]) -> A:
        """The aggregate as the cache holds it (it may be behind the store)."""
        known = self.aggregates.get(aggregate_id)
        if known is None:
            if aggregate_id not in self.locked:
                raise _Widen({aggregate_id})
            known = self.runner.load(aggregate_id, kind)
            self.aggregates[aggregate_id] = known
        if not isinstance(known, kind):
            raise kind.missing(f"no {kind.noun} {aggregate_id}")
        return known

    def add(self, aggregate: Chained) -> None:
        """A new aggregate the command made: saved with the rest."""
        self.aggregates[aggregate.id] = aggregate

    def changed(self) -> list[Chained]:
        """What the command changed, in the order it was loaded: the target first."""
        return [a for a in self.aggregates.values() if a.pending_events]

    def forget(self) -> None:
        """Evict everything this try loaded from the cache: after a failure
        none of it is known to be as stored (the save takes the pending
        events off before it writes them)."""
        for aggregate in self.aggregates.values():
            evict(self.runner.app, aggregate.id)


class SavePolicy(Protocol):
    """Something that joins the save of a command on another aggregate."""

    def touches(self, aggregate: Chained) -> Iterable[UUID]:
        """The aggregates a command on ``aggregate`` may make it change (locked first)."""
        ...

    def join(self, changed: Chained, unit: Unit) -> None:
        """Change other aggregates of ``unit`` because ``changed`` changed."""
        ...


def anyone(target: Any, caller: Caller) -> None:
    """No check: the command is open to every caller."""


def nothing_else(target: Any) -> Iterable[UUID]:
    return ()


@dataclass(frozen=True)
class Command(Generic[A]):
    """One command on one aggregate, as the runner needs it.

    ``act(target, unit, caller)`` decides and triggers (raising a RuleError
    before anything is triggered when refused) and returns the command's
    answer (``CommandOutcome.value``). ``authorise(target, caller)`` raises
    a NotAuthorisedError unless the caller may. ``touches(target)`` names
    the existing aggregates besides the target that ``act`` will change.
    ``replay(target, unit, command)`` finds an applied command's version
    where it is not recorded on the target (a call, on its game). ``fresh``:
    decide on the target as stored, not as cached (a command that may leave
    its target unchanged; a game's commands always change it, and a clash
    tells them they decided on a stale copy)."""

    target: UUID
    kind: type[A]
    act: Callable[[A, Unit, Caller], int | None]
    authorise: Callable[[A, Caller], None] = anyone
    touches: Callable[[A], Iterable[UUID]] = nothing_else
    replay: Callable[[A, Unit, str], int | None] | None = None
    fresh: bool = False


Listener = Callable[[list[Recording[UUID]], Sequence[Chained]], None]


class Runner:
    """Runs commands for one application (the store and its aggregate cache)."""

    def __init__(self, app: Application[UUID]) -> None:
        self.app = app
        # where an aggregate lives, told to a store split over shards
        # (infra/shards.py ``ShardedRecorder.place_with``): with an anchor
        # (an admission with its game), or on the home shard (None); one
        # store: nothing to tell
        self.placement: Callable[[UUID, UUID | None], None] = lambda key, anchor: None
        self.policies: list[SavePolicy] = []
        self.on_saved: Listener | None = None
        self._locks = [threading.Lock() for _ in range(LOCK_STRIPES)]

    # ---- locks and loading --------------------------------------------------

    @contextlib.contextmanager
    def holding(self, ids: Iterable[UUID]) -> Iterator[None]:
        """The locks of these aggregates, each once, in the one order: a
        process's commands and reads of one aggregate take turns."""
        stripes = sorted({aggregate_id.int % len(self._locks) for aggregate_id in ids})
        with contextlib.ExitStack() as stack:
            for stripe in stripes:
                stack.enter_context(self._locks[stripe])
            yield

    @contextlib.contextmanager
    def reading(self, aggregate_id: UUID, kind: type[A]) -> Iterator[A]:
        """The aggregate caught up with the store, held still while the caller reads."""
        with self.holding([aggregate_id]):
            aggregate = self.load(aggregate_id, kind)
            self.catch_up(aggregate)
            yield aggregate

    def load(self, aggregate_id: UUID, kind: type[A]) -> A:
        """The cached copy (the store's, if none is cached)."""
        if kind.on_home_shard:
            self.placement(aggregate_id, None)
        try:
            aggregate: Any = self.app.repository.get(aggregate_id)
        except AggregateNotFoundError:
            raise kind.missing(f"no {kind.noun} {aggregate_id}") from None
        if not isinstance(aggregate, kind):
            raise kind.missing(f"no {kind.noun} {aggregate_id}")
        return aggregate

    def catch_up(self, aggregate: Chained) -> bool:
        """Apply the events other processes saved since ``aggregate`` was
        cached; True if there were any."""
        new = list(self.app.events.get(aggregate.id, gt=aggregate.version))
        for event in new:
            event.mutate(aggregate)  # type: ignore[attr-defined]
        return bool(new)

    # ---- commands -------------------------------------------------------------

    def run(self, command: Command[A], caller: Caller) -> CommandOutcome:
        locked = frozenset([command.target])
        tries = 0
        while tries < RETRIES:
            try:
                return self._try(command, caller, locked)
            except _Widen as more:
                locked |= more.ids
            except _Again:
                tries += 1
        raise VersionClashError(
            f"{command.kind.noun} {command.target} kept changing; gave up after {RETRIES} tries"
        )

    def _try(self, command: Command[A], caller: Caller, locked: frozenset[UUID]) -> CommandOutcome:
        with self.holding(locked):
            unit = Unit(self, locked)
            target = unit.cached(command.target, command.kind)
            wanted = {*command.touches(target)}
            for policy in self.policies:
                wanted.update(policy.touches(target))
            if not wanted <= locked:
                raise _Widen(wanted)
            expected = caller.expected_version
            if command.fresh or expected is not None:
                # If-Match is checked, and a retry under it answered, on the
                # store's latest; so is a command that may leave its target
                # unchanged (no clash would tell it decided on a stale copy).
                self.catch_up(target)
            self._authorise(command, target, caller)
            if caller.command:
                replay = command.replay
                version = (
                    replay(target, unit, caller.command)
                    if replay
                    else target.replay_of(caller.command)
                )
                if version is not None:
                    return CommandOutcome(None, version, target.id, replayed=True)
            if expected is not None and target.version != expected:
                raise VersionClashError(
                    f"{target.noun} {target.id} is at version {target.version}, not {expected}"
                )
            decided_at = target.version
            try:
                value = command.act(target, unit, caller)
                changed = self._join(unit)
                recordings = self.app.save(*changed)
            except _Widen:
                unit.forget()
                raise
            except IntegrityError:
                # Another process wrote first: everything loaded is forgotten,
                # and the next try answers a replay, checks If-Match and
                # decides again, on the latest.
                unit.forget()
                raise _Again from None
            except RuleError:
                # The cached target may be behind another process's writes:
                # decide again on the latest before refusing.
                if unit.changed():
                    unit.forget()
                    if self.stored_after(target.id, decided_at):
                        raise _Again from None
                    raise
                if self.catch_up(target):
                    raise _Again from None
                raise
            except BaseException:
                unit.forget()
                raise
            self._tell(recordings, changed)
            position = recordings[-1].notification.id if recordings else 0
            return CommandOutcome(position, target.version, target.id, value=value)

    def stored_after(self, aggregate_id: UUID, version: int) -> bool:
        """Whether the store holds events of the aggregate after ``version``."""
        return next(iter(self.app.events.get(aggregate_id, gt=version, limit=1)), None) is not None

    def _authorise(self, command: Command[A], target: A, caller: Caller) -> None:
        """``authorise``, once more on the latest state if it refuses the
        cached one (a seat taken through another process), then for good. It
        runs before a retried command is answered: a command id is public
        (it is in the log), a token is not."""
        try:
            command.authorise(target, caller)
        except NotAuthorisedError:
            if not self.catch_up(target):
                raise
            command.authorise(target, caller)

    def _join(self, unit: Unit) -> list[Chained]:
        """Ask every policy about every changed aggregate, until nothing new changes."""
        asked: set[UUID] = set()
        while pending := [a for a in unit.changed() if a.id not in asked]:
            for aggregate in pending:
                asked.add(aggregate.id)
                for policy in self.policies:
                    policy.join(aggregate, unit)
        return unit.changed()

    def create(
        self,
        new: A,
        caller: Caller,
        same_request: Callable[[A], bool],
        conflict: str,
        also: Sequence[Chained] = (),
    ) -> CommandOutcome:
        """Save a new aggregate (and ``also`` other new ones, in the same
        transaction). Under a command id its id is derived from the id, so a
        retry finds the aggregate made the first time: ``same_request(made)``
        tells a retry from the key reused for another request
        (IdempotencyConflictError, ``conflict`` its message)."""
        try:
            recordings = self.app.save(new, *also)
        except IntegrityError:
            if not caller.command or not self.stored_after(new.id, 0):
                raise
            with self.reading(new.id, type(new)) as made:
                if not same_request(made):
                    raise IdempotencyConflictError(conflict) from None
                return CommandOutcome(None, 1, new.id, replayed=True)
        self._tell(recordings, [new, *also])
        return CommandOutcome(recordings[-1].notification.id, new.version, new.id)

    def _tell(self, recordings: list[Recording[UUID]], aggregates: Sequence[Chained]) -> None:
        """Tell the listener what a command saved. It is saved already: a
        failure here is logged, never the command's answer."""
        try:
            if self.on_saved is not None:
                self.on_saved(recordings, aggregates)
        except Exception:
            log.exception("telling what a command saved failed")
        finally:
            for aggregate in aggregates:
                aggregate.sealed.clear()


class _Widen(Exception):  # a signal to the runner, not an error
    """The command needs the locks of more aggregates: take them all, sorted."""

    def __init__(self, ids: Iterable[UUID]) -> None:
        super().__init__()
        self.ids = frozenset(ids)


class _Again(Exception):  # a signal to the runner, not an error
    """Another process wrote first: try the command again on the latest state."""
