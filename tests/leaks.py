"""Finding card ids in what a viewer receives, to check that none is hidden."""

from __future__ import annotations

import re
from typing import Any

# Integers in views, logs and answers that are not card ids.
NOT_CARDS = {
    "version",
    "position",
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
