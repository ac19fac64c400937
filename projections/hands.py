"""Each player's private hand, card by card, in the order the state keeps it.

Key per seat: ``<game>:<seat>``, the list of card ids. The only projection
that holds hidden cards, each seat's under its own key: it is served to that
seat alone (``domain.disclosure.seat(k)`` may see them). What each event does
to a hand is the domain's (``domain.hands.evolve_hands``).
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.events import (
    CardDiscarded,
    CardsDealt,
    CardsDrawn,
    RecipeAssembled,
    RecipePlaced,
    SpellCast,
)
from domain.hands import evolve_hands
from projections.base import Fields, ViewProjection, on
from projections.view import Transaction


class SeatHands:
    """The hands of one game in a view transaction (a ``domain.hands.HandZone``)."""

    def __init__(self, tx: Transaction, game: str) -> None:
        self.tx = tx
        self.game = game

    def hand(self, seat: int) -> list[int]:
        cards: list[int] = self.tx.doc(f"{self.game}:{seat}", [])
        return cards

    def add_to_hand(self, seat: int, cards: Sequence[int]) -> None:
        self.hand(seat).extend(cards)

    def remove_from_hand(self, seat: int, card: int) -> None:
        self.hand(seat).remove(card)


class Hands(ViewProjection):
    name = "hands"

    @on(CardsDealt, CardsDrawn, CardDiscarded, RecipeAssembled, RecipePlaced, SpellCast)
    def _moved(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        evolve_hands(SeatHands(tx, game), kind, p)
