"""The public table of each game: what everyone at it may see (R1.3).

The domain's ``PublicTable`` (domain/table.py) is evolved with each event's
public disclosure (domain/disclosure.py), so no hidden card can reach it;
the document under ``<game>`` is its ``to_doc()`` (the shape of
``domain.table.public_view``) plus the game id, its version and the
position of its last event. ``<game>:cabinet`` keeps every cabinet stack
whole, from the start of the game, since taking a top uncovers the card
below.

While a batch is open the view keeps each game's ``PublicTable`` itself
and writes its document once, when the batch commits.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.dispatch import singledispatchmethod

from domain.disclosure import PUBLIC, disclose
from domain.events import GameCreated, GameEvent
from domain.table import Doc, PublicTable
from projections.base import ViewProjection, game_key
from projections.view import Transaction


class GameTable:
    """The document under ``<game>``, kept as the model it is written from."""

    __slots__ = ("game", "position", "table", "version")

    def __init__(self, game: str, table: PublicTable, version: int, position: int) -> None:
        self.game = game
        self.table = table
        self.version = version
        self.position = position

    def to_json(self) -> Doc:
        doc = self.table.to_doc()
        doc["game"] = self.game
        doc["version"] = self.version
        doc["position"] = self.position
        return doc

    @classmethod
    def from_json(cls, doc: Doc, stacks: dict[str, list[int]]) -> GameTable:
        table = PublicTable.from_doc(doc, stacks)
        return cls(doc["game"], table, doc["version"], doc["position"])


class TableView(ViewProjection):
    name = "table"

    @singledispatchmethod
    def project(self, event: Any, tx: Transaction, position: int) -> None:
        """Events of other aggregates."""

    @project.register
    def _created(self, event: GameCreated, tx: Transaction, position: int) -> None:
        game = game_key(event.originator_id)
        public = disclose("GameCreated", vars(event), PUBLIC, ended=False)
        table = PublicTable(commitment=public["commitment"])
        tx.put(game, GameTable(game, table, event.originator_version, position))

    @project.register
    def _event(self, event: GameEvent, tx: Transaction, position: int) -> None:
        game = game_key(event.originator_id)
        stacks = f"{game}:cabinet"
        doc = tx.doc(game)  # a KeyError for a game never created: the projection stops
        if not isinstance(doc, GameTable):  # read from the store
            doc = GameTable.from_json(doc, tx.peek(stacks) or {})
            tx.put(game, doc)
        event_type = type(event).__name__
        doc.table.evolve(event_type, disclose(event_type, vars(event), PUBLIC, ended=False))
        doc.version = event.originator_version
        doc.position = position
        if doc.table.status != "open":
            tx.put(stacks, doc.table.cabinet)
