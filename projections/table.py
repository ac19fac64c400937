"""The public table of each game: what everyone at it may see (R1.3).

The document under ``<game>`` has the shape of ``domain.views.public_view``
(status, players, whose turn, deck size, cabinet stack tops, hand sizes,
each table with its recipes' components, each Sequence stage by stage with
gaps, scores, winners, the commitment and, once the game is over, the
secret) plus the game id, its version and the position of its last event.
``<game>:cabinet`` keeps every cabinet stack whole, since taking a top
uncovers the card below.

Built from public event fields only: CardsDealt and CardsDrawn count cards
and never read them, and GameCreated's secret is not copied, so a hidden
card cannot reach this view.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.dispatch import singledispatchmethod

from domain.catalog import STONES
from domain.events import (
    CardDiscarded,
    CardsDealt,
    CardsDrawn,
    ComponentsReturned,
    GameCreated,
    GameEnded,
    GameEvent,
    GameStarted,
    PlayerJoined,
    PointsAwarded,
    RecipeAssembled,
    RecipePlaced,
    SpellCast,
    StageStolen,
    StageTaken,
    TurnEnded,
)
from domain.state import CARDS, CATALOG, Location
from projections.base import ViewProjection, game_key, present
from projections.view import Transaction

Doc = dict[str, Any]


def deck_size(guild: bool) -> int:
    """R2.2: the whole deck before the cabinet is dealt."""
    return len(CATALOG.base_deck) + (len(CATALOG.guild_deck) if guild else 0)


class Table:
    """One game's public table document and its cabinet stacks, in a transaction."""

    def __init__(self, tx: Transaction, event: GameEvent | GameCreated, position: int) -> None:
        self.game = game_key(event.originator_id)
        self.tx = tx
        self.doc: Doc = tx.doc(self.game)
        self.doc["version"] = event.originator_version
        self.doc["position"] = position

    @property
    def stacks(self) -> dict[str, list[int]]:
        stacks: dict[str, list[int]] = self.tx.doc(f"{self.game}:cabinet", {})
        return stacks

    # The cabinet of the view holds each stack's top; documents are written
    # with sorted keys, so the order the stacks come and go in is immaterial.

    def push(self, card: int) -> None:
        name = CARDS[card].stack
        self.stacks.setdefault(name, []).append(card)
        self.doc["cabinet"][name] = card

    def pop(self, card: int) -> None:
        name = CARDS[card].stack
        stack = self.stacks[name]
        if stack[-1] != card:
            raise ValueError(f"card {card} is not on top of its cabinet stack")
        stack.pop()
        if stack:
            self.doc["cabinet"][name] = stack[-1]
        else:
            del self.doc["cabinet"][name]

    def add_recipe(self, seat: int, card: int, components: list[int]) -> None:
        self.doc["tables"][seat].append({"card": card, "components": list(components)})

    def remove_recipe(self, seat: int, card: int) -> None:
        recipes = self.doc["tables"][seat]
        recipes.remove(next(r for r in recipes if r["card"] == card))

    def stage(self, seat: int, column: str, stage: int, value: int | str) -> None:
        self.doc["sequences"][seat]["columns"][column][stage - 1] = value

    def take(self, card: int, source: str) -> None:
        """A card leaves where a move found it (as GameState.take)."""
        where = Location.parse(source)
        if where.zone == "cabinet":
            self.pop(card)
        elif where.zone == "table":
            self.remove_recipe(where.seat, card)  # its components return (ComponentsReturned)
        elif where.zone == "hand":
            self.doc["hand_sizes"][where.seat] -= 1
        # a Sequence stage was already left as a gap by StageStolen/StageTaken


