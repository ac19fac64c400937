"""The Game aggregate: one table, the consistency boundary of its moves.

Each command asks the rules engine for the facts and triggers them as
events; the engine raises before anything is triggered, so a refused command
records nothing.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

from eventsourcing.domain import Aggregate

from domain import engine
from domain.chain import GENESIS, event_record, next_chain, sealed_payload
from domain.errors import IdempotencyConflictError
from domain.events import GameCreated
from domain.moves import Move, Withdraw
from domain.ruleset import RuleSet
from domain.shuffle import commitment, new_secret
from domain.state import GameState


class Game(Aggregate):
    def __init__(
        self,
        organiser_hash: str,
        commitment: str,
        secret: str,
        draw: str,
        guild: bool,
        stage_points: list[int],
    ) -> None:
        variant = RuleSet(draw=draw, guild=guild, stage_points=tuple(stage_points))
        self.state = GameState(commitment=commitment, secret=secret, variant=variant)
        self.state.organiser_hash = organiser_hash
        self.chain = GENESIS  # the head of the hash chain, set by every event
        self.commands: dict[str, int] = {}  # command id -> version after it
        # A command id may be "<key>:<fingerprint of the request>": the key's
        # first command, by key, to tell a retry from a key reused.
        self.command_keys: dict[str, str] = {}
        # The auditor's form (domain/disclosure.py) of the events not yet
        # saved whose hidden fields were sealed for the chain, by version:
        # the live stream shows them as sealed here, without sealing again.
        self.sealed: dict[int, dict[str, Any]] = {}

    @classmethod
    def create(
        cls,
        variant: RuleSet,
        *,
        id: UUID | None = None,
        secret: bytes | None = None,
        organiser_hash: str = "",
    ) -> Game:
        """R9.1: the server's secret is picked here; its commitment is public."""
        secret = new_secret() if secret is None else secret
        game_id = uuid4() if id is None else id
        fields: dict[str, Any] = dict(
            organiser_hash=organiser_hash,
            commitment=commitment(secret),
            secret=secret.hex(),
            draw=variant.draw,
            guild=variant.guild,
            stage_points=list(variant.stage_points),
        )
        timestamp = GameCreated.create_timestamp()
        chained = sealed_payload(secret.hex(), game_id, 1, GameCreated.__name__, fields)
        chain = next_chain(
            GENESIS, event_record(game_id, 1, GameCreated.__name__, timestamp, chained)
        )
        game = cls._create(GameCreated, id=game_id, timestamp=timestamp, chain=chain, **fields)
        game.sealed[1] = chained
        return game

    def trigger_event(self, event_class: type[Any], **kwargs: Any) -> None:
        """Every event carries the chain value over its own fields (Audit)."""
        timestamp = event_class.create_timestamp()
        version, type_ = self.version + 1, event_class.__name__
        chained = sealed_payload(self.state.secret, self.id, version, type_, kwargs)
        if event_class.hidden:
            self.sealed[version] = chained
        chain = next_chain(self.chain, event_record(self.id, version, type_, timestamp, chained))
        super().trigger_event(event_class, timestamp=timestamp, chain=chain, **kwargs)

    def _trigger_all(self, facts: list[engine.Fact], command: str) -> None:
        for cls, fields in facts:
            self.trigger_event(cls, command=command, **fields)

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

    def join(
        self, name: str, contribution: str = "", token_hash: str = "", command: str = ""
    ) -> int:
        """R2.1, R9.1: take the next seat; returns it."""
        facts = engine.decide_join(self.state, name, contribution, token_hash)
        self._trigger_all(facts, command)
        return self.state.players - 1

    def remove_seat(self, seat: int, command: str = "") -> None:
        """Before the start: the seat is freed, those after it move down."""
        self._trigger_all(engine.decide_leave(self.state, seat), command)

    def start(self, command: str = "") -> None:
        self._trigger_all(engine.decide_start(self.state, self.version), command)

    def withdraw(self, seat: int, command: str = "") -> None:
        """R3.5: the seat's turns pass from now on (a turn in progress too)."""
        engine.run_move(self, Withdraw(seat), lambda facts: self._trigger_all(facts, command))

    def play(self, move: Move, command: str = "") -> None:
        """One move; a main action also ends the turn (R3.2)."""
        engine.run_move(self, move, lambda facts: self._trigger_all(facts, command))
