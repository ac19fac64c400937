"""Hand-built positions for rule tests.

A ``Position`` is a real, started ``Game`` whose state a test then rearranges
card by card: every card is moved out of wherever it is (deck, hand, cabinet,
table, Sequence) into the zone the test names, so each card stays in exactly
one zone (R1.3). The rearranging itself records nothing; the moves a test
then plays go through ``Game.play`` like any other, and their events are
kept in ``Position.events``; after every move the zones (R1.3) and the
points ledger (R8.1) are checked. After every builder step and before and
after every move, every move ``domain.legal.legal_moves`` lists for the seat
to play must be accepted by the engine (``domain.engine.decide``), so the
legal-move list is held to the rules on every hand-built position.

Cards the tests use, by id (see ``domain/data/potions.json``)::

    Love Potion 6, 7 (needs elements 4, 5)      Elixir of Fidelity 14, 15 (5, 8)
    Infusion of Divination 8, 9 (element 4)     Solution of Eternity 10, 11 (element 5)
    Powder of Control 46 (Love Potion + 8)      Great Elixir of Eternal Love 49
    Elixir of the Plant Master 38, 39, 40       Stones 200-205, Transmutation 206-208
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

import pytest

from domain.catalog import STONES
from domain.engine import decide
from domain.errors import RuleError
from domain.events import PointsAwarded
from domain.game import Game
from domain.legal import legal_moves
from domain.moves import Move
from domain.ruleset import RuleSet
from domain.state import CARDS, CATALOG, GAP, GameState

NAMES = ("Ada", "Boris", "Cleo", "Dmitri", "Eva", "Fyodor")
SECRET = bytes(32)
# Ada holds S1, Boris S4, Cleo S2 in every hand-built position (R2.3 is tested
# on the real deal); the columns they use are listed where a test needs them.
SEQUENCE_CARDS = ("S1", "S4", "S2", "S3", "S5", "S6")


def started_game(
    players: int = 2, rules: RuleSet | None = None, contributions: Iterable[str] = ()
) -> Game:
    """A game created with a fixed secret, joined by ``players`` seats and started."""
    game = Game.create(rules or RuleSet(), secret=SECRET)
    texts = list(contributions)
    for seat in range(players):
        game.join(NAMES[seat], texts[seat] if seat < len(texts) else "")
    game.start()
    return game


def all_cards(guild: bool = True) -> list[int]:
    return sorted(CATALOG.base_deck + (CATALOG.guild_deck if guild else ()))


class Position:
    """A started game, cleared to an empty table: every card in the deck in
    ascending order, no hands, no cabinet, no tables, no Sequence stages, no
    points, seat 0 to play, its turn having drawn and cast nothing yet (R7.4).
    Builder methods move cards and return ``self``."""

    def __init__(self, players: int = 2, rules: RuleSet | None = None) -> None:
        self.game = started_game(players, rules)
        self.events: list[Any] = list(self.game.collect_events())
        self.guild = self.state.rules is not None and self.state.rules.guild
        s = self.state
        s.deck = all_cards(self.guild)
        s.cabinet = {}
        s.hands = [[] for _ in range(players)]
        s.tables = [{} for _ in range(players)]
        if self.guild:
            s.sequence_cards = list(SEQUENCE_CARDS[:players])
            s.columns = [{stone: [None] * 7 for stone in STONES} for _ in range(players)]
        s.scores = [0] * players
        s.turn = 0
        s.turn_quiet = True  # R7.4: the turn under way has drawn nothing (its hand is the test's)
        self.check()

    @property
    def state(self) -> GameState:
        return self.game.state

    # ---- moving cards ------------------------------------------------------

    def _detach(self, card_id: int) -> None:
        """Take a card out of the zone it is in (components stay behind)."""
        s = self.state
        if card_id in s.deck:
            s.deck.remove(card_id)
            return
        for hand in s.hands:
            if card_id in hand:
                hand.remove(card_id)
                return
        for stack in s.cabinet.values():
            if card_id in stack:
                stack.remove(card_id)
                return
        for table in s.tables:
            if card_id in table:
                s.deck.extend(table.pop(card_id))
                return
            for components in table.values():
                if card_id in components:
                    components.remove(card_id)
                    return
        for cols in s.columns:
            for stages in cols.values():
                if card_id in stages:
                    stages[stages.index(card_id)] = None
                    return
        raise AssertionError(f"card {card_id} is nowhere")

    def hand(self, seat: int, *cards: int) -> Position:
        for card_id in cards:
            self._detach(card_id)
            self.state.hands[seat].append(card_id)
        return self.check()

    def cabinet(self, *cards: int) -> Position:
        """Put cards on top of their stacks, in this order (the last is on top)."""
        for card_id in cards:
            self._detach(card_id)
            self.state.push(card_id)
        return self.check()

    def table(self, seat: int, recipe: int, *components: int) -> Position:
        """An assembled recipe on a seat's table, its components in slot order."""
        for card_id in (recipe, *components):
            self._detach(card_id)
        self.state.tables[seat][recipe] = list(components)
        return self.check()

    def column(self, seat: int, stone: str, *stages: int) -> Position:
        """Fill stages 1, 2, ... of a seat's column with these cards (or GAP)."""
        for card_id in stages:
            if card_id != GAP:
                self._detach(card_id)
        stages_list: list[int | None] = [*stages, *[None] * (7 - len(stages))]
        self.state.columns[seat][stone] = stages_list
        return self.check()

    def deck(self, *cards: int) -> Position:
        """Put cards on top of the deck; the first named is the top card."""
        for card_id in cards:
            self._detach(card_id)
        self.state.deck[:0] = list(cards)
        return self.check()

    def empty_deck(self, keep: int = 0) -> Position:
        """Keep only the top ``keep`` cards of the deck; the others go to the
        bottom of their cabinet stacks (under the tops the test has set)."""
        s = self.state
        rest, s.deck = s.deck[keep:], s.deck[:keep]
        for card_id in rest:
            s.cabinet.setdefault(CARDS[card_id].stack, []).insert(0, card_id)
        return self.check()

    def turn(self, seat: int) -> Position:
        self.state.turn = seat
        return self.check()

    def check(self) -> Position:
        """R1.3: every card is in exactly one zone; and every move the
        legal-move list offers the seat to play is one the engine accepts.
        Called after every builder step and around every move played."""
        assert sorted(self.state.all_zones()) == all_cards(self.guild)
        self.check_legal_moves()
        return self

    def check_legal_moves(self) -> None:
        """Every move of ``legal_moves`` is accepted by ``engine.decide``
        (pure: facts or a RuleError) at the game's version, on this position."""
        state = self.state
        if state.status != "running":
            return
        for move in legal_moves(state, state.turn):
            try:
                decide(state, move, self.game.version)
            except RuleError as error:
                raise AssertionError(f"listed as legal but refused: {move}: {error}") from None

    # ---- playing -------------------------------------------------------------

    def play(self, *moves: Move) -> list[Any]:
        """Play moves; returns the events they recorded (also kept in ``events``)."""
        new: list[Any] = []
        self.check()
        for move in moves:
            self.game.play(move)
            new.extend(self.game.collect_events())
            self.check()
        self.events.extend(new)
        self.assert_ledger()
        return new

    def withdraw(self, seat: int) -> list[Any]:
        """R3.5: withdraw a seat; returns the events it recorded."""
        self.game.withdraw(seat)
        new = list(self.game.collect_events())
        self.events.extend(new)
        self.check()
        self.assert_ledger()
        return new

    def refuse(self, move: Move, error: type[RuleError], rule: str) -> RuleError:
        """Play a move the rules refuse: check the error class, that its text
        starts with the rule id, and that nothing at all was recorded."""
        self.check()
        before = copy.deepcopy(self.state)
        version = self.game.version
        pending = len(self.game.pending_events)
        with pytest.raises(error, match="^" + rule.replace(".", r"\.") + ":") as caught:
            self.game.play(move)
        assert self.game.version == version
        assert len(self.game.pending_events) == pending
        assert self.state == before
        return caught.value

    # ---- reading -------------------------------------------------------------

    def stack(self, element: int | str) -> list[int]:
        return list(self.state.cabinet.get(str(element), []))

    def ledger(self) -> list[PointsAwarded]:
        return [e for e in self.events if isinstance(e, PointsAwarded)]

    def assert_ledger(self) -> None:
        """R8.1: a player's score is the sum of their PointsAwarded, nothing else."""
        for seat in range(self.state.players):
            earned = sum(e.points for e in self.ledger() if e.player == seat)
            assert self.state.scores[seat] == earned


def points(events: Iterable[Any]) -> list[tuple[int, int, str]]:
    """The (player, points, rule) of each PointsAwarded among the events."""
    return [(e.player, e.points, e.rule) for e in events if isinstance(e, PointsAwarded)]


def kinds(events: Iterable[Any]) -> list[str]:
    return [type(e).__name__ for e in events]


def of_kind(events: Iterable[Any], name: str) -> list[Any]:
    return [e for e in events if type(e).__name__ == name]
