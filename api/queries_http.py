"""Queries over HTTP (GET).

Views come from the projections (``services().views``), never from replaying
the game; ``?after=POSITION`` waits, bounded, until the view has caught up,
and every answer says which position it reflects. Two answers are decisions
rather than views and ask the game itself: the legal moves of a seat (the
engine enumerates them) and the export of one game's log.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from uuid import UUID

from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint

from api.identity import seat_of
from api.runtime import services
from api.schemas import LegalMovesSchema
from domain import legal
from domain.moves import move_to_dict
from infra.eventlog import game_records

blp = Blueprint("queries", __name__, url_prefix="/games", description="Queries")


@blp.route("/<uuid:game_id>/legal-moves")
class LegalMoves(MethodView):
    @blp.response(200, LegalMovesSchema)
    def get(self, game_id: UUID) -> dict[str, Any]:
        """Every move the engine would accept from your seat now (token)."""
        app = services().app
        with app.reading(game_id) as (state, version):
            seat = seat_of(state)
            moves = [move_to_dict(m) for m in legal.legal_moves(state, seat)]
        return {"seat": seat, "version": version, "moves": moves}


@blp.route("/<uuid:game_id>/export")
class Export(MethodView):
    @blp.response(200, content_type="application/x-ndjson")
    def get(self, game_id: UUID) -> Response:
        """The game's log as NDJSON (one event a line, with its chain value);
        hidden information only once the game has ended."""
        records = game_records(services().app, game_id)
        ended = any(r.type == "GameEnded" for r in records)

        def lines() -> Iterator[str]:
            for record in records:
                shown = record if ended else record.redact()
                yield json.dumps(shown.to_line(), ensure_ascii=False, separators=(",", ":"))
                yield "\n"

        return Response(lines(), mimetype="application/x-ndjson")
