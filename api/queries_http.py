"""Queries over HTTP (GET).

Views come from the projections (``services().views``), never from replaying
the game; ``?after=POSITION`` waits, bounded, until the view has caught up,
and every answer says which position it reflects. Two answers are not views:
the legal moves of a seat are a decision, asked of the application service,
and the export of one game's log is read from the event log.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID

from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint

from api import docs
from api.commands_http import legal_moves_answer
from api.errors import ApiError
from api.identity import caller_hash
from api.runtime import services
from api.schemas import (
    AfterSchema,
    ErrorSchema,
    LegalMovesSchema,
    LimitSchema,
    SinceSchema,
    ViewSchema,
)
from domain import clock
from domain.clock import Clocks, micros
from domain.errors import GameNotFoundError, NotSeatedError
from infra.eventlog import game_export, game_positions
from infra.shards import home_shard
from projections.queries import Queries

blp = Blueprint("queries", __name__, description="Queries, from the projections")


def view(
    projection: str,
    args: dict[str, Any],
    read: Any,
    *also: str,
    game_id: UUID | None = None,
    what: str = "game",
) -> dict[str, Any]:
    """Read a view once its projection (and those in ``also``) has reached
    ``after`` (one bounded wait); the answer names the position it reflects.
    A game (or ``what`` else the id names) the view does not hold is a 404,
    or a 503 saying where to wait for when the log has it and the view is
    behind."""
    svc = services()
    queries = svc.views
    after = args.get("after")
    if after is not None:
        head = queries.capped(after)  # the log's last position (with shards, its shard's)
        if head < after:
            # No view can ever show a position the log has not reached (with
            # shards: its shard's log).
            raise ApiError(
                404,
                f"after: position {after} is not in the log (it ends at {head})",
                {"query": {"after": [f"at most {head}, the last position written"]}},
            )
        try:
            queries.wait_for([*also, projection], after, svc.query_wait_seconds)
        except TimeoutError as e:
            raise ApiError(503, f"the {projection} view has not caught up: {e}") from None
    # with shards: the view's position in the aggregate's shard, or in each (README)
    shard = None if game_id is None else home_shard(svc.opus, game_id)
    reflected = queries.reflected(projection, shard)
    data = read(queries)
    if data is None:
        if game_id is not None and (positions := game_positions(svc.opus, game_id)):
            last = max(positions.values())
            raise ApiError(
                503,
                f"{what} {game_id} is not yet projected into the {projection} view: "
                f"retry with after={last}",
            )
        raise ApiError(404, f"no {what} {game_id}" if game_id else "nothing here yet")
    return {**reflected, "data": data}


@blp.route("/games/<uuid:game_id>")
class TableQuery(MethodView):
    @blp.arguments(AfterSchema(), location="query")
    @blp.response(200, ViewSchema)
    @blp.alt_response(503, schema=ErrorSchema, description="The view has not caught up")
    def get(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """The public table: cabinet tops, tables, Sequences, hand sizes, deck
        size, whose turn, status, winners."""
        return view("table", args, lambda q: q.table_view(game_id), game_id=game_id)


@blp.route("/games/<uuid:game_id>/hand")
class HandQuery(MethodView):
    @blp.arguments(AfterSchema(), location="query")
    @blp.doc(**docs.TOKEN)
    @blp.response(200, ViewSchema)
    @blp.alt_response(503, schema=ErrorSchema, description="The view has not caught up")
    def get(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """Your own hand (token): no one else's is ever served."""
        digest = caller_hash()

        def read(queries: Queries) -> list[int] | None:
            seat = queries.seat_of(game_id, digest)
            if seat is not None:
                return queries.hand(game_id, seat) or []
            if queries.seats(game_id) is None:
                return None  # no such game in the view: a 404, or a 503 while it is behind
            shard = home_shard(services().opus, game_id)
            reached = queries.reflected("seats", shard)["position"] or 0
            if any(queries.lags("seats", {shard or 0: queries.head_of(shard or 0)}).values()):
                # the seat may have been taken since (on the game's shard)
                raise ApiError(
                    503,
                    f"the seats view is at position {reached}, behind the log: "
                    "retry with after=<the position your join returned>",
                )
            raise NotSeatedError()

        return view("hands", args, read, "seats", game_id=game_id)


