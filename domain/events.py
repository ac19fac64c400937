"""The Game's events: past-tense facts in the game's language (DESIGN.md).

Each event's ``apply`` makes exactly one transition of ``GameState``. Seats
are numbers (0 is the first to join); columns are named by their Stone;
stages are numbered 1–7; ``source`` strings are ``Location`` texts
("cabinet", "table:1", "hand:0", "sequence:2:albedo:3").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from eventsourcing.domain import Aggregate

from domain.ruleset import RuleSet

if TYPE_CHECKING:
    from domain.game import Game


class GameCreated(Aggregate.Created):
    chain: str  # domain/chain.py
    organiser_hash: str  # SHA-256 of the organiser's token ("" for none)
    commitment: str  # R9.1
    secret: str  # hidden: revealed by GameEnded (R9.3)
    draw: str
    guild: bool
    stage_points: list[int]

    def apply(self, aggregate: Any) -> None:
        aggregate.chain = self.chain


class GameEvent(Aggregate.Event):
    chain: str  # domain/chain.py
    command: str  # the client's command id, "" when it gave none

    def apply(self, aggregate: Any) -> None:
        self.evolve(aggregate)
        aggregate.chain = self.chain
        if self.command:  # a retried command is answered, never applied twice
            aggregate.commands[self.command] = self.originator_version

    def evolve(self, game: Game) -> None:
        raise NotImplementedError


class PlayerJoined(GameEvent):
    player: int
    name: str
    contribution: str
    token_hash: str  # SHA-256 of the seat's secret token ("" for none)

    def evolve(self, game: Game) -> None:
        game.state.join(self.name, self.contribution, self.token_hash)


class GameStarted(GameEvent):
    rules: dict[str, Any]  # R10: the rule set, recorded with its digest
    rules_digest: str
    sequence_cards: list[str]  # R2.3, seat k holds sequence_cards[k]
    cabinet: list[int]  # R2.2: the four cards dealt face up

    def evolve(self, game: Game) -> None:
        game.state.start(RuleSet.from_dict(self.rules), self.sequence_cards, self.cabinet)


class CardsDealt(GameEvent):
    hands: list[list[int]]  # R2.2, hidden until the game ends

    def evolve(self, game: Game) -> None:
        game.state.deal(self.hands)


class CardsDrawn(GameEvent):
    player: int
    cards: list[int]  # R3.1, hidden until the game ends

    def evolve(self, game: Game) -> None:
        game.state.draw(self.player, self.cards)


class CardDiscarded(GameEvent):
    player: int
    card: int  # R4.1

    def evolve(self, game: Game) -> None:
        game.state.discard(self.player, self.card)


class StageStolen(GameEvent):
    """A stage taken from another player's Sequence (R5.4)."""

    player: int
    owner: int
    column: str
    stage: int
    card: int

    def evolve(self, game: Game) -> None:
        game.state.take_stage(self.owner, self.column, self.stage)


class StageTaken(GameEvent):
    """A stage taken from the player's own Sequence (R5.4)."""

    player: int
    column: str
    stage: int
    card: int

    def evolve(self, game: Game) -> None:
        game.state.take_stage(self.player, self.column, self.stage)


class RecipeAssembled(GameEvent):
    player: int
    card: int
    components: list[int]  # in the order of the recipe's slots (R4.3)
    sources: list[str]

    def evolve(self, game: Game) -> None:
        game.state.assemble(self.player, self.card, self.components, self.sources)


class RecipePlaced(GameEvent):
    player: int
    column: str
    stage: int
    card: int
    source: str

    def evolve(self, game: Game) -> None:
        game.state.place(self.player, self.column, self.stage, self.card, self.source)


class ComponentsReturned(GameEvent):
    """Cards going back onto the cabinet, one at a time in this order (R4.3)."""

    cards: list[int]

    def evolve(self, game: Game) -> None:
        game.state.return_to_cabinet(self.cards)


class SpellCast(GameEvent):
    """R6. ``card`` is what the spell takes (R6.1, R6.2) or keeps (R6.3);
    ``recipe`` what it gives up (R6.2) or destroys (R6.3)."""

    player: int
    spell: int
    kind: str
    card: int | None
    recipe: int | None
    column: str | None
    stage: int | None

    def evolve(self, game: Game) -> None:
        state = game.state
        state.cast_spell(self.player, self.spell)
        if self.kind == "knowledge":
            assert self.card is not None
            state.knowledge(self.player, self.card)
        elif self.kind == "transformation":
            assert self.card is not None and self.recipe is not None
            state.transformation(self.player, self.card, self.recipe)
        elif self.kind == "destruction":
            assert self.card is not None and self.recipe is not None
            state.destruction(self.player, self.recipe, self.card)
        else:
            assert self.column is not None and self.stage is not None
            state.transmutation(self.player, self.spell, self.column, self.stage)


class PointsAwarded(GameEvent):
    """R8.1: every point there is. ``cause`` is the type of the event that
    earned it and ``cause_version`` that event's version in this game."""

    player: int
    points: int
    rule: str
    cause: str
    cause_version: int

    def evolve(self, game: Game) -> None:
        game.state.award(self.player, self.points)


class SequenceCompleted(GameEvent):
    player: int
    column: str  # R4.8: the Stone was placed

    def evolve(self, game: Game) -> None:
        game.state.stone_placed = True


class TurnEnded(GameEvent):
    player: int
    next_player: int
    passed: bool  # R3.3

    def evolve(self, game: Game) -> None:
        game.state.end_turn(self.player, self.next_player, self.passed)


class GameEnded(GameEvent):
    reason: str  # R7.1 or R7.2
    scores: list[int]
    winners: list[int]  # R7.3: more than one when the win is shared
    secret: str  # R9.3: the revealed secret

    def evolve(self, game: Game) -> None:
        game.state.end(self.winners)


EVENT_TYPES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (
        GameCreated,
        PlayerJoined,
        GameStarted,
        CardsDealt,
        CardsDrawn,
        CardDiscarded,
        StageStolen,
        StageTaken,
        RecipeAssembled,
        RecipePlaced,
        ComponentsReturned,
        SpellCast,
        PointsAwarded,
        SequenceCompleted,
        TurnEnded,
        GameEnded,
    )
}

# Hidden information (R1.3, R9.1): what no public view, stream or export may
# show before GameEnded reveals it.
HIDDEN_FIELDS: dict[str, tuple[str, ...]] = {
    "GameCreated": ("secret",),
    "CardsDealt": ("hands",),
    "CardsDrawn": ("cards",),
}
