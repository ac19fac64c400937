"""Tournament commands over HTTP (POST), and a tournament's export.

As the game commands (api/commands_http.py): each handler reads its
``Caller`` from the request (api/identity.py), turns its schema's output
into one call on the application service (``Opus.tournaments``) and
answers with where the events landed (position) and the tournament's
version. ``Idempotency-Key`` becomes the command id, fingerprinted with the
request; ``If-Match`` names the tournament version a command expects. A
tournament's games are played through the game endpoints, each seat with
its player's registration token. Endpoint names are fixed: they are part
of every command id's fingerprint (api/identity.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from uuid import UUID

from flask import Response, g
from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs
from api.identity import command_caller, new_holder
from api.receipts_http import receipt_of
from api.runtime import services
from api.tournament_schemas import (
    CallSchema,
    ConstraintSchema,
    CorrectionSchema,
    CreateTournamentSchema,
    DropSchema,
    PairedSchema,
    PairSchema,
    PenaltySchema,
    RegisteredSchema,
    RegisterSchema,
    TournamentCreatedSchema,
    TournamentOutcomeSchema,
)
from domain.errors import TournamentNotFoundError
from domain.pipeline import CommandOutcome
from domain.ruleset import RuleSet
from domain.tournaments.commands import TournamentCommands
from infra.eventlog import tournament_lines

blp = Blueprint(
    "tournament_commands",
    __name__,
    url_prefix="/tournaments",
    description="Tournament commands: create, register, constrain, drop, pair, call, correct, "
    "penalise, finish; and the export",
)
IF_MATCH = {
    **docs.IF_MATCH,
    "description": "The tournament version the command expects; 409 if it has moved on.",
}
ORGANISER_COMMAND: dict[str, Any] = {**docs.TOKEN, "parameters": [docs.IDEMPOTENCY_KEY, IF_MATCH]}


def tournaments() -> TournamentCommands:
    return services().opus.tournaments


def outcome(tournament_id: UUID, result: CommandOutcome, **extra: Any) -> dict[str, Any]:
    return {
        "tournament_id": tournament_id,
        "position": result.position,
        "version": result.version,
        "replayed": result.replayed,
        "receipt": receipt_of(tournament_id, result.version),
        **extra,
    }


@blp.route("", endpoint="Tournaments")
class CreateTournament(MethodView):
    @blp.arguments(CreateTournamentSchema())
    @blp.doc(**docs.COMMAND)
    @blp.response(201, TournamentCreatedSchema)
    def post(self, args: dict[str, Any]) -> dict[str, Any]:
        """Create a tournament (T1.1); returns the organiser's token once.
        With an ``Idempotency-Key``, send your own organiser token
        (``Authorization: Bearer``, at least 43 base64url characters): the
        key is yours alone, and a retry finds the tournament it made."""
        rules = RuleSet(
            draw=args["draw"],
            guild=args["guild"],
            stage_points=tuple(args["stage_points"] or RuleSet().stage_points),
        )
        tables = args["tables"]
        token, caller = new_holder(key_needs_it=True)
        g.secret_in_response = True  # never kept for replay: tokens are shown once
        result = tournaments().create(
            args["name"],
            caller=caller,
            rules=rules,
            sizes=(tables["min"], tables["preferred"], tables["max"]),
            weight=args["weight"],
            late_until=args["late_until"],
            time_limit=args["time_limit"],
            rounds=args["rounds"],
            beacon=args["beacon"],
            procedure=args["procedure"],
            cut=args["cut"],
        )
        if result.replayed:  # the token was shown once, to the first request
            token = ""
        return outcome(result.aggregate_id, result, organiser_token=token)


@blp.route("/<uuid:tournament_id>/players", endpoint="Players")
class Register(MethodView):
    @blp.arguments(RegisterSchema())
    @blp.doc(**docs.COMMAND)
    @blp.response(201, RegisteredSchema)
    def post(self, args: dict[str, Any], tournament_id: UUID) -> dict[str, Any]:
        """Register (T2.1, T2.3) under a name unique in the tournament by its
        key, with an optional seed contribution (T1.3) and team (T11.1);
        returns the registration number and the player's token once: the
        token plays every game of the player's. With an ``Idempotency-Key``,
        send your own token: a retry finds the registration it made."""
        token, caller = new_holder(key_needs_it=True)
        g.secret_in_response = True
        result = tournaments().register(
            tournament_id, args["name"], args["contribution"], caller=caller, team=args["team"]
        )
        if result.replayed:
            token = ""
        return outcome(tournament_id, result, player=result.value, token=token or None)


@blp.route("/<uuid:tournament_id>/constraints")
class Constraints(MethodView):
    @blp.arguments(ConstraintSchema())
    @blp.doc(**ORGANISER_COMMAND)
    @blp.response(201, TournamentOutcomeSchema)
    def post(self, args: dict[str, Any], tournament_id: UUID) -> dict[str, Any]:
        """Record that two players must not share a table (organiser token;
        T11.1), with the reason, until round 1 is paired: the pairing counts
        them as it counts teammates, (c) first (T11.2). Never removed."""
        result = tournaments().constrain(
            tournament_id, args["players"], args["reason"], args["by"], caller=command_caller()
        )
        return outcome(tournament_id, result)


@blp.route("/<uuid:tournament_id>/drop")
class Drop(MethodView):
    @blp.arguments(DropSchema())
    @blp.doc(**ORGANISER_COMMAND)
    @blp.response(200, TournamentOutcomeSchema)
    def post(self, args: dict[str, Any], tournament_id: UUID) -> dict[str, Any]:
        """Drop a player (T2.2), by the organiser or the player's own token:
        from the next pairing on; the seat in each of their running games is
        withdrawn at once (its turns pass)."""
        result = tournaments().drop(tournament_id, args["player"], caller=command_caller())
        return outcome(tournament_id, result)


@blp.route("/<uuid:tournament_id>/rounds")
class Rounds(MethodView):
    @blp.arguments(PairSchema(), required=False)
    @blp.doc(**ORGANISER_COMMAND)
    @blp.response(201, PairedSchema)
    def post(self, args: dict[str, Any], tournament_id: UUID) -> dict[str, Any]:
        """Pair the next round (organiser token; T3, T4, T11): its games are
        created and started, their seats taken by the players' tokens.
        Round 1 takes the value of the beacon the tournament named (T1.3);
        a round is paired only once the last one has closed (T9.1). After
        the last Swiss round of a tournament with a cut, the cut's rounds
        (T12: the semifinals, then the final).
        ``round`` is null on a retried command: read the tournament."""
        result = tournaments().pair(
            tournament_id, caller=command_caller(), beacon=args.get("beacon")
        )
        return outcome(tournament_id, result, round=result.value)


@blp.route("/<uuid:tournament_id>/games/<uuid:game_id>/call")
class Call(MethodView):
    @blp.arguments(CallSchema(), required=False)
    @blp.doc(**ORGANISER_COMMAND)
    @blp.response(200, TournamentOutcomeSchema)
    def post(self, args: dict[str, Any], tournament_id: UUID, game_id: UUID) -> dict[str, Any]:
        """Call an unfinished game (organiser token; T8.1) once the round's
        time is up or a seat at it has withdrawn: it ends after the last
        seat's next turn."""
        result = tournaments().call(tournament_id, game_id, args["by"], caller=command_caller())
        return outcome(tournament_id, result)


