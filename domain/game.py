"""The Game aggregate: one table, the consistency boundary of its moves.

Each command asks the rules engine for the facts and triggers them as
events; the engine raises before anything is triggered, so a refused command
records nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, ClassVar
from uuid import UUID, uuid4

from domain import clock, clock_rules, engine
from domain.chained import Chained, Fact
from domain.clock import Clock, micros
from domain.errors import GameNotFoundError, OpusError, RuleError
from domain.events import GameCreated, TournamentGameCreated
from domain.moves import Move, Withdraw
from domain.ruleset import RuleSet
from domain.shuffle import commitment, new_secret
from domain.state import GameState


class Game(Chained):
    noun: ClassVar[str] = "game"
    missing: ClassVar[type[OpusError]] = GameNotFoundError

    def __init__(
        self,
        organiser_hash: str,
        commitment: str,
        secret: str,
        draw: str,
        guild: bool,
        stage_points: list[int],
        tournament: str = "",
        round: int = 0,
        table: int = 0,
        clock: dict[str, Any] | None = None,
    ) -> None:
        variant = RuleSet.timed(
            Clock.from_dict(clock) if clock else None,
            draw=draw,
            guild=guild,
            stage_points=tuple(stage_points),
        )
        self.state = GameState(commitment=commitment, secret=secret, variant=variant)
        self.state.organiser_hash = organiser_hash
        self._start_chain()
        # A tournament's game (TournamentGameCreated): its tournament, round
        # and table (T1.4); "" for a game of its own.
        self.tournament = tournament
        self.round = round
        self.table = table

    @classmethod
    def create(
        cls,
        variant: RuleSet,
        *,
        id: UUID | None = None,
        secret: bytes | None = None,
        organiser_hash: str = "",
        tournament: tuple[UUID, int, int] | None = None,
    ) -> Game:
        """R9.1: the server's secret is picked here; its commitment is public.
        A tournament's game names its tournament, round and table (T1.4)."""
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
        if variant.clock is not None:  # R11.1: only a timed game records one
            fields["clock"] = variant.clock.as_dict()
        created: type[GameCreated] = GameCreated
        if tournament is not None:
            created = TournamentGameCreated
            fields.update(tournament=str(tournament[0]), round=tournament[1], table=tournament[2])
        return cls._create_chained(created, game_id, secret.hex(), fields)  # type: ignore[no-any-return]

    @property
    def chain_secret(self) -> str:
        return self.state.secret

    @property
    def ended(self) -> bool:
        return self.state.status == "ended"

    # ---- R11.2: a timed game's command time ----------------------------------

    @property
    def timed(self) -> bool:
        return self.state.variant.clock is not None

    def _stamped(self, command: str, at: datetime | None = None) -> tuple[str, datetime | None]:
        """In a timed game (R11.2), the command's id (one the service
        assigns when the client sent none) and its time, one for all its
        events and never before the game's last event; untimed, as given."""
        if not self.timed:
            return command, at
        now = max(at or clock.now(), self.modified_on)
        return command or f"service:{uuid4()}", now

    def _applying(self, command: str, at: datetime | None) -> Callable[[list[Fact]], None]:
        return lambda facts: self._trigger_all(facts, command, at)

    def _settle(self, command: str, at: datetime | None) -> None:
        """R11.4: before anything else a command records in a timed game,
        the TimeExpired (and R11.5's events) a passed deadline owes."""
        if at is not None:
            clock_rules.run_expiry(self, micros(at), self._applying(command, at))

    # ---- commands -------------------------------------------------------------

    def join(
        self, name: str, contribution: str = "", token_hash: str = "", command: str = ""
    ) -> int:
        """R2.1, R9.1: take the next seat; returns it."""
        command, at = self._stamped(command)
        facts = engine.decide_join(self.state, name, contribution, token_hash)
        self._trigger_all(facts, command, at)
        return self.state.players - 1

    def remove_seat(self, seat: int, command: str = "") -> None:
        """Before the start: the seat is freed, those after it move down."""
        command, at = self._stamped(command)
        self._trigger_all(engine.decide_leave(self.state, seat), command, at)

    def start(self, command: str = "") -> None:
        command, at = self._stamped(command)
        self._trigger_all(engine.decide_start(self.state, self.version), command, at)

    def withdraw(self, seat: int, command: str = "", cause: str = "inactivity") -> None:
        """R3.5: the seat's turns pass from now on (a turn in progress too).
        In a timed game, what a passed deadline owes first (R11.4); a drop
        (T2.2) then withdraws only a seat still in play."""
        command, at = self._stamped(command)
        self._settle(command, at)
        settled = self.state.status != "running" or seat in self.state.withdrawn
        if cause == "drop" and at is not None and settled:
            return
        engine.run_move(self, Withdraw(seat, cause), self._applying(command, at))

    def call(self, time: datetime, by: str, command: str = "") -> None:
        """T8.1: the game ends after the last seat's turn. The event's
        timestamp is the command's time, which it records."""
        command, at = self._stamped(command, time)
        self._settle(command, at)
        moment = at or time
        self._trigger_all(engine.decide_call(self.state, moment.isoformat(), by), command, moment)

    def play(self, move: Move, command: str = "") -> None:
        """One move; a main action also ends the turn (R3.2). In a timed
        game, the seat's command at or after its deadline is refused (R11.3)."""
        command, at = self._stamped(command)
        if at is not None:
            clock_rules.check_on_time(self.state, move.player, micros(at))
        engine.run_move(self, move, self._applying(command, at))

    def expire(self, command: str = "") -> None:
        """R11.4: the service records what a passed deadline owes; refused
        when no deadline has passed (the scheduler asked early or twice)."""
        if not self.timed:
            raise RuleError("this game has no clock", "R11.4")
        command, at = self._stamped(command)
        assert at is not None
        if not clock_rules.run_expiry(self, micros(at), self._applying(command, at)):
            raise RuleError("no deadline of this game has passed unrecorded", "R11.4")

    def add_time(self, seat: int, seconds: int, reason: str, by: str, command: str = "") -> None:
        """R11.6: the organiser gives a seat more time."""
        command, at = self._stamped(command)
        self._settle(command, at)
        when = micros(at) if at is not None else 0
        facts = clock_rules.decide_add_time(self.state, seat, seconds, reason, by, when)
        self._trigger_all(facts, command, at)

    def pause(self, reason: str, by: str, command: str = "") -> None:
        """R11.6: the organiser pauses the game's clocks."""
        command, at = self._stamped(command)
        self._settle(command, at)
        self._trigger_all(clock_rules.decide_pause(self.state, reason, by), command, at)

    def resume(self, reason: str, by: str, command: str = "") -> None:
        """R11.6: the organiser runs the game's clocks again."""
        command, at = self._stamped(command)
        self._settle(command, at)
        self._trigger_all(clock_rules.decide_resume(self.state, reason, by), command, at)
