"""Per-game scoreboard with point provenance (RULES §8).

Keys, per game: ``<game>:players`` (names by seat), ``<game>:totals`` (a
sorted set of points by seat) and ``<game>:awards`` (every PointsAwarded,
in order: seat, points, rule id, cause, cause_version and its position).
"""

from __future__ import annotations

from typing import Any

from domain.events import PlayerJoined, PlayerLeft, PointsAwarded
from projections.base import Fields, ViewProjection, on
from projections.view import Transaction


class Scoreboard(ViewProjection):
    name = "scoreboard"

    @on(PlayerJoined)
    def _joined(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.append(f"{game}:players", p["name"])
        tx.incr(f"{game}:totals", str(p["player"]), 0)

    @on(PlayerLeft)
    def _left(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        """Before the start every total is 0: the seats move down, and the
        last seat's total goes."""
        names = p["names"]
        tx.rewrite(f"{game}:players", list(names))
        tx.zremove(f"{game}:totals", str(len(names)))

    @on(PointsAwarded)
    def _awarded(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.incr(f"{game}:totals", str(p["player"]), p["points"])
        award: dict[str, Any] = {
            "seat": p["player"],
            "points": p["points"],
            "rule": p["rule"],
            "cause": p["cause"],
            "cause_version": p["cause_version"],
            "version": p["originator_version"],
            "position": position,
        }
        tx.append(f"{game}:awards", award)
