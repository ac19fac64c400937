"""Commands over HTTP: create, join, start, and every move (POST).

Each handler checks identity, turns its schema's output into one application
call and answers with where the events landed (position) and the game's
version. ``Idempotency-Key`` becomes the command id recorded on the events;
``If-Match`` the version the command expects.
"""

from __future__ import annotations

import re
from typing import Any
from uuid import UUID

from flask import request
from flask.views import MethodView
from flask_smorest import Blueprint

from api.errors import ApiError
from api.identity import new_token, require_organiser, seat_in
from api.runtime import services
from api.schemas import (
    AssembleSchema,
    CastSchema,
    CreatedSchema,
    CreateGameSchema,
    DiscardSchema,
    JoinedSchema,
    JoinSchema,
    OutcomeSchema,
    PassSchema,
    PlaceSchema,
)
from domain.application import Opus, Outcome
from domain.errors import AssemblyError, PlacementError, RuleError
from domain.moves import Assemble, Cast, Discard, Move, Pass, Place
from domain.ruleset import RuleSet

blp = Blueprint(
    "commands", __name__, url_prefix="/games", description="Commands: create, join, start, moves"
)
MAX_KEY = 200


def command_id() -> str:
    key = request.headers.get("Idempotency-Key", "")
    if len(key) > MAX_KEY:
        raise ApiError(
            422,
            "invalid input: Idempotency-Key",
            {"headers": {"Idempotency-Key": [f"at most {MAX_KEY} characters"]}},
        )
    return key


def expected_version() -> int | None:
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    text = raw.strip().removeprefix("W/").strip('"')
    if not re.fullmatch(r"[0-9]{1,18}", text):
        raise ApiError(
            422,
            "invalid input: If-Match",
            {"headers": {"If-Match": ["the game version, a whole number"]}},
        )
    return int(text)


def outcome(game_id: UUID, result: Outcome, **extra: Any) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "position": result.position,
        "version": result.version,
        "replayed": result.replayed,
        **extra,
    }


@blp.route("")
class Games(MethodView):
    @blp.arguments(CreateGameSchema, required=False)
    @blp.response(201, CreatedSchema)
    def post(self, args: dict[str, Any]) -> dict[str, Any]:
        """Create a game under a rule-set variant; returns the organiser's token once."""
        variant = RuleSet(
            draw=args["draw"],
            guild=args["guild"],
            stage_points=tuple(args["stage_points"] or RuleSet().stage_points),
        )
        token, digest = new_token()
        result = services().app.create(variant, organiser_hash=digest, command=command_id())
        assert result.game_id is not None
        if result.replayed:  # the token was shown once, to the first request
            token = ""
        return outcome(result.game_id, result, organiser_token=token)


@blp.route("/<uuid:game_id>/players")
class Players(MethodView):
    @blp.arguments(JoinSchema)
    @blp.response(201, JoinedSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """Take the next seat (R2.1) with an optional seed contribution (R9.1);
        returns the seat's secret token once."""
        token, digest = new_token()
        result = services().app.join(
            game_id, args["name"], args["contribution"], token_hash=digest, command=command_id()
        )
        if result.replayed:
            token = ""
        return outcome(game_id, result, seat=result.seat, token=token or None)


@blp.route("/<uuid:game_id>/start")
class Start(MethodView):
    @blp.response(200, OutcomeSchema)
    def post(self, game_id: UUID) -> dict[str, Any]:
        """Start the game (organiser token): deal and begin seat 0's turn (R2)."""
        app = services().app
        require_organiser(app.state(game_id))
        return outcome(game_id, app.start(game_id, command=command_id()))


def play(game_id: UUID, build: Any) -> dict[str, Any]:
    """Run one move for the seat whose token is sent."""
    app = services().app
    seat = seat_in(app, game_id)
    move: Move = build(seat, app)
    result = app.play(game_id, move, expected_version(), command=command_id())
    return outcome(game_id, result)


def check_sources(
    app: Opus, game_id: UUID, sources: list[tuple[int, str]], error: type[RuleError]
) -> None:
    """Sources named in a command must be where the cards lie."""
    with app.reading(game_id) as (state, _):
        for card, source in sources:
            where = state.locate(card)
            if where is None or str(where) != source:
                whereabouts = where or "no takeable place"
                raise error(f"card {card} is not at {source} (it is at {whereabouts})")


@blp.route("/<uuid:game_id>/discard")
class DiscardMove(MethodView):
    @blp.arguments(DiscardSchema)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R4.1: discard a card from your hand onto its cabinet stack."""
        return play(game_id, lambda seat, _: Discard(seat, args["card"]))


@blp.route("/<uuid:game_id>/assemble")
class AssembleMove(MethodView):
    @blp.arguments(AssembleSchema)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R4.2: assemble a recipe from your hand with the named components."""

        def build(seat: int, app: Opus) -> Move:
            sources = [(c["card"], c["source"]) for c in args["components"] if c["source"]]
            if sources:
                check_sources(app, game_id, sources, AssemblyError)
            return Assemble(seat, args["card"], tuple(c["card"] for c in args["components"]))

        return play(game_id, build)


@blp.route("/<uuid:game_id>/place")
class PlaceMove(MethodView):
    @blp.arguments(PlaceSchema)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R4.5: place a card into the next stage of one of your columns."""

        def build(seat: int, app: Opus) -> Move:
            if args["source"]:
                check_sources(app, game_id, [(args["card"], args["source"])], PlacementError)
            return Place(seat, args["column"], args["card"])

        return play(game_id, build)


@blp.route("/<uuid:game_id>/cast")
class CastMove(MethodView):
    @blp.arguments(CastSchema)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R6: cast a spell (Knowledge: card; Transformation: card and recipe;
        Destruction: recipe and the card to keep; Transmutation: column)."""
        return play(
            game_id,
            lambda seat, _: Cast(seat, args["spell"], args["card"], args["recipe"], args["column"]),
        )


@blp.route("/<uuid:game_id>/pass")
class PassMove(MethodView):
    @blp.arguments(PassSchema, required=False)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R3.3: pass, when no main action is legal or the deck is empty."""
        return play(game_id, lambda seat, _: Pass(seat))
