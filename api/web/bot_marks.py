"""Which seats of a table are the service's bots, for the pages to mark.

A bot's seat is named as its account ("Greedy bot 2"); the pages add its
kind beside the seat and beside each of its moves in the move log. Which
seats are bots is the store's to say (domain/bot_seats.py: a seat whose
token hash is a bot account's holder hash), read here from the seats view
(token hash -> seat), which the pages read anyway: no hidden card, no
token leaves it, only the kinds by seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from api.runtime import services
from domain.bot_seats import roster

# the entries a seat's own acts make (its joining is left out: seats move
# down before the start, and an entry keeps the seat it was made with)
MOVES = frozenset({"CardDiscarded", "RecipeAssembled", "RecipePlaced", "SpellCast", "TurnEnded"})


def bot_kinds(game_id: UUID, names: Sequence[str] | None = None) -> dict[int, str]:
    """The bots at a game's table, seat -> kind (``names``: the players' by
    seat, if the caller has them)."""
    svc = services()
    seats = svc.views.seats(game_id) or {}
    if not seats:
        return {}
    if names is None:
        names = (svc.views.lobby_game(game_id) or {}).get("players", [])
    return roster(svc.opus).kinds_by_seat(seats, names)


def mark_bots(entries: list[dict[str, Any]], kinds: dict[int, str]) -> list[dict[str, Any]]:
    """The move log's entries, each of a bot's own moves with its kind (``bot``)."""
    if not kinds:
        return entries
    return [
        {**entry, "bot": kinds[entry["player"]]}
        if entry.get("event") in MOVES and entry.get("player") in kinds
        else entry
        for entry in entries
    ]
