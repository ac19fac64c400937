"""The lobby: which games are open, running or over, and which tournaments
there are, for the web client's first page (api/web/).

No other view lists games: each keys its documents by the game. Keys:

- ``<game>``: what the lobby shows of a game: status, players' names in seat
  order, its rule-set variant (draw, guild, stage points; a timed game's
  clock), when it was
  created, its tournament (id, round, table) if any, and once it has ended
  its scores and winners; ``admission`` "invitation" for a game by
  invitation (absent: open);
- sorted sets ``open`` and ``running`` (member: the game, score: the
  position of its GameCreated): a game moves from one to the next, and
  leaves ``running`` when it ends;
- ``ended``: a document, the last ``RECENT`` games to end, the latest last
  (a list every ended game would grow without bound); with several shards,
  latest by their GameEnded's order across shards (projections/order.py);
- ``<tournament>`` (name, status, when created) and the sorted set
  ``tournaments``.

Every field is public (domain/disclosure.py's ``PUBLIC``): no token hash,
no secret.
"""

from __future__ import annotations

from domain.accounts.events import AdmissionSet
from domain.events import (
    GameCreated,
    GameEnded,
    GameStarted,
    PlayerJoined,
    PlayerLeft,
)
from domain.tournaments.events import TournamentCreated, TournamentFinished
from projections.base import Fields, ViewProjection, on
from projections.order import key_of, place, trim
from projections.view import Transaction

RECENT = 20  # ended games the lobby keeps


class Lobby(ViewProjection):
    name = "lobby"

    @on(GameCreated)
    def _created(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        tournament = None
        if kind == "TournamentGameCreated":
            tournament = {"id": p["tournament"], "round": p["round"], "table": p["table"]}
        doc = {
            "game": game,
            "status": "open",
            "players": [],
            "draw": p["draw"],
            "guild": p["guild"],
            "stage_points": list(p["stage_points"]),
            "created": p["timestamp"],
            "created_position": position,
            "tournament": tournament,
            "scores": [],
            "winners": [],
        }
        if p.get("clock"):  # a timed game's speed (RULES §11); an untimed game's doc as before
            doc["clock"] = p["clock"]
        tx.put(game, doc)
        tx.incr("open", game, position)

    @on(AdmissionSet)
    def _admission(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        """Who may join (domain/accounts): saved with its game, after its GameCreated."""
        tx.doc(p["game"])["admission"] = p["mode"]

    @on(PlayerJoined)
    def _joined(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.doc(game)["players"].append(p["name"])

    @on(PlayerLeft)
    def _left(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.doc(game)["players"] = list(p["names"])

    @on(GameStarted)
    def _started(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        doc = tx.doc(game)
        doc["status"] = "running"
        tx.zremove("open", game)
        tx.incr("running", game, doc["created_position"])

    @on(GameEnded)
    def _ended(self, kind: str, game: str, p: Fields, tx: Transaction, position: int) -> None:
        doc = tx.doc(game)
        doc["status"] = "ended"
        doc["scores"] = list(p["scores"])
        doc["winners"] = list(p["winners"])
        tx.zremove("running", game)
        ended: list[str] = tx.doc("ended", [])
        at = key_of(self.view, p, position)  # several shards: by when they ended
        ended.insert(place(tx, "ended", at, ended), game)
        del ended[:-RECENT]
        if at is not None:
            trim(tx, "ended", RECENT)

    @on(TournamentCreated)
    def _tournament(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        doc = {"tournament": key, "name": p["name"], "status": "running", "created": p["timestamp"]}
        tx.put(key, doc)
        tx.incr("tournaments", key, position)

    @on(TournamentFinished)
    def _finished(self, kind: str, key: str, p: Fields, tx: Transaction, position: int) -> None:
        tx.doc(key)["status"] = "finished"
