"""The lobby: which games are open, running or over, and which tournaments
there are, for the web client's first page (api/web/).

No other view lists games: each keys its documents by the game. Keys:

- ``<game>``: what the lobby shows of a game: status, players' names in seat
  order, its rule-set variant (draw, guild, stage points), when it was
  created, its tournament (id, round, table) if any, and once it has ended
  its scores and winners;
- sorted sets ``open`` and ``running`` (member: the game, score: the
  position of its GameCreated): a game moves from one to the next, and
  leaves ``running`` when it ends;
- ``ended``: a document, the last ``RECENT`` games to end, the latest last
  (a list every ended game would grow without bound);
- ``<tournament>`` (name, status, when created) and the sorted set
  ``tournaments``.

Every field is public (domain/disclosure.py's ``PUBLIC``): no token hash,
no secret.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.dispatch import singledispatchmethod

from domain.events import (
    GameCreated,
    GameEnded,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
    TournamentGameCreated,
)
from domain.tournaments.events import TournamentCreated, TournamentFinished
from projections.base import ViewProjection, game_key
from projections.view import Transaction

RECENT = 20  # ended games the lobby keeps


class Lobby(ViewProjection):
    name = "lobby"

    @singledispatchmethod
    def project(self, event: Any, tx: Transaction, position: int) -> None:
        """Other events only move the position."""

    @project.register
    def _created(self, event: GameCreated, tx: Transaction, position: int) -> None:
        game = game_key(event.originator_id)
        tournament = None
        if isinstance(event, TournamentGameCreated):
            tournament = {"id": event.tournament, "round": event.round, "table": event.table}
        doc = {
            "game": game,
            "status": "open",
            "players": [],
            "draw": event.draw,
            "guild": event.guild,
            "stage_points": list(event.stage_points),
            "created": event.timestamp.isoformat(),
            "created_position": position,
            "tournament": tournament,
            "scores": [],
            "winners": [],
        }
        tx.put(game, doc)
        tx.incr("open", game, position)

    @project.register
    def _joined(self, event: PlayerJoined, tx: Transaction, position: int) -> None:
        tx.doc(game_key(event.originator_id))["players"].append(event.name)

    @project.register
    def _left(self, event: PlayerLeft, tx: Transaction, position: int) -> None:
        tx.doc(game_key(event.originator_id))["players"] = list(event.names)

    @project.register
    def _started(self, event: GameStarted, tx: Transaction, position: int) -> None:
        game = game_key(event.originator_id)
        doc = tx.doc(game)
        doc["status"] = "running"
        tx.zremove("open", game)
        tx.incr("running", game, doc["created_position"])

    @project.register
    def _ended(self, event: GameEnded, tx: Transaction, position: int) -> None:
        game = game_key(event.originator_id)
        doc = tx.doc(game)
        doc["status"] = "ended"
        doc["scores"] = list(event.scores)
        doc["winners"] = list(event.winners)
        tx.zremove("running", game)
        ended: list[str] = tx.doc("ended", [])
        ended.append(game)
        del ended[:-RECENT]

    @project.register
    def _tournament(self, event: TournamentCreated, tx: Transaction, position: int) -> None:
        key = game_key(event.originator_id)
        doc = {
            "tournament": key,
            "name": event.name,
            "status": "running",
            "created": event.timestamp.isoformat(),
        }
        tx.put(key, doc)
        tx.incr("tournaments", key, position)

    @project.register
    def _finished(self, event: TournamentFinished, tx: Transaction, position: int) -> None:
        tx.doc(game_key(event.originator_id))["status"] = "finished"
