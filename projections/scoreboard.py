"""Per-game scoreboard with point provenance (RULES §8).

Keys, per game: ``<game>:players`` (names by seat), ``<game>:totals`` (a
sorted set of points by seat) and ``<game>:awards`` (every PointsAwarded,
in order: seat, points, rule id, cause, cause_version and its position).
"""

from __future__ import annotations

from typing import Any

from eventsourcing.dispatch import singledispatchmethod

from domain.events import PlayerJoined, PlayerLeft, PointsAwarded
from projections.base import ViewProjection, game_key
from projections.view import Transaction


class Scoreboard(ViewProjection):
    name = "scoreboard"

    @singledispatchmethod
    def project(self, event: Any, tx: Transaction, position: int) -> None:
        """Other events only move the position."""

    @project.register
    def _joined(self, event: PlayerJoined, tx: Transaction, position: int) -> None:
        game = game_key(event.originator_id)
        tx.append(f"{game}:players", event.name)
        tx.incr(f"{game}:totals", str(event.player), 0)

    @project.register
    def _left(self, event: PlayerLeft, tx: Transaction, position: int) -> None:
        """Before the start every total is 0: the seats move down, and the
        last seat's total goes."""
        game = game_key(event.originator_id)
        tx.rewrite(f"{game}:players", list(event.names))
        tx.zremove(f"{game}:totals", str(len(event.names)))

    @project.register
    def _awarded(self, event: PointsAwarded, tx: Transaction, position: int) -> None:
        game = game_key(event.originator_id)
        tx.incr(f"{game}:totals", str(event.player), event.points)
        award: dict[str, Any] = {
            "seat": event.player,
            "points": event.points,
            "rule": event.rule,
            "cause": event.cause,
            "cause_version": event.cause_version,
            "version": event.originator_version,
            "position": position,
        }
        tx.append(f"{game}:awards", award)
