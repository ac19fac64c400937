"""A global leaderboard across games: games played, wins, points by name.

A player is the name given in PlayerJoined. A game counts when it ends
(GameEnded): its final scores and winners (a shared win is a win for each).
Keys: sorted sets ``games``, ``wins`` and ``points`` (member: the name),
and per game in progress ``<game>:players``, dropped when it ends.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.dispatch import singledispatchmethod

from domain.events import GameEnded, PlayerJoined
from projections.base import ViewProjection, game_key
from projections.view import Transaction


class Leaderboard(ViewProjection):
    name = "leaderboard"

    @singledispatchmethod
    def project(self, event: Any, tx: Transaction, position: int) -> None:
        """Other events only move the position."""

    @project.register
    def _joined(self, event: PlayerJoined, tx: Transaction, position: int) -> None:
        tx.doc(f"{game_key(event.originator_id)}:players", []).append(event.name)

    @project.register
    def _ended(self, event: GameEnded, tx: Transaction, position: int) -> None:
        key = f"{game_key(event.originator_id)}:players"
        names: list[str] = tx.peek(key) or []
        for seat, name in enumerate(names):
            tx.incr("games", name, 1)
            tx.incr("points", name, event.scores[seat])
            tx.incr("wins", name, 1 if seat in event.winners else 0)
        tx.delete(key)