@blp.route("/<uuid:tournament_id>/corrections")
class Corrections(MethodView):
    @blp.arguments(CorrectionSchema())
    @blp.doc(**ORGANISER_COMMAND)
    @blp.response(201, TournamentOutcomeSchema)
    def post(self, args: dict[str, Any], tournament_id: UUID) -> dict[str, Any]:
        """Correct a game's places (organiser token; T7.1): a competition
        ranking in seat order, with the reason; scores never change."""
        result = tournaments().correct(
            tournament_id,
            args["game"],
            args["places"],
            args["reason"],
            args["by"],
            caller=command_caller(),
        )
        return outcome(tournament_id, result)


@blp.route("/<uuid:tournament_id>/penalties")
class Penalties(MethodView):
    @blp.arguments(PenaltySchema())
    @blp.doc(**ORGANISER_COMMAND)
    @blp.response(201, TournamentOutcomeSchema)
    def post(self, args: dict[str, Any], tournament_id: UUID) -> dict[str, Any]:
        """Give a player a penalty (organiser token; T7.2): match points to
        subtract, a positive multiple of 1/2 written "p/q", with the reason."""
        result = tournaments().penalise(
            tournament_id,
            args["player"],
            args["points"],
            args["reason"],
            args["by"],
            caller=command_caller(),
        )
        return outcome(tournament_id, result)


@blp.route("/<uuid:tournament_id>/finish")
class Finish(MethodView):
    @blp.doc(**ORGANISER_COMMAND)
    @blp.response(200, TournamentOutcomeSchema)
    def post(self, tournament_id: UUID) -> dict[str, Any]:
        """Finish the tournament (organiser token; T9.3) when no round is
        open: the standings' digest is recorded and the secret revealed."""
        result = tournaments().finish(tournament_id, caller=command_caller())
        return outcome(tournament_id, result)


@blp.route("/<uuid:tournament_id>/export")
class Export(MethodView):
    @blp.response(200, content_type="application/x-ndjson")
    def get(self, tournament_id: UUID) -> Response:
        """The tournament's log, then each of its games' logs (round by round,
        table by table), as NDJSON: one event a line with its chain value, in
        the auditor's form: a game's hidden information only once it has
        ended, the tournament's secret only once it has finished."""
        lines = tournament_lines(services().opus, tournament_id)
        first = next(lines, None)
        if first is None or json.loads(first)["type"] != "TournamentCreated":
            raise TournamentNotFoundError(f"no tournament {tournament_id}")

        def ndjson() -> Iterator[str]:
            yield first + "\n"
            for line in lines:
                yield line + "\n"

        return Response(ndjson(), mimetype="application/x-ndjson")
