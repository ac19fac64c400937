"""The state of one game, and the transitions the events make to it.

Every method here is called by exactly one event's ``apply`` (domain/events.py)
and trusts it: the checks happen before an event exists (domain/engine.py).
Zones follow R1.3; every card is in exactly one of them between moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.catalog import STONES, Card, Catalog, load_catalog
from domain.ruleset import RuleSet
from domain.shuffle import sequence_seed, shuffle, shuffle_seed

GAP = -1  # R5.3: a taken stage stays completed but holds no card
CATALOG: Catalog = load_catalog()
CARDS = CATALOG.cards


def card(card_id: int) -> Card:
    return CARDS[card_id]


def deck_order(
    secret: str, contributions: list[str], guild: bool, players: int
) -> tuple[list[int], list[str]]:
    """R9.1–R9.2, R2.3: the shuffled deck (top first) and the Sequence cards by seat."""
    seed = shuffle_seed(bytes.fromhex(secret), contributions)
    ids = CATALOG.base_deck + (CATALOG.guild_deck if guild else ())
    deck = shuffle(ids, seed)
    sequence_cards = shuffle(sorted(CATALOG.sequence_cards), sequence_seed(seed))[:players]
    return deck, sequence_cards if guild else []


@dataclass(frozen=True, slots=True)
class Location:
    """Where a card is: zone is hand, cabinet, table, sequence (or deck)."""

    zone: str
    seat: int = -1
    column: str = ""
    stage: int = 0  # 1..7

    def __str__(self) -> str:
        if self.zone == "sequence":
            return f"sequence:{self.seat}:{self.column}:{self.stage}"
        if self.zone in ("table", "hand"):
            return f"{self.zone}:{self.seat}"
        return self.zone

    @classmethod
    def parse(cls, text: str) -> Location:
        parts = text.split(":")
        if parts[0] == "sequence":
            return cls("sequence", int(parts[1]), parts[2], int(parts[3]))
        if len(parts) == 2:
            return cls(parts[0], int(parts[1]))
        return cls(parts[0])


@dataclass
class GameState:
    commitment: str
    secret: str  # hex; hidden until GameEnded reveals it (R9.3)
    variant: RuleSet
    rules: RuleSet | None = None
    status: str = "open"  # open, running, ended
    names: list[str] = field(default_factory=list)
    contributions: list[str] = field(default_factory=list)
    token_hashes: list[str] = field(default_factory=list)  # per seat
    organiser_hash: str = ""
    deck: list[int] = field(default_factory=list)  # index 0 is the top (R9.2)
    cabinet: dict[str, list[int]] = field(default_factory=dict)  # top is last
    hands: list[list[int]] = field(default_factory=list)
    tables: list[dict[int, list[int]]] = field(default_factory=list)  # recipe -> components
    sequence_cards: list[str] = field(default_factory=list)
    # seat -> column (stone variant) -> stages 1..7 as a list of 7: card id, GAP or None
    columns: list[dict[str, list[int | None]]] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    turn: int = 0
    turns_played: int = 0
    passes_with_empty_deck: int = 0  # R7.1
    stone_placed: bool = False  # R7.2: the round is played out
    winners: list[int] = field(default_factory=list)
    # Cards moving within one move (taken stages, cards on their way back to
    # the cabinet); always empty between moves.
    transit: list[int] = field(default_factory=list)

    # ---- queries -------------------------------------------------------

    @property
    def players(self) -> int:
        return len(self.names)

    @property
    def deck_empty(self) -> bool:
        return not self.deck

    def top(self, stack: str) -> int | None:
        cards = self.cabinet.get(stack)
        return cards[-1] if cards else None

    def cabinet_tops(self) -> dict[int, str]:
        """Card id -> stack, for the cards that can be taken from the cabinet."""
        return {cards[-1]: stack for stack, cards in self.cabinet.items() if cards}

    def last_stage(self, seat: int, column: str) -> int:
        """The highest filled stage of a column, 0 if it has none (R5.2)."""
        stages = self.columns[seat][column]
        for i in range(6, -1, -1):
            if stages[i] is not None:
                return i + 1
        return 0

    def completed_stages(self, seat: int) -> int:
        """R7.3: gaps, Transmutations and Stones count."""
        return sum(s is not None for col in self.columns[seat].values() for s in col)

    def stage_name(self, seat: int, column: str, stage: int) -> str:
        cols = CATALOG.sequence_cards[self.sequence_cards[seat]].columns
        return next(c for c in cols if c.stone == column).stages[stage - 1]

    def locate(self, card_id: int) -> Location | None:
        """Where a card can be taken from as a component or stage (None: nowhere)."""
        for seat, table in enumerate(self.tables):
            if card_id in table:
                return Location("table", seat)
        for seat, hand in enumerate(self.hands):
            if card_id in hand:
                return Location("hand", seat)
        if self.cabinet_tops().get(card_id) is not None:
            return Location("cabinet")
        for seat, cols in enumerate(self.columns):
            for column, stages in cols.items():
                if card_id in stages:
                    return Location("sequence", seat, column, stages.index(card_id) + 1)
        return None

    def all_zones(self) -> list[int]:
        """Every card in every zone, components included: for invariant checks."""
        cards = list(self.deck) + list(self.transit)
        for stack in self.cabinet.values():
            cards.extend(stack)
        for hand in self.hands:
            cards.extend(hand)
        for table in self.tables:
            for recipe, components in table.items():
                cards.append(recipe)
                cards.extend(components)
        for cols in self.columns:
            for stages in cols.values():
                cards.extend(s for s in stages if s is not None and s != GAP)
        return cards

    # ---- transitions ----------------------------------------------------

    def join(self, name: str, contribution: str, token_hash: str) -> None:
        self.names.append(name)
        self.contributions.append(contribution)
        self.token_hashes.append(token_hash)

    def start(self, rules: RuleSet, sequence_cards: list[str], cabinet: list[int]) -> None:
        """R2.2–R2.3: the shuffled deck, the Sequence cards, the cabinet dealt."""
        n = self.players
        self.rules = rules
        self.status = "running"
        self.deck, _ = deck_order(self.secret, self.contributions, rules.guild, n)
        self.hands = [[] for _ in range(n)]
        self.tables = [{} for _ in range(n)]
        self.scores = [0] * n
        if rules.guild:
            self.sequence_cards = list(sequence_cards)
            self.columns = [{stone: [None] * 7 for stone in STONES} for _ in range(n)]
        for card_id in cabinet:
            self.deck.remove(card_id)
            self.put_on_cabinet(card_id)

    def put_on_cabinet(self, card_id: int) -> None:
        self.cabinet.setdefault(CARDS[card_id].stack, []).append(card_id)

    def deal(self, hands: list[list[int]]) -> None:
        for seat, cards in enumerate(hands):
            for card_id in cards:
                self.deck.remove(card_id)
            self.hands[seat].extend(cards)

    def draw(self, seat: int, cards: list[int]) -> None:
        del self.deck[: len(cards)]
        self.hands[seat].extend(cards)

    def discard(self, seat: int, card_id: int) -> None:
        self.hands[seat].remove(card_id)
        self.put_on_cabinet(card_id)

    def take_stage(self, owner: int, column: str, stage: int) -> None:
        """R5.3: the stage stays completed as a gap; the card is in transit."""
        stages = self.columns[owner][column]
        card_id = stages[stage - 1]
        assert card_id is not None and card_id != GAP
        stages[stage - 1] = GAP
        self.transit.append(card_id)

    def take(self, card_id: int, source: str) -> None:
        """Take a card from where a move found it; a table recipe's components
        go into transit, on their way back to the cabinet (R4.3, R4.7)."""
        loc = Location.parse(source)
        if loc.zone == "cabinet":
            self.cabinet[CARDS[card_id].stack].pop()
        elif loc.zone == "table":
            self.transit.extend(self.tables[loc.seat].pop(card_id))
        elif loc.zone == "hand":
            self.hands[loc.seat].remove(card_id)
        elif loc.zone == "sequence":
            self.transit.remove(card_id)  # taken by StageStolen/StageTaken first

    def assemble(self, seat: int, card_id: int, components: list[int], sources: list[str]) -> None:
        """R4.2–R4.3: components are listed in slot order, so the components of
        consumed recipes enter transit in the order they return."""
        self.hands[seat].remove(card_id)
        for component, source in zip(components, sources, strict=True):
            self.take(component, source)
        self.tables[seat][card_id] = list(components)

    def place(self, seat: int, column: str, stage: int, card_id: int, source: str) -> None:
        self.take(card_id, source)
        self.columns[seat][column][stage - 1] = card_id

    def return_to_cabinet(self, cards: list[int]) -> None:
        for card_id in cards:
            self.transit.remove(card_id)
            self.put_on_cabinet(card_id)

    def cast_spell(self, seat: int, spell: int) -> None:
        """R6: the spell leaves the hand; it returns to the cabinet after its effect."""
        self.hands[seat].remove(spell)
        self.transit.append(spell)

    def knowledge(self, seat: int, card_id: int) -> None:
        self.take(card_id, "cabinet")
        self.hands[seat].append(card_id)

    def transformation(self, seat: int, card_id: int, give: int) -> None:
        self.take(card_id, "cabinet")
        self.tables[seat][card_id] = []
        self.transit.append(give)
        self.transit.extend(self.tables[seat].pop(give))

    def destruction(self, seat: int, recipe: int, keep: int) -> None:
        components = self.tables[seat].pop(recipe)
        self.tables[seat][keep] = []
        self.transit.append(recipe)
        self.transit.extend(c for c in components if c != keep)

    def transmutation(self, seat: int, spell: int, column: str, stage: int) -> None:
        self.transit.remove(spell)
        self.columns[seat][column][stage - 1] = spell

    def award(self, seat: int, points: int) -> None:
        self.scores[seat] += points

    def end_turn(self, seat: int, next_seat: int, passed: bool) -> None:
        if passed and self.deck_empty:
            self.passes_with_empty_deck += 1
        else:
            self.passes_with_empty_deck = 0
        self.turn = next_seat
        self.turns_played += 1

    def end(self, winners: list[int]) -> None:
        self.status = "ended"
        self.winners = list(winners)
