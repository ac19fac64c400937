"""The whole state of one game, hidden cards included: what the rules decide on.

``GameState`` is the table (domain/table.py) plus what only the game itself
knows: the deck in order, the cards in each hand, the server's secret and the
seats' token hashes. Every change comes from an event (``evolve``, called by
each event's ``apply``, domain/events.py) and is trusted: the checks happen
before an event exists (domain/engine.py). Zones follow R1.3; every card is
in exactly one of them between moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields

from domain.catalog import Card
from domain.clock import Clocks
from domain.ruleset import RuleSet
from domain.shuffle import sequence_seed, shuffle, shuffle_seed
from domain.table import CARDS, CATALOG, Payload, Table
from domain.zones import GAP, Location

__all__ = ["CARDS", "CATALOG", "GAP", "GameState", "Location", "card", "deck_order"]


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


@dataclass(kw_only=True)
class GameState(Table):
    secret: str  # hex; hidden until GameEnded reveals it (R9.3)
    variant: RuleSet
    rules: RuleSet | None = None  # R10: recorded at the start
    contributions: list[str] = field(default_factory=list)
    token_hashes: list[str] = field(default_factory=list)  # per seat
    organiser_hash: str = ""
    deck: list[int] = field(default_factory=list)  # index 0 is the top (R9.2)
    hands: list[list[int]] = field(default_factory=list)
    turns_played: int = 0
    passes_with_empty_deck: int = 0  # R7.1
    stone_placed: bool = False  # R7.2: the round is played out
    # R7.4: the turn under way has drawn no card and cast no spell so far;
    # and how many turns in a row ended so (each a pass with nothing drawn or cast)
    turn_quiet: bool = True
    quiet_passes: int = 0
    # R11: a timed game's clocks (domain/clock.py), folded from the events'
    # command times; and the seat whose TimeExpired this turn recorded
    clocks: Clocks | None = None
    expired: int | None = None

    @classmethod
    def seen_by(cls, table: Table, seat: int, hand: Sequence[int], rules: RuleSet) -> GameState:
        """What one seat knows of a game, as a state the engine decides on:
        the open table (a public view's, ``PublicTable.from_doc``; its zones
        are shared, not copied: the engine only reads them), the seat's own
        hand and the rules. The deck, the other hands and the secret are
        unknown: empty here. The engine decides the seat's discards,
        assemblies, placements and spells on the open zones, the seat's hand
        and the stage points alone (R4, R6), so ``engine.preview`` gives on
        this state what it gives on the whole one; not so a pass (R3.3 asks
        whether the deck is empty)."""
        shown = {f.name: getattr(table, f.name) for f in fields(Table)}
        hands: list[list[int]] = [[] for _ in range(table.players)]
        hands[seat] = list(hand)
        return cls(**shown, secret="", variant=rules, rules=rules, hands=hands)

    # ---- queries -------------------------------------------------------

    @property
    def deck_empty(self) -> bool:
        return not self.deck

    def hand_counts(self) -> list[int]:
        return [len(hand) for hand in self.hands]

    def deck_count(self) -> int:
        return len(self.deck)

    def stage_name(self, seat: int, column: str, stage: int) -> str:
        cols = CATALOG.sequence_cards[self.sequence_cards[seat]].columns
        return next(c for c in cols if c.stone == column).stages[stage - 1]

    def locate(self, card_id: int) -> Location | None:
        """Where a card lies, as a move names it (R4.2, R4.5): a table (as a
        recipe), a hand, a cabinet stack's top or a Sequence stage; None
        anywhere else (the deck, under a stack's top, among a recipe's
        components). The one answer to it: the engine's, and the page's for
        the moves it offers (api/web/present.py)."""
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
        cards = list(self.deck)
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

    # ---- the hidden zones ------------------------------------------------

    def add_to_hand(self, seat: int, cards: Sequence[int]) -> None:
        self.hands[seat].extend(cards)

    def remove_from_hand(self, seat: int, card: int) -> None:
        self.hands[seat].remove(card)

    def on_PlayerJoined(self, p: Payload) -> None:
        super().on_PlayerJoined(p)
        self.contributions.append(p["contribution"])
        self.token_hashes.append(p["token_hash"])

    def on_PlayerLeft(self, p: Payload) -> None:
        super().on_PlayerLeft(p)
        del self.contributions[p["player"]]
        del self.token_hashes[p["player"]]

    def on_GameStarted(self, p: Payload) -> None:
        """R2.2–R2.3: the shuffled deck, less the cabinet dealt from it."""
        self.rules = RuleSet.from_dict(p["rules"])
        self.deck, _ = deck_order(self.secret, self.contributions, self.rules.guild, self.players)
        self.hands = [[] for _ in range(self.players)]
        super().on_GameStarted(p)
        for card_id in p["cabinet"]:
            self.deck.remove(card_id)

    def on_CardsDealt(self, p: Payload) -> None:
        for cards in p["hands"]:
            for card_id in cards:
                self.deck.remove(card_id)

    def on_CardsDrawn(self, p: Payload) -> None:
        del self.deck[: len(p["cards"])]
        if p["cards"]:
            self.turn_quiet = False  # R7.4

    def on_SpellCast(self, p: Payload) -> None:
        super().on_SpellCast(p)
        self.turn_quiet = False  # R7.4

    def on_SequenceCompleted(self, p: Payload) -> None:
        self.stone_placed = True

    def timed_step(self, event_type: str, p: Payload, at: int) -> None:
        """R11.2–R11.6: a timed game's event, evolved already, moves its
        clocks; ``at`` is its command time in microseconds."""
        if event_type == "GameStarted":
            assert self.rules is not None and self.rules.clock is not None
            self.clocks = Clocks(self.rules.clock)
            self.clocks.start(self.players, at)
            return
        if self.clocks is None:
            return
        self.clocks.step(event_type, p, at)
        if event_type == "TurnEnded":
            self.expired = None
        elif event_type == "TimeExpired":
            self.expired = p["player"]

    def on_TurnEnded(self, p: Payload) -> None:
        super().on_TurnEnded(p)
        if p["passed"] and self.deck_empty:
            self.passes_with_empty_deck += 1
        else:
            self.passes_with_empty_deck = 0
        if p["passed"] and self.turn_quiet:  # R7.4
            self.quiet_passes += 1
        else:
            self.quiet_passes = 0
        self.turn_quiet = True  # the next turn begins; its draw (R3.1) follows
        self.turns_played += 1
