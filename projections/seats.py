"""Who holds which seat: the identity view the read side authenticates with.

Key per game: ``<game>``, ``{"seats": {<token hash>: seat}}``. Built from
the identity fields of PlayerJoined (the organiser's audience,
domain/disclosure.py): token hashes only, never a token. It is never
served: ``/hand`` finds the caller's seat in it (``Queries.seats``) and
needs nothing of the write side.
"""

from __future__ import annotations

from domain.disclosure import ORGANISER, disclose
from domain.events import GameCreated, PlayerJoined, PlayerLeft
from projections.base import Fields, ViewProjection, on
from projections.view import Transaction


class Seats(ViewProjection):
    name = "seats"

    @on(GameCreated)
    def _created(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.put(game, {"seats": {}})

    @on(PlayerLeft)
    def _left(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        seats: dict[str, int] = tx.doc(game)["seats"]
        left = p["player"]
        for token_hash, seat in list(seats.items()):
            if seat == left:
                del seats[token_hash]
            elif seat > left:  # the seats after it move down
                seats[token_hash] = seat - 1

    @on(PlayerJoined)
    def _joined(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        known = disclose("PlayerJoined", p, ORGANISER, ended=False)
        if known["token_hash"]:
            seats = tx.doc(game)["seats"]
            seats[known["token_hash"]] = known["player"]
