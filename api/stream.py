"""A live stream of a game's public events (server-sent events).

Each message is an exported line of the log, in the auditor's form
(domain/disclosure.py): hidden cards sealed until the game has ended, so a
watcher can check the chain live and learns no card. Each message's id is
the event's version, so a client that reconnects with ``Last-Event-ID``
misses nothing.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any
from uuid import UUID

from flask import Response, request, stream_with_context
from flask.views import MethodView
from flask_smorest import Blueprint

from api.runtime import Services, services
from domain.audit import Record
from domain.errors import GameNotFoundError
from infra.eventlog import game_export, game_positions

blp = Blueprint("stream", __name__, url_prefix="/games", description="Live public events")
KEEPALIVE_SECONDS = 15.0
MAX_SECONDS = 3600.0


def publisher(svc: Services) -> Any:
    """The application listener that fans each saved event out to the streams."""

    def publish(records: list[Record]) -> None:
        for record in records:
            svc.broker.publish(record.aggregate_id, record.line())

    return publish


def sse(record_json: str, version: int, type_: str) -> str:
    return f"id: {version}\nevent: {type_}\ndata: {record_json}\n\n"


@blp.route("/<uuid:game_id>/events")
class Events(MethodView):
    @blp.response(200, content_type="text/event-stream")
    def get(self, game_id: UUID) -> Response:
        """Server-sent events: the game's public events from ``Last-Event-ID``
        (a version; 0 for all) on, then live until the game ends."""
        svc = services()
        if not game_positions(svc.opus, game_id):
            raise GameNotFoundError(f"no game {game_id}")
        raw = request.headers.get("Last-Event-ID") or request.args.get("after_version") or "0"
        after = int(raw) if re.fullmatch(r"[0-9]{1,18}", raw) else 0
        return Response(
            stream_with_context(_stream(svc, game_id, after)),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )


def _stream(svc: Services, game_id: UUID, after: int) -> Iterator[str]:
    key = str(game_id)
    deadline = time.monotonic() + MAX_SECONDS
    with svc.broker.subscribe(key) as subscription:
        sent = after
        for record in game_export(svc.opus, game_id, after):
            yield sse(record.line(), record.version, record.type)
            sent = record.version
            if record.type == "GameEnded":
                return
        while time.monotonic() < deadline:
            message = subscription.get(timeout=KEEPALIVE_SECONDS)
            if message is None:
                yield ": keepalive\n\n"
                continue
            line = json.loads(message)
            if line["version"] <= sent:
                continue
            if line["version"] > sent + 1:
                # Messages were lost (a full queue, a reconnect): read the gap
                # from the log, so the stream never skips an event.
                for record in game_export(svc.opus, game_id, sent):
                    if record.version < line["version"]:
                        yield sse(record.line(), record.version, record.type)
            sent = line["version"]
            yield sse(message, line["version"], line["type"])
            if line["type"] == "GameEnded":
                return
