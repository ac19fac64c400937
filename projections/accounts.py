"""Accounts as people see them: public ids and names, and each account's
games and tournaments ("my games", "my tournaments", an account's page).

An account is known by its public id (its aggregate id) and name; its
holder hash (the token hash its seats, registrations and games hold,
domain/accounts) is kept only as ``holder_key``, a hash of it, to find the
account a seat or registration belongs to. Keys:

- ``account:<id>``: id, name, kind ("person" or "bot:<kind>"), since;
- ``holder:<holder key>``: the account id;
- ``games:<id>``: the games it sat at or organised, oldest first:
  ``{"game", "seat", "organiser"}`` (seat None for a game it only
  organises, or whose seat was removed before the start);
- ``tournaments:<id>``: ``{"tournament", "player"}`` likewise;
- ``members:<game or tournament>``: the accounts seated or registered
  there, ``{<seat or registration number>: account id}`` (a seat from 0,
  a registration from 1, as the events number them).

Nothing secret is kept: no session, key or passkey, and no token hash.
"""

from __future__ import annotations

import hashlib
from typing import Any

from domain.accounts.events import AccountOpened, Renamed, TokensAdopted
from domain.disclosure import ORGANISER, disclose
from domain.events import GameCreated, GameStarted, PlayerJoined, PlayerLeft
from domain.tournaments.events import PlayerRegistered, TournamentCreated
from projections.base import Fields, ViewProjection, on
from projections.view import Transaction


def holder_key(token_hash: str) -> str:
    """What a view keeps of a token hash to find its account: a hash of it."""
    return hashlib.sha256(f"holder:{token_hash}".encode()).hexdigest()[:32]


def hold(tx: Transaction, account: str, token_hashes: list[str]) -> None:
    """These token hashes are the account's from now on (its holder hash at
    its opening; the tokens a browser held when it signed in, adopted)."""
    for token_hash in token_hashes:
        tx.put(f"holder:{holder_key(token_hash)}", account)


def account_of(tx: Transaction, token_hash: str) -> str | None:
    """The account whose holder hash this is, as this view has it."""
    if not token_hash:
        return None
    found: str | None = tx.peek(f"holder:{holder_key(token_hash)}")
    return found


class AccountsView(ViewProjection):
    name = "accounts"

    @on(AccountOpened)
    def _opened(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        doc = {"id": key, "name": p["name"], "kind": p["kind"], "since": p["timestamp"]}
        tx.put(f"account:{key}", doc)
        hold(tx, key, [p["holder_hash"]])

    @on(TokensAdopted)
    def _adopted(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        """Seats taken with these tokens from now on are the account's; the
        games they sat at before stay the token's (decided in the README)."""
        hold(tx, key, list(p["token_hashes"]))

    @on(Renamed)
    def _renamed(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.doc(f"account:{key}")["name"] = p["name"]

    @on(GameCreated)
    def _created(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        known = disclose(kind, p, ORGANISER, ended=False)
        account = account_of(tx, known["organiser_hash"])
        if account is not None:
            tx.doc(f"games:{account}", []).append({"game": game, "seat": None, "organiser": True})

    @on(PlayerJoined)
    def _joined(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        known = disclose(kind, p, ORGANISER, ended=False)
        account = account_of(tx, known["token_hash"])
        # before the start a seat may still move (PlayerLeft): who sits where
        tx.doc(f"seated:{game}", []).append(account)
        if account is not None:
            self._seat(tx, account, game, p["player"])

    @staticmethod
    def _seat(tx: Transaction, account: str, game: str, seat: int | None) -> None:
        members: dict[str, str] = tx.doc(f"members:{game}", {})
        for number, member in list(members.items()):
            if member == account:
                del members[number]
        if seat is not None:
            members[str(seat)] = account
        games: list[dict[str, Any]] = tx.doc(f"games:{account}", [])
        for n, entry in enumerate(games):
            if entry["game"] == game:
                if seat is None and not entry.get("organiser"):
                    del games[n]  # its seat removed: no game of its any more
                else:
                    entry["seat"] = seat
                return
        if seat is not None:
            games.append({"game": game, "seat": seat, "organiser": False})

    @on(PlayerLeft)
    def _left(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        """Before the start: the seat is freed and those after it move down."""
        seated: list[str | None] = tx.doc(f"seated:{game}", [])
        left = p["player"]
        if left < len(seated):
            gone = seated.pop(left)
            if gone is not None:
                self._seat(tx, gone, game, None)
        for seat, account in enumerate(seated[left:], start=left):
            if account is not None:
                self._seat(tx, account, game, seat)

    @on(GameStarted)
    def _started(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.delete(f"seated:{game}")  # the seats are fixed from now on

    @on(PlayerRegistered)
    def _registered(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        known = disclose(kind, p, ORGANISER, ended=False)
        account = account_of(tx, known["token_hash"])
        if account is not None:
            entries: list[dict[str, Any]] = tx.doc(f"tournaments:{account}", [])
            entries.append({"tournament": key, "player": p["player"]})
            tx.doc(f"members:{key}", {})[str(p["player"])] = account

    @on(TournamentCreated)
    def _tournament(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        known = disclose(kind, p, ORGANISER, ended=False)
        account = account_of(tx, known["organiser_hash"])
        if account is not None:
            tx.doc(f"tournaments:{account}", []).append({"tournament": key, "player": None})
