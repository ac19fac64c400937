"""The Game's events: past-tense facts in the game's language (DESIGN.md).

Each event's ``apply`` hands its own fields to ``GameState.evolve``
(domain/table.py, domain/state.py): what an event does to the table is
written there, once. Seats are numbers (0 is the first to join); columns are
named by their Stone; stages are numbered 1–7; ``source`` strings are
``Location`` texts (domain/zones.py).

Who may see which field is declared here, with the events, and applied by
``domain.disclosure.disclose``: ``hidden`` fields (R1.3, R9.1) are known to
no one but their ``seen_by`` seat until GameEnded reveals them, and are
replaced for everyone else by their ``summary`` (a count); ``identity``
fields (token hashes, command ids) are for the chain and the service, never
for a view.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from eventsourcing.domain import Aggregate

from domain.clock import micros

SpellKind = Literal["knowledge", "transformation", "destruction", "transmutation"]


@dataclass(frozen=True)
class Hidden:
    """A hidden field: ``summary`` names the public field that stands in its
    place and ``summarise`` computes it; ``seen_by`` is how its owner is
    found: "player" (the seat in the event's ``player`` field) or
    "by_seat" (item k of the value is seat k's)."""

    summary: str | None = None
    summarise: Callable[[Any], Any] | None = None
    seen_by: Literal["player", "by_seat"] | None = None


class _Absent:
    """The default of a field a later revision added (a tournament's
    revision 4, a game's rule set version 3): an event recorded without it
    keeps no such field at all, so its payload, its chain value and its
    stored form are what they were (``_drop_absent``)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


def _drop_absent(event: Any) -> None:
    for name, value in list(vars(event).items()):
        if value is ABSENT:
            object.__delattr__(event, name)


class GameCreated(Aggregate.Created):
    chain: str  # domain/chain.py
    organiser_hash: str  # SHA-256 of the organiser's token ("" for none)
    commitment: str  # R9.1
    secret: str  # hidden: revealed by GameEnded (R9.3)
    draw: str
    guild: bool
    stage_points: list[int]
    # R11.1: a timed game's clock (rule set "3"); keyword-only, so that
    # TournamentGameCreated's fields may follow it
    clock: dict[str, Any] | None = field(default=ABSENT, kw_only=True)

    hidden: ClassVar[dict[str, Hidden]] = {"secret": Hidden()}
    identity: ClassVar[tuple[str, ...]] = ("organiser_hash",)

    def __post_init__(self) -> None:
        super().__post_init__()
        _drop_absent(self)

    def apply(self, aggregate: Any) -> None:
        aggregate.chain = self.chain


class TournamentGameCreated(GameCreated):
    """A game of a tournament (TOURNAMENT.md T1.4): its secret is the
    tournament's for that round and table, and it is started by the pairing."""

    tournament: str  # the tournament's id
    round: int
    table: int  # 1 is the top table (T3.1)


class ChainedEvent(Aggregate.Event):
    """An event of a chained aggregate (domain/chained.py): a Game's, or a
    Tournament's (``TournamentEvent``). It hands its own fields to
    the aggregate's ``state.evolve``, then the aggregate notes its chain
    value and command."""

    chain: str  # domain/chain.py
    command: str  # the client's command id, "" when it gave none

    hidden: ClassVar[dict[str, Hidden]] = {}
    identity: ClassVar[tuple[str, ...]] = ("command",)

    def apply(self, aggregate: Any) -> None:
        aggregate.state.evolve(type(self).__name__, self.__dict__)
        aggregate.applied(self)


class GameEvent(ChainedEvent):
    """A Game's event (projections of games dispatch on it). In a timed game
    it moves the clocks too, at its command time (R11.2)."""

    def apply(self, aggregate: Any) -> None:
        super().apply(aggregate)
        state = aggregate.state
        if state.variant.clock is not None:
            state.timed_step(type(self).__name__, self.__dict__, micros(self.timestamp))


class PlayerJoined(GameEvent):
    player: int
    name: str
    contribution: str
    token_hash: str  # SHA-256 of the seat's secret token ("" for none)

    identity: ClassVar[tuple[str, ...]] = ("command", "token_hash")


class PlayerLeft(GameEvent):
    """Before the start, the organiser removed a seat: the seats after it
    move down one; ``names`` is the seating left, in seat order."""

    player: int
    names: list[str]


class GameStarted(GameEvent):
    rules: dict[str, Any]  # R10: the rule set, recorded with its digest
    rules_digest: str
    sequence_cards: list[str]  # R2.3, seat k holds sequence_cards[k]
    cabinet: list[int]  # R2.2: the four cards dealt face up


class CardsDealt(GameEvent):
    hands: list[list[int]]  # R2.2, hidden until the game ends

    hidden: ClassVar[dict[str, Hidden]] = {
        "hands": Hidden("counts", lambda hands: [len(hand) for hand in hands], "by_seat")
    }


class CardsDrawn(GameEvent):
    player: int
    cards: list[int]  # R3.1, hidden until the game ends

    hidden: ClassVar[dict[str, Hidden]] = {"cards": Hidden("count", len, "player")}


class CardDiscarded(GameEvent):
    player: int
    card: int  # R4.1


class StageStolen(GameEvent):
    """A stage taken from another player's Sequence (R5.4)."""

    player: int
    owner: int
    column: str
    stage: int
    card: int


class StageTaken(GameEvent):
    """A stage taken from the player's own Sequence (R5.4)."""

    player: int
    column: str
    stage: int
    card: int


class RecipeAssembled(GameEvent):
    player: int
    card: int
    components: list[int]  # in the order of the recipe's slots (R4.3)
    sources: list[str]


class RecipePlaced(GameEvent):
    player: int
    column: str
    stage: int
    card: int
    source: str


class ComponentsReturned(GameEvent):
    """Cards going back onto the cabinet, one at a time in this order (R4.3)."""

    cards: list[int]


class SpellCast(GameEvent):
    """R6. ``card`` is what the spell takes (R6.1, R6.2) or keeps (R6.3);
    ``recipe`` what it gives up (R6.2) or destroys (R6.3)."""

    player: int
    spell: int
    kind: SpellKind
    card: int | None
    recipe: int | None
    column: str | None
    stage: int | None


class PointsAwarded(GameEvent):
    """R8.1: every point there is. ``cause`` is the type of the event that
    earned it and ``cause_version`` that event's version in this game."""

    player: int
    points: int
    rule: str
    cause: str
    cause_version: int


class SequenceCompleted(GameEvent):
    player: int
    column: str  # R4.8: the Stone was placed


class TurnEnded(GameEvent):
    player: int
    next_player: int
    passed: bool  # R3.3


class SeatWithdrawn(GameEvent):
    """R3.5: from now on the seat's turns keep their draw phase, then pass.
    From rule set version "3" it records its ``cause``: "drop", "inactivity"
    or "clock"; before it, no such field."""

    player: int
    cause: str = ABSENT

    def __post_init__(self) -> None:
        super().__post_init__()
        _drop_absent(self)


class TimeExpired(GameEvent):
    """R11.4: the seat's deadline passed (``at``, the deadline exactly, as
    every timestamp is written); ``grace`` is the clock's."""

    player: int
    at: str
    grace: int


class TimeAdded(GameEvent):
    """R11.6: the organiser gave the seat ``seconds`` more."""

    player: int
    seconds: int
    reason: str
    by: str


class ClocksPaused(GameEvent):
    """R11.6: no time counts until ClocksResumed."""

    reason: str
    by: str


class ClocksResumed(GameEvent):
    """R11.6: the clocks run again."""

    reason: str
    by: str


class GameCalled(GameEvent):
    """T8.1: the organiser called time; the game ends at the first TurnEnded
    of the last seat after this (GameEnded, reason "called"), unless R7.1,
    R7.2 or R7.4 ends it first. ``time`` is the command's time (ISO 8601, UTC)."""

    time: str
    by: str  # who called it, as the organiser names them


class GameEnded(GameEvent):
    reason: str  # R7.1, R7.2, "stalled" (R7.4), "withdrawn" (R3.5) or "called" (T8.1)
    scores: list[int]
    winners: list[int]  # R7.3: more than one when the win is shared
    secret: str  # R9.3: the revealed secret


EVENT_TYPES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (
        GameCreated,
        TournamentGameCreated,
        PlayerJoined,
        PlayerLeft,
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
        SeatWithdrawn,
        GameCalled,
        GameEnded,
        TimeExpired,
        TimeAdded,
        ClocksPaused,
        ClocksResumed,
    )
}
