"""Each player's private hand, card by card, in the order the state keeps it.

Key per seat: ``<game>:<seat>``, the list of card ids. The only projection
that holds hidden cards: it is served to that seat alone.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.dispatch import singledispatchmethod

from domain.events import (
    CardDiscarded,
    CardsDealt,
    CardsDrawn,
    RecipeAssembled,
    RecipePlaced,
    SpellCast,
)
from domain.state import Location
from projections.base import ViewProjection, game_key, present
from projections.view import Transaction


class Hands(ViewProjection):
    name = "hands"

    @singledispatchmethod
    def project(self, event: Any, tx: Transaction, position: int) -> None:
        """Other events only move the position."""

    @staticmethod
    def hand(tx: Transaction, game: object, seat: int) -> list[int]:
        cards: list[int] = tx.doc(f"{game}:{seat}", [])
        return cards

    def take(self, tx: Transaction, game: object, card: int, source: str) -> None:
        where = Location.parse(source)
        if where.zone == "hand":
            self.hand(tx, game, where.seat).remove(card)

    @project.register
    def _dealt(self, event: CardsDealt, tx: Transaction, position: int) -> None:
        for seat, cards in enumerate(event.hands):
            self.hand(tx, game_key(event.originator_id), seat).extend(cards)

    @project.register
    def _drawn(self, event: CardsDrawn, tx: Transaction, position: int) -> None:
        self.hand(tx, game_key(event.originator_id), event.player).extend(event.cards)

    @project.register
    def _discarded(self, event: CardDiscarded, tx: Transaction, position: int) -> None:
        self.hand(tx, game_key(event.originator_id), event.player).remove(event.card)

    @project.register
    def _assembled(self, event: RecipeAssembled, tx: Transaction, position: int) -> None:
        self.hand(tx, game_key(event.originator_id), event.player).remove(event.card)
        for card, source in zip(event.components, event.sources, strict=True):
            self.take(tx, game_key(event.originator_id), card, source)

    @project.register
    def _placed(self, event: RecipePlaced, tx: Transaction, position: int) -> None:
        self.take(tx, game_key(event.originator_id), event.card, event.source)

    @project.register
    def _cast(self, event: SpellCast, tx: Transaction, position: int) -> None:
        hand = self.hand(tx, game_key(event.originator_id), event.player)
        hand.remove(event.spell)
        if event.kind == "knowledge":  # R6.1: the cabinet card goes to hand
            hand.append(present(event.card, "the card taken"))
