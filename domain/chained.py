"""What a Game and a Tournament share: events chained by hash (domain/chain.py)
and the client command ids they record, so that a retried command is
answered, never applied twice."""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar
from uuid import UUID

from eventsourcing.domain import Aggregate

from domain.chain import GENESIS, event_record, next_chain, sealed_payload
from domain.errors import IdempotencyConflictError, OpusError

Fact = tuple[type[Any], dict[str, Any]]


class Chained(Aggregate):
    """Subclasses call ``_start_chain`` in ``__init__`` and say whose secret
    seals their hidden fields (``chain_secret``), what they are called
    (``noun``) and the error a missing one raises (``missing``)."""

    noun: ClassVar[str] = "aggregate"
    missing: ClassVar[type[OpusError]] = OpusError
    # Lives on the home shard when the store is split (domain/sharding.py):
    # the service's accounts and their names.
    on_home_shard: ClassVar[bool] = False

    def _start_chain(self) -> None:
        self.chain = GENESIS  # the head of the hash chain, set by every event
        self.commands: dict[str, int] = {}  # command id -> version after it
        # A command id may be "<key>:<fingerprint of the request>": the key's
        # first command, by key, to tell a retry from a key reused.
        self.command_keys: dict[str, str] = {}
        # The auditor's form (domain/disclosure.py) of the events not yet
        # saved whose hidden fields were sealed for the chain, by version:
        # the live stream shows them as sealed here, without sealing again.
        self.sealed: dict[int, dict[str, Any]] = {}

    @property
    def chain_secret(self) -> str:
        raise NotImplementedError

    @property
    def ended(self) -> bool:
        """Whether its hidden fields may be seen: the game has ended (R9.3),
        the tournament has finished (T9.3)."""
        raise NotImplementedError

    @classmethod
    def _create_chained(
        cls, created: type[Any], id: UUID, secret: str, fields: dict[str, Any]
    ) -> Any:
        """The aggregate's first event, chained from the genesis."""
        timestamp = created.create_timestamp()
        chained = sealed_payload(secret, id, 1, created.__name__, fields)
        chain = next_chain(GENESIS, event_record(id, 1, created.__name__, timestamp, chained))
        aggregate = cls._create(created, id=id, timestamp=timestamp, chain=chain, **fields)
        aggregate.sealed[1] = chained
        return aggregate

    def trigger_event(
        self, event_class: type[Any], timestamp: datetime | None = None, **kwargs: Any
    ) -> None:
        """Every event carries the chain value over its own fields (Audit).
        ``timestamp``: the moment it happened, when a fact names it (T8.1's
        call); the clock's now otherwise."""
        timestamp = timestamp or event_class.create_timestamp()
        version, type_ = self.version + 1, event_class.__name__
        chained = sealed_payload(self.chain_secret, self.id, version, type_, kwargs)
        if event_class.hidden:
            self.sealed[version] = chained
        chain = next_chain(self.chain, event_record(self.id, version, type_, timestamp, chained))
        super().trigger_event(event_class, timestamp=timestamp, chain=chain, **kwargs)

    def _trigger_all(
        self, facts: list[Fact], command: str, timestamp: datetime | None = None
    ) -> None:
        for cls, fields in facts:
            self.trigger_event(cls, timestamp, command=command, **fields)

    def applied(self, event: Any) -> None:
        """Called by every event's ``apply``: the chain's head, and the command."""
        self.noted(event.chain, event.command, event.originator_version)

    def noted(self, chain: str, command: str, version: int) -> None:
        """The chain's head, and the command of the event at ``version``
        (``applied``; the audit's replay, domain/audit.py, makes no event
        object and calls it with the recorded values)."""
        self.chain = chain
        if command:  # a retried command is answered, never applied twice
            self.commands[command] = version
            self.command_keys.setdefault(command.partition(":")[0], command)

    def replay_of(self, command: str) -> int | None:
        """The version after the command, if it was applied already; an
        IdempotencyConflictError if its key was used for another request."""
        if command in self.commands:
            return self.commands[command]
        key, _, _ = command.partition(":")
        first = self.command_keys.get(key)
        if first is not None and ":" not in first:
            return self.commands[first]  # recorded before requests were fingerprinted
        if first is not None and first != command:
            raise IdempotencyConflictError(
                "this Idempotency-Key was used for another request (another path or "
                "body); use a new key for a new command"
            )
        return None
