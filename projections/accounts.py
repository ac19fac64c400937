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
- ``look:<look key>``: the accounts whose names look alike
  (``look_key``: a hash of domain/confusables.py's ``look``), a list of
  ids: what a new account's name is checked against (domain/names.py).

Nothing secret is kept: no session, key or passkey, and no token hash.

With several shards (projections/order.py) the games and tournaments
lists are in the order across shards of the event that listed each, and
an adopted token is the account's for seats taken after its adoption in
that order (``hold``'s and ``account_of``'s ``at``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from domain.accounts.events import AccountOpened, Renamed, TokensAdopted
from domain.confusables import look
from domain.disclosure import ORGANISER, disclose
from domain.events import GameCreated, GameStarted, PlayerJoined, PlayerLeft
from domain.tournaments.events import PlayerRegistered, TournamentCreated
from projections.base import Fields, ViewProjection, on
from projections.order import Key, key_of, keys_key, place, remove
from projections.view import Transaction


def holder_key(token_hash: str) -> str:
    """What a view keeps of a token hash to find its account: a hash of it."""
    return hashlib.sha256(f"holder:{token_hash}".encode()).hexdigest()[:32]


def look_key(name: str) -> str:
    """The key of the accounts whose names look like ``name`` (a hash of
    its ``look``, so no character of a name reaches a store's key)."""
    return "look:" + hashlib.sha256(look(name).encode()).hexdigest()[:32]


def hold(tx: Transaction, account: str, token_hashes: list[str], at: Key | None = None) -> None:
    """These token hashes are the account's from now on (its holder hash at
    its opening; the tokens a browser held when it signed in, adopted); with
    several shards, from ``at`` on in the order across shards."""
    for token_hash in token_hashes:
        key = f"holder:{holder_key(token_hash)}"
        tx.put(key, account)
        if at is not None:
            tx.put(keys_key(key), at)


def account_of(tx: Transaction, token_hash: str, at: Key | None = None) -> str | None:
    """The account whose holder hash this is, as this view has it; with
    several shards, for a seat taken at ``at``: none if the account took
    the token later."""
    if not token_hash:
        return None
    key = f"holder:{holder_key(token_hash)}"
    found: str | None = tx.peek(key)
    if found is not None and at is not None:
        since: Key | None = tx.peek(keys_key(key))
        if since is not None and at < since:
            return None
    return found


class AccountsView(ViewProjection):
    name = "accounts"

    @on(AccountOpened)
    def _opened(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        doc = {"id": key, "name": p["name"], "kind": p["kind"], "since": p["timestamp"]}
        tx.put(f"account:{key}", doc)
        tx.doc(look_key(p["name"]), []).append(key)
        hold(tx, key, [p["holder_hash"]], key_of(self.view, p, position))

    @on(TokensAdopted)
    def _adopted(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        """Seats taken with these tokens from now on are the account's; the
        games they sat at before stay the token's (decided in the README)."""
        hold(tx, key, list(p["token_hashes"]), key_of(self.view, p, position))

    @on(Renamed)
    def _renamed(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        doc = tx.doc(f"account:{key}")
        looking: list[str] = tx.doc(look_key(doc["name"]), [])
        if key in looking:
            looking.remove(key)
        tx.doc(look_key(p["name"]), []).append(key)
        doc["name"] = p["name"]

    @on(GameCreated)
    def _created(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        known = disclose(kind, p, ORGANISER, ended=False)
        at = key_of(self.view, p, position)
        account = account_of(tx, known["organiser_hash"], at)
        if account is not None:
            games: list[dict[str, Any]] = tx.doc(f"games:{account}", [])
            entry = {"game": game, "seat": None, "organiser": True}
            games.insert(place(tx, f"games:{account}", at, games), entry)

    @on(PlayerJoined)
    def _joined(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        known = disclose(kind, p, ORGANISER, ended=False)
        at = key_of(self.view, p, position)
        account = account_of(tx, known["token_hash"], at)
        # before the start a seat may still move (PlayerLeft): who sits where
        tx.doc(f"seated:{game}", []).append(account)
        if account is not None:
            self._seat(tx, account, game, p["player"], at)

    def _seat(
        self, tx: Transaction, account: str, game: str, seat: int | None, at: Key | None
    ) -> None:
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
                    if self.view.shards > 1:
                        remove(tx, f"games:{account}", n)
                else:
                    entry["seat"] = seat
                return
        if seat is not None:
            entry = {"game": game, "seat": seat, "organiser": False}
            games.insert(place(tx, f"games:{account}", at, games), entry)

    @on(PlayerLeft)
    def _left(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        """Before the start: the seat is freed and those after it move down.
        An account that held the freed seat and another one is listed again
        for the other, as of this event (with one shard: at the list's end)."""
        seated: list[str | None] = tx.doc(f"seated:{game}", [])
        left = p["player"]
        at = key_of(self.view, p, position)
        if left < len(seated):
            gone = seated.pop(left)
            if gone is not None:
                self._seat(tx, gone, game, None, None)
        for seat, account in enumerate(seated[left:], start=left):
            if account is not None:
                self._seat(tx, account, game, seat, at)

    @on(GameStarted)
    def _started(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.delete(f"seated:{game}")  # the seats are fixed from now on

    @on(PlayerRegistered)
    def _registered(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        known = disclose(kind, p, ORGANISER, ended=False)
        at = key_of(self.view, p, position)
        account = account_of(tx, known["token_hash"], at)
        if account is not None:
            entries: list[dict[str, Any]] = tx.doc(f"tournaments:{account}", [])
            entry = {"tournament": key, "player": p["player"]}
            entries.insert(place(tx, f"tournaments:{account}", at, entries), entry)
            tx.doc(f"members:{key}", {})[str(p["player"])] = account

    @on(TournamentCreated)
    def _tournament(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        known = disclose(kind, p, ORGANISER, ended=False)
        at = key_of(self.view, p, position)
        account = account_of(tx, known["organiser_hash"], at)
        if account is not None:
            entries: list[dict[str, Any]] = tx.doc(f"tournaments:{account}", [])
            entry = {"tournament": key, "player": None}
            entries.insert(place(tx, f"tournaments:{account}", at, entries), entry)