@blp.route("/games/<uuid:game_id>/scoreboard")
class ScoreboardQuery(MethodView):
    @blp.arguments(AfterSchema(), location="query")
    @blp.response(200, ViewSchema)
    @blp.alt_response(503, schema=ErrorSchema, description="The view has not caught up")
    def get(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """Each player's points and the PointsAwarded behind them (rule, cause)."""
        return view("scoreboard", args, lambda q: q.scoreboard(game_id), game_id=game_id)


@blp.route("/games/<uuid:game_id>/clocks")
class ClocksQuery(MethodView):
    @blp.arguments(AfterSchema(), location="query")
    @blp.response(200, ViewSchema)
    @blp.alt_response(503, schema=ErrorSchema, description="The view has not caught up")
    def get(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """A timed game's clocks (RULES §11), as the server's clock reads
        them now: each seat's time left (microseconds), the seats withdrawn
        (whose clocks run no more), the turn's deadline
        (microseconds since the epoch, UTC; null when no clock runs) and the
        server's time, so that a page counts down from the server's deadline,
        never from its own clock. An untimed game: ``clock`` null, nothing else."""

        def read(queries: Queries) -> dict[str, Any] | None:
            doc = queries.clocks(game_id)
            if doc is None or doc["fold"] is None:
                if untimed(game_id):  # no clock, and never one: said, not refused
                    return {"clock": None, "server_time": micros(clock.now())}
                return None
            clocks = Clocks.from_doc(doc["fold"])
            now = micros(clock.now())
            return {
                "clock": doc["clock"],
                "server_time": now,
                "turn": clocks.turn,
                "deadline": None if doc["expired"] is not None else clocks.deadline(),
                "left": clocks.left(now),
                "paused": clocks.paused_since is not None,
                "expired": doc["expired"],
                "withdrawn": sorted(clocks.withdrawn),  # their clocks run no more
            }

        return view("clocks", args, read, game_id=game_id)


def untimed(game_id: UUID) -> bool:
    """Whether the game exists and has no clock (its created rules say)."""
    try:
        return services().opus.game(game_id).state.variant.clock is None
    except GameNotFoundError:
        return False


@blp.route("/games/<uuid:game_id>/log")
class MoveLogQuery(MethodView):
    @blp.arguments(SinceSchema(), location="query")
    @blp.response(200, ViewSchema)
    @blp.alt_response(503, schema=ErrorSchema, description="The view has not caught up")
    def get(self, args: dict[str, Any], game_id: UUID) -> dict[str, Any]:
        """The public move log from version ``since`` on; hidden cards redacted
        until the game has ended."""

        def read(queries: Queries) -> list[dict[str, Any]] | None:
            # A game's log is never empty (it starts with GameCreated): read
            # from the entry at ``since`` on, which says the game is there
            # when nothing follows it (a client up to date); only a ``since``
            # past the end reads the log from its start to tell.
            since = args["since"]
            start = max(since - 1, 0)
            log = queries.move_log(game_id, since=start)
            if log:
                return log[since - start :]
            if since and queries.move_log(game_id):
                return []
            return None

        return view("move_log", args, read, game_id=game_id)


@blp.route("/leaderboard")
class LeaderboardQuery(MethodView):
    @blp.arguments(LimitSchema(), location="query")
    @blp.response(200, ViewSchema)
    @blp.alt_response(503, schema=ErrorSchema, description="The view has not caught up")
    def get(self, args: dict[str, Any]) -> dict[str, Any]:
        """Players across all games: wins, points, games played."""
        return view("leaderboard", args, lambda q: q.leaderboard(args["limit"]))


@blp.route("/ratings")
class RatingsQuery(MethodView):
    @blp.arguments(LimitSchema(), location="query")
    @blp.response(200, ViewSchema)
    @blp.alt_response(503, schema=ErrorSchema, description="The view has not caught up")
    def get(self, args: dict[str, Any]) -> dict[str, Any]:
        """Accounts by rating: ``rating`` is the conservative estimate
        round(40 × (μ − 3σ)), with ``mu`` and ``sigma``; ``seats``, each
        seat's learned effect by table size (``seat`` counted from 0), and
        ``model``, the library, its version and the parameters the ratings
        were computed with (Weng–Lin Plackett–Luce; README, Ratings)."""
        return view("ratings", args, lambda q: q.ratings(args["limit"]))


@blp.route("/ratings/<uuid:account_id>")
class AccountRatingQuery(MethodView):
    @blp.arguments(AfterSchema(), location="query")
    @blp.response(200, ViewSchema)
    @blp.alt_response(503, schema=ErrorSchema, description="The view has not caught up")
    def get(self, args: dict[str, Any], account_id: UUID) -> dict[str, Any]:
        """One account's rating, rank, and history: a point per rated game
        (the game, its seat and place, μ and σ after it); an account with
        no rated game is at the prior, unranked."""

        def read(queries: Queries) -> dict[str, Any]:
            found = queries.rating(account_id)
            if found is None:
                raise ApiError(404, f"no account {account_id}")
            return found

        return view("ratings", args, read)


@blp.route("/lobby")
class LobbyQuery(MethodView):
    @blp.arguments(LimitSchema(), location="query")
    @blp.response(200, ViewSchema)
    @blp.alt_response(503, schema=ErrorSchema, description="The view has not caught up")
    def get(self, args: dict[str, Any]) -> dict[str, Any]:
        """The games open to join and those running (the latest ``limit`` of
        each), the last games to end, and the tournaments: what the web
        client's lobby shows."""
        return view("lobby", args, lambda q: q.lobby(args["limit"]))


@blp.route("/games/<uuid:game_id>/legal-moves")
class LegalMovesQuery(MethodView):
    @blp.doc(**docs.TOKEN)
    @blp.response(200, LegalMovesSchema)
    def get(self, game_id: UUID) -> dict[str, Any]:
        """Every move the engine would accept from your seat now (token), each
        as the request that makes it; when there is none, ``reason`` says why."""
        return legal_moves_answer(game_id, services().opus.legal_moves_of(game_id, caller_hash()))


@blp.route("/games/<uuid:game_id>/export")
class ExportQuery(MethodView):
    @blp.response(200, content_type="application/x-ndjson")
    def get(self, game_id: UUID) -> Response:
        """The game's log as NDJSON (one event a line, with its chain value);
        hidden information only once the game has ended."""
        records = game_export(services().opus, game_id)
        if not records:
            raise GameNotFoundError(f"no game {game_id}")

        def lines() -> Iterator[str]:
            for record in records:
                yield record.line() + "\n"

        return Response(lines(), mimetype="application/x-ndjson")
