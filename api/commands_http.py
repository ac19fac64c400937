"""Commands over HTTP: create, join, start, and every move (POST).

Each handler reads its ``Caller`` from the request (api/identity.py: the
token's hash, ``Idempotency-Key`` as the command id recorded on the events,
``If-Match`` as the version the command expects), turns its schema's output
into one application call and answers with where the events landed
(position) and the game's version.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import g
from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs
from api.identity import command_caller, new_holder
from api.receipts_http import receipt_of
from api.runtime import services
from api.schemas import (
    AddTimeSchema,
    AssembleSchema,
    CastSchema,
    ClocksChangeSchema,
    CreatedSchema,
    CreateGameSchema,
    DiscardSchema,
    JoinedSchema,
    JoinSchema,
    OutcomeSchema,
    PassSchema,
    PlaceSchema,
    WithdrawSchema,
)
from domain.application import LegalMoves
from domain.clock import PRESETS, Clock
from domain.errors import ClockError
from domain.moves import UNSEATED, Assemble, Cast, Discard, Move, Pass, Place
from domain.pipeline import CommandOutcome
from domain.ruleset import RuleSet

blp = Blueprint(
    "commands", __name__, url_prefix="/games", description="Commands: create, join, start, moves"
)


def legal_moves_answer(game_id: UUID, legal: LegalMoves) -> dict[str, Any]:
    """A seat's legal moves as answered (GET legal-moves) and offered on its
    stream (api/turn_offers.py): each move as the request that makes it."""
    return {
        "seat": legal.seat,
        "version": legal.version,
        "moves": [move_request(game_id, m) for m in legal.moves],
        "reason": legal.reason,
    }


def move_request(game_id: UUID, move: Move) -> dict[str, Any]:
    """The request that makes ``move``: the path and body one of the POST
    handlers below takes (their inverse)."""
    body: dict[str, Any]
    if isinstance(move, Discard):
        body = {"card": move.card}
    elif isinstance(move, Assemble):
        sources = move.sources or (None,) * len(move.components)
        body = {
            "card": move.card,
            "components": [
                {"card": c} if s is None else {"card": c, "source": s}
                for c, s in zip(move.components, sources, strict=True)
            ],
        }
    elif isinstance(move, Place):
        body = {"column": move.column, "card": move.card}
        if move.source is not None:
            body["source"] = move.source
    elif isinstance(move, Cast):
        body = {"spell": move.spell}
        for name in ("card", "recipe", "column"):
            if getattr(move, name) is not None:
                body[name] = getattr(move, name)
    else:
        body = {}
    return {"method": "POST", "path": f"/games/{game_id}/{move.name}", "body": body}


def outcome(game_id: UUID, result: CommandOutcome, **extra: Any) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "position": result.position,
        "version": result.version,
        "replayed": result.replayed,
        "receipt": receipt_of(game_id, result.version),
        **extra,
    }


@blp.route("")
class Games(MethodView):
    @blp.arguments(CreateGameSchema(), required=False)
    @blp.doc(**docs.COMMAND)
    @blp.response(201, CreatedSchema)
    def post(self, args: dict[str, Any]) -> dict[str, Any]:
        """Create a game under a rule-set variant; returns the organiser's token
        once. With an ``Idempotency-Key``, send your own organiser token
        (``Authorization: Bearer``, at least 43 base64url characters): the
        key is yours alone, and a retry finds the game it made."""
        variant = RuleSet.timed(
            clock_of(args),
            draw=args["draw"],
            guild=args["guild"],
            stage_points=tuple(args["stage_points"] or RuleSet().stage_points),
        )
        token, caller = new_holder(key_needs_it=True)
        g.secret_in_response = True  # never kept for replay: tokens are shown once
        opus = services().opus
        result = opus.create(variant, caller=caller, admission=args["admission"])
        if result.replayed:  # the token was shown once, to the first request
            token = ""
        # the invitation code, to its organiser (a retry and an account key too)
        organiser = opus.organises(result.aggregate_id, caller.token_hash or "")
        invitation = opus.invitation_code(result.aggregate_id) if organiser else None
        return outcome(result.aggregate_id, result, organiser_token=token, invitation=invitation)


def clock_of(args: dict[str, Any]) -> Clock | None:
    """R11.1: the clock a create asks for, by its values or a preset's name
    (not both); None for an untimed game."""
    values = args.get("clock")
    if values is not None and args["clock_preset"] is not None:
        raise ClockError("name a clock by its values or by a preset, not both")
    if args["clock_preset"] is not None:
        return PRESETS[args["clock_preset"]]
    return Clock(**values) if values is not None else None


@blp.route("/<uuid:game_id>/players", endpoint="Players")
class Join(MethodView):
    @blp.arguments(JoinSchema())
    @blp.doc(**docs.COMMAND)
    @blp.response(201, JoinedSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """Take the next seat (R2.1) with an optional seed contribution (R9.1);
        returns the seat's secret token once. Send a token of your own
        (``Authorization: Bearer``, at least 43 base64url characters) and the
        seat holds it: a join retried after a lost response finds its seat,
        and you hold its token already."""
        token, caller = new_holder()
        g.secret_in_response = True
        result = services().opus.join(
            game_id,
            args["name"],
            args["contribution"],
            caller=caller,
            invitation=args["invitation"],
        )
        if result.replayed:
            token = ""
        return outcome(game_id, result, seat=result.value, token=token or None)


@blp.route("/<uuid:game_id>/start")
class Start(MethodView):
    @blp.doc(**docs.TOKEN_COMMAND)
    @blp.response(200, OutcomeSchema)
    def post(self, game_id: UUID) -> dict[str, Any]:
        """Start the game (organiser token): deal and begin seat 0's turn (R2)."""
        result = services().opus.start(game_id, caller=command_caller())
        return outcome(game_id, result)


