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

from domain.disclosure import HIDING, PUBLIC, disclose
from domain.events import GameCreated, GameEvent
from domain.table import Doc, PublicTable
from projections.base import Fields, ViewProjection, on
from projections.view import Transaction


class GameTable:
    """The document under ``<game>``, kept as the model it is written from."""

    __slots__ = ("batch", "game", "position", "table", "version")

    def __init__(self, game: str, table: PublicTable, version: int, position: int) -> None:
        self.game = game
        self.table = table
        self.version = version
        self.position = position
        self.batch = 0  # the serial of the batch it is to be written in

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

    @on(GameCreated)
    def _created(
        self, kind: str, game: str, fields: Fields, tx: Transaction, position: int
    ) -> None:
        public = disclose("GameCreated", fields, PUBLIC, ended=False)
        table = PublicTable(commitment=public["commitment"])
        doc = GameTable(game, table, fields["originator_version"], position)
        tx.put(game, doc)
        doc.batch = tx.serial

    @on(GameEvent)
    def _event(self, kind: str, game: str, fields: Fields, tx: Transaction, position: int) -> None:
        doc = tx.peek(game)
        if type(doc) is not GameTable:
            doc = self._load(tx, game, doc)
        # An event with no hidden field is read as it is: the table reads its
        # public fields by name, never an identity field.
        public = disclose(kind, fields, PUBLIC, ended=False) if kind in HIDING else fields
        doc.table.evolve(kind, public)
        doc.version = fields["originator_version"]
        doc.position = position
        if doc.batch != tx.serial or kind == "GameStarted":
            # to be written when this batch commits, with its whole stacks
            tx.put(game, doc)
            if doc.table.status != "open":
                tx.put(f"{game}:cabinet", doc.table.cabinet)
            doc.batch = tx.serial

    @staticmethod
    def _load(tx: Transaction, game: str, stored: Any) -> GameTable:
        """The table of a game as the store holds it."""
        if stored is None:
            raise KeyError(f"no table of game {game}: its GameCreated was never projected")
        return GameTable.from_json(stored, tx.peek(f"{game}:cabinet") or {})
