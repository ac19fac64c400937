"""What each event does to the players' hands (R1.3): the one place that says
which cards enter and leave a hand.

``evolve_hands`` works on any ``HandZone`` given an event's own fields: the
game state keeps the cards (domain/state.py) and the hands projection each
seat's cards for that seat alone. The public table (domain/table.py) counts
cards through the same changes (``HAND_CHANGES``), but for the events with a
hidden field, whose public form has counts instead of cards.
Payloads are an event's own fields (``vars(event)`` of a Game event).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from domain.zones import Location


class HandZone(Protocol):
    def add_to_hand(self, seat: int, cards: Sequence[int]) -> None: ...

    def remove_from_hand(self, seat: int, card: int) -> None: ...


def evolve_hands(hands: HandZone, event_type: str, p: Mapping[str, Any]) -> None:
    """Move cards into and out of hands as the event says."""
    change = HAND_CHANGES.get(event_type)
    if change is not None:
        change(hands, p)


def _dealt(hands: HandZone, p: Mapping[str, Any]) -> None:  # R2.2
    for seat, cards in enumerate(p["hands"]):
        hands.add_to_hand(seat, cards)


def _drawn(hands: HandZone, p: Mapping[str, Any]) -> None:  # R3.1
    hands.add_to_hand(p["player"], p["cards"])


def _discarded(hands: HandZone, p: Mapping[str, Any]) -> None:  # R4.1
    hands.remove_from_hand(p["player"], p["card"])


def _assembled(hands: HandZone, p: Mapping[str, Any]) -> None:  # R4.2: the recipe leaves
    hands.remove_from_hand(p["player"], p["card"])
    for card, source in zip(p["components"], p["sources"], strict=True):
        _leave_source(hands, card, source)


def _placed(hands: HandZone, p: Mapping[str, Any]) -> None:  # R4.5, S5: straight from hand
    _leave_source(hands, p["card"], p["source"])


def _cast(hands: HandZone, p: Mapping[str, Any]) -> None:  # R6: the spell leaves the hand
    hands.remove_from_hand(p["player"], p["spell"])
    if p["kind"] == "knowledge":  # R6.1: the cabinet card joins it
        hands.add_to_hand(p["player"], [p["card"]])


def _leave_source(hands: HandZone, card: int, source: str) -> None:
    if source.startswith("hand:"):
        hands.remove_from_hand(Location.parse(source).seat, card)


# event type -> what it does to the hands
HAND_CHANGES: dict[str, Callable[[HandZone, Mapping[str, Any]], None]] = {
    "CardsDealt": _dealt,
    "CardsDrawn": _drawn,
    "CardDiscarded": _discarded,
    "RecipeAssembled": _assembled,
    "RecipePlaced": _placed,
    "SpellCast": _cast,
}
