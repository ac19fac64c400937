"""Who holds which seat: the identity view the read side authenticates with.

Key per game: ``<game>``, ``{"organiser": <hash>, "seats": {<token hash>: seat}}``.
Built from the identity fields of GameCreated and PlayerJoined (the
organiser's audience, domain/disclosure.py): token hashes only, never a
token. It is never served: queries use it to find the seat of a caller
(``Queries.seat_of``), so that ``/hand`` needs nothing of the write side.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.dispatch import singledispatchmethod

from domain.disclosure import ORGANISER, disclose
from domain.events import GameCreated, PlayerJoined
from projections.base import ViewProjection, game_key
from projections.view import Transaction


class Seats(ViewProjection):
    name = "seats"

    @singledispatchmethod
    def project(self, event: Any, tx: Transaction, position: int) -> None:
        """Other events only move the position."""

    @project.register
    def _created(self, event: GameCreated, tx: Transaction, position: int) -> None:
        known = disclose("GameCreated", vars(event), ORGANISER, ended=False)
        tx.put(game_key(event.originator_id), {"organiser": known["organiser_hash"], "seats": {}})

    @project.register
    def _joined(self, event: PlayerJoined, tx: Transaction, position: int) -> None:
        known = disclose("PlayerJoined", vars(event), ORGANISER, ended=False)
        if known["token_hash"]:
            seats = tx.doc(game_key(event.originator_id))["seats"]
            seats[known["token_hash"]] = known["player"]