@blp.route("/<uuid:game_id>/remove-seat")
class RemoveSeat(MethodView):
    @blp.arguments(WithdrawSchema())
    @blp.doc(**docs.TOKEN_COMMAND)
    @blp.response(200, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """Before the start (organiser token): remove a seat whose player never
        came or left; the seats after it move down."""
        result = services().opus.remove_seat(game_id, args["seat"], caller=command_caller())
        return outcome(game_id, result)


@blp.route("/<uuid:game_id>/withdraw", endpoint="Withdraw")
class WithdrawSeat(MethodView):
    @blp.arguments(WithdrawSchema())
    @blp.doc(**docs.TOKEN_COMMAND)
    @blp.response(200, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R3.5 (organiser token): withdraw the seat whose turn it is, once it
        has not moved for the game's inactivity limit (``OPUS_INACTIVITY_SECONDS``);
        its turns pass from then on."""
        svc = services()
        result = svc.opus.withdraw(
            game_id, args["seat"], caller=command_caller(), idle_seconds=svc.inactivity_seconds
        )
        return outcome(game_id, result)


@blp.route("/<uuid:game_id>/clocks/add", endpoint="AddTime")
class AddTime(MethodView):
    @blp.arguments(AddTimeSchema())
    @blp.doc(**docs.TOKEN_COMMAND)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R11.6 (organiser token): give a seat more time, with the reason."""
        result = services().opus.add_time(
            game_id,
            args["seat"],
            args["seconds"],
            args["reason"],
            args["by"],
            caller=command_caller(),
        )
        return outcome(game_id, result)


@blp.route("/<uuid:game_id>/clocks/pause", endpoint="PauseClocks")
class PauseClocks(MethodView):
    @blp.arguments(ClocksChangeSchema())
    @blp.doc(**docs.TOKEN_COMMAND)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R11.6 (organiser token): pause the game's clocks, with the reason."""
        opus = services().opus
        result = opus.pause_clocks(game_id, args["reason"], args["by"], caller=command_caller())
        return outcome(game_id, result)


@blp.route("/<uuid:game_id>/clocks/resume", endpoint="ResumeClocks")
class ResumeClocks(MethodView):
    @blp.arguments(ClocksChangeSchema())
    @blp.doc(**docs.TOKEN_COMMAND)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R11.6 (organiser token): run the game's clocks again, with the reason."""
        opus = services().opus
        result = opus.resume_clocks(game_id, args["reason"], args["by"], caller=command_caller())
        return outcome(game_id, result)


def play(game_id: UUID, move: Move) -> dict[str, Any]:
    """Run one move for the seat whose token is sent (the service finds it)."""
    result = services().opus.play(game_id, move, caller=command_caller())
    return outcome(game_id, result)


MOVE_SCHEMAS: dict[str, type[Any]] = {
    "discard": DiscardSchema,
    "assemble": AssembleSchema,
    "place": PlaceSchema,
    "cast": CastSchema,
    "pass": PassSchema,
}


def move_of(kind: str, args: dict[str, Any]) -> Move:
    """The move a request makes: its kind (the path's last part) and its body
    as ``MOVE_SCHEMAS[kind]`` loads it (``move_request``'s inverse). The web
    client's moves come here too (api/web/pages.py)."""
    if kind == "discard":
        return Discard(UNSEATED, args["card"])
    if kind == "assemble":
        components = args["components"]
        sources = tuple(c["source"] for c in components)
        return Assemble(
            UNSEATED,
            args["card"],
            tuple(c["card"] for c in components),
            sources if any(sources) else (),
        )
    if kind == "place":
        return Place(UNSEATED, args["column"], args["card"], args["source"])
    if kind == "cast":
        return Cast(UNSEATED, args["spell"], args["card"], args["recipe"], args["column"])
    if kind == "pass":
        return Pass(UNSEATED)
    raise ValueError(f"no move {kind!r}")


@blp.route("/<uuid:game_id>/discard")
class DiscardMove(MethodView):
    @blp.arguments(DiscardSchema())
    @blp.doc(**docs.MOVE)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R4.1: discard a card from your hand onto its cabinet stack."""
        return play(game_id, move_of("discard", args))


@blp.route("/<uuid:game_id>/assemble")
class AssembleMove(MethodView):
    @blp.arguments(AssembleSchema())
    @blp.doc(**docs.MOVE)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R4.2: assemble a recipe from your hand with the named components."""
        return play(game_id, move_of("assemble", args))


@blp.route("/<uuid:game_id>/place")
class PlaceMove(MethodView):
    @blp.arguments(PlaceSchema())
    @blp.doc(**docs.MOVE)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R4.5: place a card into the next stage of one of your columns."""
        return play(game_id, move_of("place", args))


@blp.route("/<uuid:game_id>/cast")
class CastMove(MethodView):
    @blp.arguments(CastSchema())
    @blp.doc(**docs.MOVE)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R6: cast a spell (Knowledge: card; Transformation: card and recipe;
        Destruction: recipe and the card to keep; Transmutation: column)."""
        return play(game_id, move_of("cast", args))


@blp.route("/<uuid:game_id>/pass")
class PassMove(MethodView):
    @blp.arguments(PassSchema(), required=False)
    @blp.doc(**docs.MOVE)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R3.3: pass, when no main action is legal or the deck is empty."""
        return play(game_id, move_of("pass", args))
