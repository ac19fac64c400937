"""Who holds which seat: the identity view the read side authenticates with.

Key per game: ``<game>``, ``{"seats": {<token hash>: seat}}``. Built from
the identity fields of PlayerJoined (the organiser's audience,
domain/disclosure.py): token hashes only, never a token. It is never
served: ``/hand`` finds the caller's seat in it (``Queries.seats``) and
needs nothing of the write side.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.dispatch import singledispatchmethod

from domain.disclosure import ORGANISER, disclose
from domain.events import GameCreated, PlayerJoined, PlayerLeft
from projections.base import ViewProjection, game_key
from projections.view import Transaction


class Seats(ViewProjection):
    name = "seats"

    @singledispatchmethod
    def project(self, event: Any, tx: Transaction, position: int) -> None:
        """Other events only move the position."""

    @project.register
    def _created(self, event: GameCreated, tx: Transaction, position: int) -> None:
        tx.put(game_key(event.originator_id), {"seats": {}})

    @project.register
    def _left(self, event: PlayerLeft, tx: Transaction, position: int) -> None:
        seats: dict[str, int] = tx.doc(game_key(event.originator_id))["seats"]
        for token_hash, seat in list(seats.items()):
            if seat == event.player:
                del seats[token_hash]
            elif seat > event.player:  # the seats after it move down
                seats[token_hash] = seat - 1

    @project.register
    def _joined(self, event: PlayerJoined, tx: Transaction, position: int) -> None:
        known = disclose("PlayerJoined", vars(event), ORGANISER, ended=False)
        if known["token_hash"]:
            seats = tx.doc(game_key(event.originator_id))["seats"]
            seats[known["token_hash"]] = known["player"]
