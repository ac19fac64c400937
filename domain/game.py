"""The Game aggregate: one table, the consistency boundary of its moves.

Each command asks the rules engine for the facts and triggers them as
events; the engine raises before anything is triggered, so a refused command
records nothing.
"""

from __future__ import annotations

from uuid import UUID

from eventsourcing.domain import Aggregate

from domain import engine
from domain.events import GameCreated
from domain.moves import MAIN_ACTIONS, Move
from domain.ruleset import RuleSet
from domain.shuffle import commitment, new_secret
from domain.state import GameState


class Game(Aggregate):
    def __init__(
        self, commitment: str, secret: str, draw: str, guild: bool, stage_points: list[int]
    ) -> None:
        variant = RuleSet(draw=draw, guild=guild, stage_points=tuple(stage_points))
        self.state = GameState(commitment=commitment, secret=secret, variant=variant)

    @classmethod
    def create(
        cls, variant: RuleSet, *, id: UUID | None = None, secret: bytes | None = None
    ) -> Game:
        """R9.1: the server's secret is picked here; its commitment is public."""
        secret = new_secret() if secret is None else secret
        return cls._create(
            GameCreated,
            id=id,
            commitment=commitment(secret),
            secret=secret.hex(),
            draw=variant.draw,
            guild=variant.guild,
            stage_points=list(variant.stage_points),
        )

    def _trigger_all(self, facts: list[engine.Fact]) -> None:
        for cls, fields in facts:
            self.trigger_event(cls, **fields)

    def join(self, name: str, contribution: str = "") -> int:
        """R2.1, R9.1: take the next seat; returns it."""
        self._trigger_all(engine.decide_join(self.state, name, contribution))
        return self.state.players - 1

    def start(self) -> None:
        self._trigger_all(engine.decide_start(self.state, self.version))

    def play(self, move: Move) -> None:
        """One move; a main action also ends the turn (R3.2)."""
        self._trigger_all(engine.decide(self.state, move, self.version))
        if isinstance(move, MAIN_ACTIONS):
            self._trigger_all(engine.decide_turn_end(self.state, move, self.version))
