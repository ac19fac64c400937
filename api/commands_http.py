"""Commands over HTTP: create, join, start, and every move (POST).

Each handler checks identity, turns its schema's output into one application
call and answers with where the events landed (position) and the game's
version. ``Idempotency-Key`` becomes the command id recorded on the events;
``If-Match`` the version the command expects.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any
from uuid import UUID

from flask import g, request
from flask.views import MethodView
from flask_smorest import Blueprint

from api.errors import ApiError
from api.identity import caller, new_token
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
from domain.application import Outcome
from domain.moves import UNSEATED, Assemble, Cast, Discard, Move, Pass, Place
from domain.ruleset import RuleSet

blp = Blueprint(
    "commands", __name__, url_prefix="/games", description="Commands: create, join, start, moves"
)
MAX_KEY = 200


def command_id() -> str:
    """The command id recorded on the events: the Idempotency-Key within the
    caller's scope (its token), hashed, so that one caller's key never
    answers for another's command and the key itself is never published."""
    key = request.headers.get("Idempotency-Key", "")
    if len(key) > MAX_KEY:
        raise ApiError(
            422,
            "invalid input: Idempotency-Key",
            {"headers": {"Idempotency-Key": [f"at most {MAX_KEY} characters"]}},
        )
    if not key:
        return ""
    scope = request.headers.get("Authorization", "")
    return hashlib.sha256(f"{scope}\n{key}".encode()).hexdigest()[:32]


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
        g.secret_in_response = True  # never kept for replay: tokens are shown once
        result = services().opus.create(variant, organiser_hash=digest, command=command_id())
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
        g.secret_in_response = True
        result = services().opus.join(
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
        result = services().opus.start(game_id, command=command_id(), organiser_hash=caller())
        return outcome(game_id, result)


def play(game_id: UUID, move: Move) -> dict[str, Any]:
    """Run one move for the seat whose token is sent (the service finds it)."""
    result = services().opus.play(
        game_id, move, expected_version(), command=command_id(), token_hash=caller()
    )
    return outcome(game_id, result)


@blp.route("/<uuid:game_id>/discard")
class DiscardMove(MethodView):
    @blp.arguments(DiscardSchema)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R4.1: discard a card from your hand onto its cabinet stack."""
        return play(game_id, Discard(UNSEATED, args["card"]))


@blp.route("/<uuid:game_id>/assemble")
class AssembleMove(MethodView):
    @blp.arguments(AssembleSchema)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R4.2: assemble a recipe from your hand with the named components."""

        components = args["components"]
        sources = tuple(c["source"] for c in components)
        move = Assemble(
            UNSEATED,
            args["card"],
            tuple(c["card"] for c in components),
            sources if any(sources) else (),
        )
        return play(game_id, move)


@blp.route("/<uuid:game_id>/place")
class PlaceMove(MethodView):
    @blp.arguments(PlaceSchema)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R4.5: place a card into the next stage of one of your columns."""

        return play(game_id, Place(UNSEATED, args["column"], args["card"], args["source"]))


@blp.route("/<uuid:game_id>/cast")
class CastMove(MethodView):
    @blp.arguments(CastSchema)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R6: cast a spell (Knowledge: card; Transformation: card and recipe;
        Destruction: recipe and the card to keep; Transmutation: column)."""
        return play(
            game_id, Cast(UNSEATED, args["spell"], args["card"], args["recipe"], args["column"])
        )


@blp.route("/<uuid:game_id>/pass")
class PassMove(MethodView):
    @blp.arguments(PassSchema, required=False)
    @blp.response(201, OutcomeSchema)
    def post(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """R3.3: pass, when no main action is legal or the deck is empty."""
        return play(game_id, Pass(UNSEATED))
