"""A global leaderboard across games: games played, wins, points by player.

A player is an identity, not a display name: the seat's token (its hash,
from PlayerJoined's identity fields; a client that brings its own token to
every game it joins keeps one identity), published only as ``player_id``,
a hash of it. A seat taken with no token (the service's own bots) is the
identity of its name alone. So anyone may call themselves "Ada" without
sharing Ada's row, and the simulator's bots never merge with real players.
A game counts when it ends (GameEnded): its final scores and winners (a
shared win is a win for each). Keys: sorted sets ``games``, ``wins`` and
``points`` (member: the player id), a document ``name:<player id>`` (the
name it last played under: one small key each, so that a game's end and a
query touch only the players they name), and per game in progress
``<game>:players`` ([player id, name] by seat), dropped when it ends.

An account (domain/accounts) is one player whatever name a seat shows:
its rows' player id is the account's public id, its name the account's
(``AccountOpened``, ``Renamed``), found from the seat's token hash by
``holder:<holder key>`` (projections/accounts.py's ``holder_key``).

With several shards, "the name last played under" is that of the game
that ended last in the order across shards (projections/order.py).
"""

from __future__ import annotations

import hashlib
from typing import Any

from domain.accounts.events import AccountOpened, Renamed, TokensAdopted
from domain.disclosure import ORGANISER, disclose
from domain.events import GameEnded, PlayerJoined, PlayerLeft
from projections.accounts import account_of, hold
from projections.base import Fields, ViewProjection, on
from projections.order import is_latest, key_of
from projections.view import Transaction


class Leaderboard(ViewProjection):
    name = "leaderboard"

    @on(AccountOpened)
    def _account(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        hold(tx, key, [p["holder_hash"]], key_of(self.view, p, position))
        tx.put(f"name:{key}", p["name"])

    @on(TokensAdopted)
    def _adopted(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        hold(tx, key, list(p["token_hashes"]), key_of(self.view, p, position))

    @on(Renamed)
    def _renamed(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.put(f"name:{key}", p["name"])

    @on(PlayerJoined)
    def _joined(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        known = disclose("PlayerJoined", p, ORGANISER, ended=False)
        account = account_of(tx, known["token_hash"], key_of(self.view, p, position))
        if account is not None:  # an account's row keeps the account's name
            seat = [account, None]
        else:
            seat = [player_id(known["token_hash"], p["name"]), p["name"]]
        tx.doc(f"{game}:players", []).append(seat)

    @on(PlayerLeft)
    def _left(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        del tx.doc(f"{game}:players", [])[p["player"]]

    @on(GameEnded)
    def _ended(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        key = f"{game}:players"
        seats: list[Any] = tx.peek(key) or []
        scores, winners = p["scores"], p["winners"]
        at = key_of(self.view, p, position)
        for seat, joined in enumerate(seats):
            # a game that began before identities kept only the name
            player, name = joined if isinstance(joined, list) else (player_id("", joined), joined)
            tx.incr("games", player, 1)
            tx.incr("points", player, scores[seat])
            tx.incr("wins", player, 1 if seat in winners else 0)
            if name is not None and is_latest(tx, f"name:{player}", at):
                tx.put(f"name:{player}", name)
        tx.delete(key)


def player_id(token_hash: str, name: str) -> str:
    """The public id of a player: never the token hash itself."""
    identity = f"token:{token_hash}" if token_hash else f"name:{name}"
    return hashlib.sha256(identity.encode()).hexdigest()[:16]
