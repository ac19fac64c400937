"""Tournament queries over HTTP (GET), from the tournaments projection
(projections/tournaments.py): the tournament, its standings now or as a
round's close sealed them, one round's tables. ``?after=POSITION`` waits,
bounded, as for games."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import fields, validate

from api.errors import ApiError
from api.queries_http import view
from api.schemas import AfterSchema, ErrorSchema, ViewSchema

blp = Blueprint("tournament_queries", __name__, description="Tournament queries")


class StandingsArgs(AfterSchema):
    round = fields.Integer(
        strict=False,
        validate=validate.Range(1, 10_000),
        load_default=None,
        metadata={"description": "The standings round r's close sealed (T9.1); now if absent."},
    )


@blp.route("/tournaments/<uuid:tournament_id>")
class TournamentQuery(MethodView):
    @blp.arguments(AfterSchema(), location="query")
    @blp.response(200, ViewSchema)
    @blp.alt_response(503, schema=ErrorSchema, description="The view has not caught up")
    def get(self, args: dict[str, Any], tournament_id: UUID) -> dict[str, Any]:
        """The tournament: status, settings, players, every round's tables
        (games, players in seat order, results), byes, objective and seal,
        the corrections and penalties with their reasons."""
        return view(
            "tournaments",
            args,
            lambda q: q.tournament(tournament_id),
            game_id=tournament_id,
            what="tournament",
        )


@blp.route("/tournaments/<uuid:tournament_id>/standings")
class StandingsQuery(MethodView):
    @blp.arguments(StandingsArgs(), location="query")
    @blp.response(200, ViewSchema)
    @blp.alt_response(503, schema=ErrorSchema, description="The view has not caught up")
    def get(self, args: dict[str, Any], tournament_id: UUID) -> dict[str, Any]:
        """The standings (T6.2 rows in rank order, and the SHA-256 of their
        JCS): now, or with ``round=r`` as round r's close sealed them."""
        round_ = args["round"]

        def read(queries: Any) -> dict[str, Any] | None:
            standings = queries.standings(tournament_id, round_)
            if standings is None and round_ is not None and queries.tournament(tournament_id):
                raise ApiError(404, f"round {round_} of tournament {tournament_id} is not closed")
            return standings  # type: ignore[no-any-return]

        return view("tournaments", args, read, game_id=tournament_id, what="tournament")


@blp.route("/tournaments/<uuid:tournament_id>/rounds/<int:round_>")
class RoundQuery(MethodView):
    @blp.arguments(AfterSchema(), location="query")
    @blp.response(200, ViewSchema)
    @blp.alt_response(503, schema=ErrorSchema, description="The view has not caught up")
    def get(self, args: dict[str, Any], tournament_id: UUID, round_: int) -> dict[str, Any]:
        """One round: its tables (games, players in seat order, results and
        heads), byes, objective and procedure, and its seal (heads, Merkle
        root, standings digest) once closed."""

        def read(queries: Any) -> dict[str, Any] | None:
            doc = queries.tournament(tournament_id)
            if doc is None:
                return None
            for paired in doc["rounds_paired"]:
                if paired["round"] == round_:
                    return paired  # type: ignore[no-any-return]
            raise ApiError(404, f"round {round_} of tournament {tournament_id} is not paired")

        return view("tournaments", args, read, game_id=tournament_id, what="tournament")