class TableView(ViewProjection):
    name = "table"

    @singledispatchmethod
    def project(self, event: Any, tx: Transaction, position: int) -> None:
        """Events of other aggregates."""

    @project.register
    def _any(self, event: GameEvent, tx: Transaction, position: int) -> None:
        Table(tx, event, position)  # every Game event moves the version

    @project.register
    def _created(self, event: GameCreated, tx: Transaction, position: int) -> None:
        game = game_key(event.originator_id)
        tx.put(
            game,
            {
                "game": game,
                "version": event.originator_version,
                "position": position,
                "status": "open",
                "players": [],
                "turn": None,
                "deck_size": 0,
                "cabinet": {},
                "hand_sizes": [],
                "tables": [],
                "sequences": [],
                "scores": [],
                "winners": [],
                "commitment": event.commitment,
                "secret": None,  # R9.3: revealed by GameEnded
            },
        )

    @project.register
    def _joined(self, event: PlayerJoined, tx: Transaction, position: int) -> None:
        Table(tx, event, position).doc["players"].append(event.name)

    @project.register
    def _started(self, event: GameStarted, tx: Transaction, position: int) -> None:
        table = Table(tx, event, position)
        doc, n = table.doc, len(table.doc["players"])
        doc["status"] = "running"
        doc["turn"] = 0
        doc["deck_size"] = deck_size(bool(event.rules["guild"])) - len(event.cabinet)
        doc["hand_sizes"] = [0] * n
        doc["tables"] = [[] for _ in range(n)]
        doc["scores"] = [0] * n
        doc["sequences"] = [
            {"card": card, "columns": {stone: [None] * 7 for stone in STONES}}
            for card in event.sequence_cards
        ]
        for card in event.cabinet:
            table.push(card)

    @project.register
    def _dealt(self, event: CardsDealt, tx: Transaction, position: int) -> None:
        doc = Table(tx, event, position).doc
        for seat, cards in enumerate(event.hands):  # counted, never copied
            doc["hand_sizes"][seat] += len(cards)
            doc["deck_size"] -= len(cards)

    @project.register
    def _drawn(self, event: CardsDrawn, tx: Transaction, position: int) -> None:
        doc = Table(tx, event, position).doc
        doc["hand_sizes"][event.player] += len(event.cards)  # counted, never copied
        doc["deck_size"] -= len(event.cards)

    @project.register
    def _discarded(self, event: CardDiscarded, tx: Transaction, position: int) -> None:
        table = Table(tx, event, position)
        table.doc["hand_sizes"][event.player] -= 1
        table.push(event.card)

    @project.register
    def _stolen(self, event: StageStolen, tx: Transaction, position: int) -> None:
        Table(tx, event, position).stage(event.owner, event.column, event.stage, "gap")

    @project.register
    def _taken(self, event: StageTaken, tx: Transaction, position: int) -> None:
        Table(tx, event, position).stage(event.player, event.column, event.stage, "gap")

    @project.register
    def _assembled(self, event: RecipeAssembled, tx: Transaction, position: int) -> None:
        table = Table(tx, event, position)
        table.doc["hand_sizes"][event.player] -= 1
        for card, source in zip(event.components, event.sources, strict=True):
            table.take(card, source)
        table.add_recipe(event.player, event.card, event.components)

    @project.register
    def _placed(self, event: RecipePlaced, tx: Transaction, position: int) -> None:
        table = Table(tx, event, position)
        table.take(event.card, event.source)
        table.stage(event.player, event.column, event.stage, event.card)

    @project.register
    def _returned(self, event: ComponentsReturned, tx: Transaction, position: int) -> None:
        table = Table(tx, event, position)
        for card in event.cards:
            table.push(card)

    @project.register
    def _cast(self, event: SpellCast, tx: Transaction, position: int) -> None:
        table = Table(tx, event, position)
        seat = event.player
        table.doc["hand_sizes"][seat] -= 1
        if event.kind == "knowledge":  # R6.1
            table.pop(present(event.card, "the card taken"))
            table.doc["hand_sizes"][seat] += 1
        elif event.kind == "transformation":  # R6.2
            taken = present(event.card, "the card taken")
            table.pop(taken)
            table.add_recipe(seat, taken, [])
            table.remove_recipe(seat, present(event.recipe, "the recipe given"))
        elif event.kind == "destruction":  # R6.3
            table.remove_recipe(seat, present(event.recipe, "the recipe destroyed"))
            table.add_recipe(seat, present(event.card, "the recipe kept"), [])
        else:  # R6.4 transmutation
            column, stage = present(event.column, "the column"), present(event.stage, "the stage")
            table.stage(seat, column, stage, event.spell)

    @project.register
    def _awarded(self, event: PointsAwarded, tx: Transaction, position: int) -> None:
        Table(tx, event, position).doc["scores"][event.player] += event.points

    @project.register
    def _turn(self, event: TurnEnded, tx: Transaction, position: int) -> None:
        Table(tx, event, position).doc["turn"] = event.next_player

    @project.register
    def _ended(self, event: GameEnded, tx: Transaction, position: int) -> None:
        doc = Table(tx, event, position).doc
        doc["status"] = "ended"
        doc["turn"] = None
        doc["winners"] = list(event.winners)
        doc["secret"] = event.secret  # R9.3
