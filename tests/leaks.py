"""Finding card ids in what a viewer receives, to check that none is hidden."""

from __future__ import annotations

import re
from typing import Any

from domain.disclosure import PUBLIC, Audience

# Integers in views, logs and answers that are not card ids.
NOT_CARDS = {
    "version",
    "old",  # a receipt's proof: tree sizes and a leaf's index (api/receipts_http.py)
    "size",
    "index",
    "position",
    "positions",  # a view's position in each shard (projections/queries.py)
    "shard",  # a log's shard (the receipts' global logs, a proof's answer)
    "deck_size",
    "hand_sizes",
    "scores",
    "winners",
    "turn",
    "seat",
    "player",
    "owner",
    "next_player",
    "points",
    "cause_version",
    "stage",
    "stage_points",
    "players",
    "count",
    "counts",
    "games",
    "wins",
    "rank",
    "code",
}
# How texts name a card: "Love Potion (card 6)" in errors, "Love Potion (6)" in the log.
CARD_IN_TEXT = re.compile(r"\((?:card )?(\d+)\)")


def card_ids(value: Any, key: str = "") -> set[int]:
    """Every integer in a JSON value that is not known to be something else,
    and every card a text names."""
    if isinstance(value, bool) or key in NOT_CARDS:
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, str):
        return {int(n) for n in CARD_IN_TEXT.findall(value)}
    if isinstance(value, dict):
        return set().union(*(card_ids(v, str(k)) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(card_ids(v, key) for v in value))
    return set()


HIDDEN = {"CardsDealt": "hands", "CardsDrawn": "cards", "GameCreated": "secret"}  # R1.3, R9.1
ENVELOPE = {"originator_id", "originator_version", "timestamp", "chain", "originator_topic"}


class Knowledge:
    """What each audience may know of one game, from its recorded events:
    worked out by the rules (R1.3), not by the disclosure policy under test.
    Every card an event names outside the dealt hands and the drawn cards is
    public; a seat also knows its own deal and draws; once the game has
    ended, everyone knows all."""

    def __init__(self, events: list[Any]) -> None:
        self.ended = any(type(e).__name__ == "GameEnded" for e in events)
        self.public: set[int] = set()
        self.own: dict[int, set[int]] = {}
        self.every: set[int] = set()
        for event in events:
            kind = type(event).__name__
            fields = {k: v for k, v in vars(event).items() if k not in ENVELOPE}
            hidden = HIDDEN.get(kind)
            self.every |= card_ids(fields)
            self.public |= card_ids({k: v for k, v in fields.items() if k != hidden})
            if kind == "CardsDealt":
                for k, hand in enumerate(event.hands):
                    self.own.setdefault(k, set()).update(hand)
            elif kind == "CardsDrawn":
                self.own.setdefault(event.player, set()).update(event.cards)

    def known(self, audience: Audience) -> set[int]:
        if self.ended:
            return self.every
        if audience.kind == "seat" and audience.seat is not None:
            return self.public | self.own.get(audience.seat, set())
        return self.public

    def unknown(self, audience: Audience) -> set[int]:
        return self.every - self.known(audience)

    def unknown_to_public(self) -> set[int]:
        return self.unknown(PUBLIC)
