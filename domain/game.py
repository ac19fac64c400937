"""The Game aggregate: one table, the consistency boundary of its moves.

Each command asks the rules engine for the facts and triggers them as
events; the engine raises before anything is triggered, so a refused command
records nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar
from uuid import UUID, uuid4

from domain import engine
from domain.chained import Chained
from domain.errors import GameNotFoundError, OpusError
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
    ) -> None:
        variant = RuleSet(draw=draw, guild=guild, stage_points=tuple(stage_points))
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

    def call(self, time: datetime, by: str, command: str = "") -> None:
        """T8.1: the game ends after the last seat's turn. The event's
        timestamp is the command's time, which it records."""
        self._trigger_all(engine.decide_call(self.state, time.isoformat(), by), command, time)

    def play(self, move: Move, command: str = "") -> None:
        """One move; a main action also ends the turn (R3.2)."""
        engine.run_move(self, move, lambda facts: self._trigger_all(facts, command))
