"""The table of a game and what each event does to it: one model for the
game state and for every public view of it.

``Table`` holds what lies open on the table (R1.3): the players, whose turn,
the cabinet stacks, each player's recipes with their components, each
Sequence stage by stage, scores and winners. ``evolve(event_type, payload)``
applies one event: its changes to the hands (``domain.hands.HAND_CHANGES``,
through ``add_to_hand`` and ``remove_from_hand``), then to the table (the
``on_<Event>`` methods, which read the event's public fields); the hands and
the deck themselves are the subclasses':

- ``GameState`` (domain/state.py) knows every card: the hands and the deck
  order. The rules engine decides on it.
- ``PublicTable`` (here) counts hands and the deck: what anyone watching
  may know. The table projection keeps one per game, and its ``to_doc()``
  is the public view the API serves (``public_view``).

Payloads are an event's own fields (domain/disclosure.py); a ``PublicTable``
is evolved with the public disclosure, where dealt and drawn cards appear
only as their counts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from domain.catalog import STONES, Card, Catalog, load_catalog
from domain.disclosure import HIDING
from domain.events import EVENT_TYPES
from domain.handlers import handlers_of
from domain.hands import HAND_CHANGES
from domain.zones import GAP, Location

CATALOG: Catalog = load_catalog()
CARDS: Mapping[int, Card] = CATALOG.cards
Payload = Mapping[str, Any]
Doc = dict[str, Any]
Status = Literal["open", "running", "ended"]


def full_deck_size(guild: bool) -> int:
    """R2.2: the whole deck before the cabinet is dealt."""
    return len(CATALOG.base_deck) + (len(CATALOG.guild_deck) if guild else 0)


def last_filled(stages: Sequence[Any]) -> int:
    """The highest filled stage of a column's stages (1..7; a gap is filled,
    R5.3), 0 if none is (R5.2)."""
    for i in range(len(stages) - 1, -1, -1):
        if stages[i] is not None:
            return i + 1
    return 0


@dataclass(kw_only=True)
class Table:
    commitment: str  # R9.1
    status: Status = "open"
    names: list[str] = field(default_factory=list)
    turn: int = 0
    cabinet: dict[str, list[int]] = field(default_factory=dict)  # stack -> cards, top last
    tables: list[dict[int, list[int]]] = field(default_factory=list)  # recipe -> components
    sequence_cards: list[str] = field(default_factory=list)  # R2.3, by seat
    # seat -> column (its Stone) -> stages 1..7: a card id, GAP or None
    columns: list[dict[str, list[int | None]]] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)
    revealed_secret: str | None = None  # R9.3: GameEnded reveals it
    withdrawn: list[int] = field(default_factory=list)  # R3.5, in the order withdrawn
    called: bool = False  # T8.1: the game ends after the last seat's turn

    # ---- reading ---------------------------------------------------------

    @property
    def players(self) -> int:
        return len(self.names)

    def top(self, stack: str) -> int | None:
        cards = self.cabinet.get(stack)
        return cards[-1] if cards else None

    def cabinet_tops(self) -> dict[int, str]:
        """Card id -> stack, for the cards that can be taken from the cabinet."""
        return {cards[-1]: stack for stack, cards in self.cabinet.items() if cards}

    def last_stage(self, seat: int, column: str) -> int:
        """The highest filled stage of a column, 0 if it has none (R5.2)."""
        return last_filled(self.columns[seat][column])

    def completed_stages(self, seat: int) -> int:
        """R7.3: gaps, Transmutations and Stones count."""
        return sum(s is not None for col in self.columns[seat].values() for s in col)

    def hand_counts(self) -> list[int]:
        raise NotImplementedError

    def deck_count(self) -> int:
        raise NotImplementedError

    def to_doc(self) -> Doc:
        """The public view: what everyone at the table sees (R1.3)."""
        return {
            "status": self.status,
            "players": list(self.names),
            "turn": self.turn if self.status == "running" else None,
            "deck_size": self.deck_count(),
            "cabinet": {stack: cards[-1] for stack, cards in sorted(self.cabinet.items()) if cards},
            "hand_sizes": self.hand_counts(),
            "tables": [
                [{"card": card, "components": list(comps)} for card, comps in table.items()]
                for table in self.tables
            ],
            "sequences": [
                {
                    "card": self.sequence_cards[seat],
                    "columns": {
                        column: ["gap" if s == GAP else s for s in stages]
                        for column, stages in cols.items()
                    },
                }
                for seat, cols in enumerate(self.columns)
            ],
            "scores": list(self.scores),
            "winners": list(self.winners),
            "commitment": self.commitment,
            "secret": self.revealed_secret if self.status == "ended" else None,
            # shown once a seat has withdrawn: the view of every other game is as it was
            **({"withdrawn": list(self.withdrawn)} if self.withdrawn else {}),
            **({"called": True} if self.called else {}),
        }

    # ---- changing ----------------------------------------------------------

    # event type -> its ``on_<Event>`` method, found once per class
    handlers: ClassVar[dict[str, Callable[[Any, Payload], None]]] = {}
    # event type -> what it does to the hands (domain/hands.py)
    hand_changes: ClassVar[dict[str, Callable[[Any, Payload], None]]] = HAND_CHANGES

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.handlers = handlers_of(cls, EVENT_TYPES)

    def evolve(self, event_type: str, p: Payload) -> None:
        """Apply one event (its payload: the event's own fields): to the hands
        (``add_to_hand``, ``remove_from_hand``), then to the table."""
        change = self.hand_changes.get(event_type)
        if change is not None:
            change(self, p)
        handler = self.handlers.get(event_type)
        if handler is not None:
            handler(self, p)

    def push(self, card: int) -> None:
        """A card onto its cabinet stack."""
        self.cabinet.setdefault(CARDS[card].stack, []).append(card)

    def pop(self, card: int) -> None:
        """A card off the top of its cabinet stack."""
        stack = self.cabinet.get(CARDS[card].stack)
        if not stack or stack[-1] != card:
            raise ValueError(f"card {card} is not on top of its cabinet stack")
        stack.pop()

    def take(self, card: int, source: str) -> None:
        """A card leaves the open zone a move found it in: a cabinet top, or a
        table (its components return by ComponentsReturned). A hand is
        ``evolve_hands``'s; a Sequence stage was left a gap by StageStolen or
        StageTaken before (R5.3)."""
        if source == "cabinet":
            self.pop(card)
        elif source.startswith("table:"):
            del self.tables[Location.parse(source).seat][card]

    def on_PlayerJoined(self, p: Payload) -> None:  # R2.1
        self.names.append(p["name"])

    def on_PlayerLeft(self, p: Payload) -> None:  # R2.1: the seats after it move down
        del self.names[p["player"]]

    def on_GameStarted(self, p: Payload) -> None:  # R2.2, R2.3
        n = self.players
        self.status = "running"
        self.turn = 0
        self.tables = [{} for _ in range(n)]
        self.scores = [0] * n
        self.sequence_cards = list(p["sequence_cards"])  # none without the Guild
        self.columns = [{stone: [None] * 7 for stone in STONES} for _ in self.sequence_cards]
        for card in p["cabinet"]:
            self.push(card)

    def on_CardDiscarded(self, p: Payload) -> None:  # R4.1
        self.push(p["card"])

    def on_StageStolen(self, p: Payload) -> None:  # R5.3, R5.4
        self.columns[p["owner"]][p["column"]][p["stage"] - 1] = GAP

    def on_StageTaken(self, p: Payload) -> None:  # R5.3, R5.4
        self.columns[p["player"]][p["column"]][p["stage"] - 1] = GAP

    def on_RecipeAssembled(self, p: Payload) -> None:  # R4.2, R4.3
        for card, source in zip(p["components"], p["sources"], strict=True):
            self.take(card, source)
        self.tables[p["player"]][p["card"]] = list(p["components"])

    def on_RecipePlaced(self, p: Payload) -> None:  # R4.5
        self.take(p["card"], p["source"])
        self.columns[p["player"]][p["column"]][p["stage"] - 1] = p["card"]

    def on_ComponentsReturned(self, p: Payload) -> None:  # R4.3, R4.7: in this order
        for card in p["cards"]:
            self.push(card)

    def on_SpellCast(self, p: Payload) -> None:  # R6; the spell returns by ComponentsReturned
        seat, kind, table = p["player"], p["kind"], self.tables[p["player"]]
        if kind == "knowledge":  # R6.1: the card goes to the hand
            self.pop(p["card"])
        elif kind == "transformation":  # R6.2
            self.pop(p["card"])
            table[p["card"]] = []
            del table[p["recipe"]]
        elif kind == "destruction":  # R6.3
            del table[p["recipe"]]
            table[p["card"]] = []
        else:  # R6.4 transmutation: the spell fills the stage
            self.columns[seat][p["column"]][p["stage"] - 1] = p["spell"]

    def on_PointsAwarded(self, p: Payload) -> None:  # R8.1
        self.scores[p["player"]] += p["points"]

    def on_TurnEnded(self, p: Payload) -> None:  # R3.2
        self.turn = p["next_player"]

    def on_SeatWithdrawn(self, p: Payload) -> None:  # R3.5
        self.withdrawn.append(p["player"])

    def on_GameCalled(self, p: Payload) -> None:  # T8.1
        self.called = True

    def on_GameEnded(self, p: Payload) -> None:  # R7
        self.status = "ended"
        self.winners = list(p["winners"])
        self.revealed_secret = p["secret"]


Table.handlers = handlers_of(Table, EVENT_TYPES)


@dataclass(kw_only=True)
class PublicTable(Table):
    """The table as anyone watching sees it: hands and the deck are counts."""

    hand_sizes: list[int] = field(default_factory=list)
    deck_size: int = 0

    def hand_counts(self) -> list[int]:
        return list(self.hand_sizes)

    def deck_count(self) -> int:
        return self.deck_size

    def add_to_hand(self, seat: int, cards: Sequence[int]) -> None:
        self.hand_sizes[seat] += len(cards)

    def remove_from_hand(self, seat: int, card: int) -> None:
        self.hand_sizes[seat] -= 1

    # an event with a hidden field shows the public its counts only:
    # on_CardsDealt and on_CardsDrawn count the cards dealt and drawn
    hand_changes: ClassVar[dict[str, Callable[[Any, Payload], None]]] = {
        k: v for k, v in HAND_CHANGES.items() if k not in HIDING
    }

    def on_GameStarted(self, p: Payload) -> None:
        super().on_GameStarted(p)
        self.hand_sizes = [0] * self.players
        self.deck_size = full_deck_size(bool(p["rules"]["guild"])) - len(p["cabinet"])

    def on_CardsDealt(self, p: Payload) -> None:  # R2.2
        for seat, count in enumerate(p["counts"]):
            self.hand_sizes[seat] += count
            self.deck_size -= count

    def on_CardsDrawn(self, p: Payload) -> None:  # R3.1
        self.hand_sizes[p["player"]] += p["count"]
        self.deck_size -= p["count"]

    @classmethod
    def from_doc(cls, doc: Doc, stacks: dict[str, list[int]]) -> PublicTable:
        """The table a stored public view shows; ``stacks`` are the whole
        cabinet stacks (the view shows only their tops), shared, not copied."""
        return cls(
            commitment=doc["commitment"],
            status=doc["status"],
            names=list(doc["players"]),
            turn=doc["turn"] or 0,
            cabinet=stacks,
            tables=[
                {recipe["card"]: list(recipe["components"]) for recipe in seat}
                for seat in doc["tables"]
            ],
            sequence_cards=[sequence["card"] for sequence in doc["sequences"]],
            columns=[
                {
                    column: [GAP if s == "gap" else s for s in stages]
                    for column, stages in sequence["columns"].items()
                }
                for sequence in doc["sequences"]
            ],
            scores=list(doc["scores"]),
            winners=list(doc["winners"]),
            revealed_secret=doc["secret"],
            hand_sizes=list(doc["hand_sizes"]),
            deck_size=doc["deck_size"],
            withdrawn=list(doc.get("withdrawn", [])),
            called=bool(doc.get("called", False)),
        )


def public_view(table: Table) -> Doc:
    """What everyone at the table sees: no hand, no deck order, no secret."""
    return table.to_doc()
