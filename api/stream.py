"""A live stream of a game's public events (server-sent events).

Each message is an exported line of the log, in the auditor's form
(domain/disclosure.py): hidden cards sealed until the game has ended, so a
watcher can check the chain live and learns no card. Each message's id is
the event's version, so a client that reconnects with ``Last-Event-ID``
misses nothing.

- ``Last-Event-ID`` (or ``?after_version=``) must be a version of the game:
  digits, at most the game's last version; anything else is a 400, never a
  silent replay from the start.
- A stream sent with a seat's token (``Authorization: Bearer``) is that
  seat's: it also carries the seat's turn offer (``event: turn``, no id)
  whenever its turn comes, its hand and every move it may make
  (api/turn_offers.py), and no other stream ever does
  (``domain.disclosure.sees_turn_offer``). Without a token, or with one
  that holds no seat of the game (the organiser's), it is the public
  stream. The seat is found when the stream opens; a seat stream opened
  before the start ends after a ``PlayerLeft`` (the seats after it move
  down), so that its client, reconnecting, is found at its new seat.
- A stream opened with an account key re-checks the key every
  ``RECHECK_SECONDS`` (and before writing anything once that is due): once
  the key is rotated away the stream writes ``event: revoked`` (no id, its
  data a message in words) and ends, writing nothing more, turn offers and
  hands included; reconnecting with the old key is a 401. (A seat's own
  token cannot be revoked; the pages' streams carry no credential.)
- Messages that arrive together (a move's events) are written together,
  in one write to the client.
- A stream ends with its game: after ``GameEnded``; a client that already
  has every event of an ended game (an EventSource reconnecting after the
  end) gets 204 No Content, which tells it to stop reconnecting.
- An open stream holds a connection for as long as its game runs. In
  production the streams are served by their own process,
  ``gunicorn -k gevent 'api.stream:create_stream_app()'`` (only the streams
  and the health checks, a greenlet per stream), fed by Redis pub/sub
  (infra/broker.py): open streams never take a thread of the API's
  gthread workers (docker-compose.yml, bench/streams.py). Whatever a proxy
  sends it, the API (``create_app``) serves at most ``OPUS_API_STREAMS``
  streams at once (api/stream_slots.py): none by default, a 503 naming the
  stream service; past a bound, a 503 with Retry-After. ``opus serve`` and
  the stream service serve them.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack
from functools import lru_cache
from typing import Any
from uuid import UUID

from flask import Flask, Response, request
from flask.views import MethodView
from flask_smorest import Blueprint
from werkzeug.exceptions import ServiceUnavailable

from api import docs, turn_offers
from api.errors import ApiError
from api.identity import VERSION, bearer, caller_hash
from api.json_provider import OrjsonProvider
from api.runtime import Services, services
from api.schemas import ErrorSchema
from api.stream_backlog import Message as Logged
from api.stream_backlog import sse
from domain.accounts.commands import key_account
from domain.application import seat_of
from domain.audit import Record
from domain.disclosure import PUBLIC, Audience, seat, sees_turn_offer
from domain.errors import GameNotFoundError, NotSeatedError
from infra.broker import RESYNC, Message, seat_key
from infra.logthrottle import LogThrottle
from infra.settings import Settings

log = logging.getLogger(__name__)
_failures = LogThrottle(log)
Listener = Callable[[list[Record]], None]
blp = Blueprint("stream", __name__, url_prefix="/games", description="Live public events")
KEEPALIVE_SECONDS = 15.0
MAX_SECONDS = 3600.0
RECHECK_SECONDS = 2.0  # how often a stream opened with an account key re-checks it
REVOKED = (
    'event: revoked\ndata: {"message": "the account key this stream was opened with '
    'has been rotated: open it again with the current key"}\n\n'
)
# A stream refused for want of a place: when to try again (an open stream
# lasts as long as its game, so a place frees up at a game's pace).
FULL_RETRY_AFTER_SECONDS = 30
STREAM_SERVICE = (
    "event streams are served by the stream service, "
    "gunicorn -k gevent 'api.stream:create_stream_app()' at its own -b address "
    "(docker-compose.yml's `streams`, which its proxy sends /games/{id}/events to)"
)


def publisher(svc: Services) -> Any:
    """The application listener that fans each saved event out to the streams:
    a save's events of one aggregate in one ``publish``. A broker that cannot
    be reached (Redis down) fails every command's publishing: logged once per
    kind an interval (infra/logthrottle.py); a stream that misses an event
    reads it from the log at the next one it hears, or when told to resync."""

    def publish(records: list[Record]) -> None:
        lines: dict[str, list[str]] = {}
        for record in records:
            lines.setdefault(record.aggregate_id, []).append(record.line())
        for aggregate_id, messages in lines.items():
            try:
                svc.broker.publish(aggregate_id, *messages)
            except Exception as e:  # saved already: the command's answer stands
                _failures.failed("live events not published", e)

    return publish


def together(svc: Services, publishers: list[Listener]) -> Listener:
    """The publishers of a save (its events, with receipts its checkpoint,
    then the next seat's turn offer) as one listener whose messages reach
    the broker together: one round trip to Redis a save."""

    def publish(records: list[Record]) -> None:
        try:
            with svc.broker.together():
                for publisher in publishers:
                    publisher(records)
        except Exception as e:  # saved already: the command's answer stands
            _failures.failed("live events not published", e)

    return publish


def take_place(svc: Services) -> None:
    """A place among the streams this process serves at once
    (``OPUS_API_STREAMS``), or a 503: naming the stream service when this
    process serves none, with Retry-After when they are all taken."""
    if svc.streams.take():
        return
    capacity = svc.streams.capacity
    if capacity == 0:
        raise ServiceUnavailable(
            f"this process serves no event streams (OPUS_API_STREAMS=0): {STREAM_SERVICE}"
        )
    raise ServiceUnavailable(
        f"this process serves at most {capacity} event streams at once (OPUS_API_STREAMS), "
        f"all open: retry later, or open it on the stream service; {STREAM_SERVICE}",
        retry_after=FULL_RETRY_AFTER_SECONDS,
    )


@lru_cache(maxsize=4096)
def live_sse(message: str, version: int, type_: str) -> str:
    """A live message's text, made once in this process for all the streams
    it reaches (they hold the same message: its hash is computed once too)."""
    return sse(message, version, type_)


def requested_version() -> int:
    """The version the client has (``Last-Event-ID``, else ``?after_version``;
    0 when neither is sent): digits only, or a 400."""
    raw = request.headers.get("Last-Event-ID")
    if raw is None:
        raw = request.args.get("after_version")
    if raw is None:
        return 0
    if not VERSION.fullmatch(raw):
        raise ApiError(
            400,
            "Last-Event-ID must be a version of the game (digits)",
            {"headers": {"Last-Event-ID": ["not a version"]}},
        )
    return int(raw)


@blp.route("/<uuid:game_id>/events")
class Events(MethodView):
    @blp.doc(**docs.STREAM)
    @blp.response(200, content_type="text/event-stream")
    @blp.alt_response(204, description="The game has ended and the client has every event")
    @blp.alt_response(400, schema=ErrorSchema, description="Last-Event-ID is not a version")
    @blp.alt_response(
        503,
        schema=ErrorSchema,
        description="This process serves no streams (the stream service does), or "
        "as many as it may at once (Retry-After)",
    )
    def get(self, game_id: UUID) -> Response:
        """Server-sent events: the game's public events from ``Last-Event-ID``
        (a version; 0 for all) on, then live until the game ends; with a
        seat's token, also that seat's turn offers (``event: turn``)."""
        svc = services()
        resources = ExitStack()
        take_place(svc)  # before anything else: a refusal costs no store read
        resources.callback(svc.streams.release)
        try:
            after = requested_version()
            audience = audience_of(svc, game_id)
            offered_to = audience.seat if audience.seat is not None else -1
            own = (
                [seat_key(str(game_id), offered_to)]
                if sees_turn_offer(audience, offered_to)
                else []
            )
            # Subscribe before reading the log: an event saved in between is
            # heard live, none falls between the two.
            subscription = resources.enter_context(svc.broker.subscribe(str(game_id), *own))
            log = svc.backlogs.log(svc.opus, game_id)
            if log is None:
                raise GameNotFoundError(f"no game {game_id}")
            if after > log.version:
                raise ApiError(
                    400,
                    f"Last-Event-ID {after} is past the game's last version {log.version}",
                    {"headers": {"Last-Event-ID": ["past the end"]}},
                )
            if log.messages[-1].type == "GameEnded" and after >= log.version:
                resources.close()
                return Response(status=204)
        except BaseException:
            resources.close()
            raise
        backlog = log.after(after)
        # The writer holds what it needs (the services, the game, the seat,
        # its credential's re-check): it reads no request global, so it runs
        # without the request's context.
        writer = _Writer(svc, game_id, audience, after, credential_check(svc))
        response = Response(
            writer.stream(backlog, subscription),
            mimetype="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        response.call_on_close(resources.close)
        return response


Check = Callable[[], bool]


def credential_check(svc: Services) -> Check | None:
    """How the stream re-checks the credential it was opened with: an
    account key must still be its account's (None: nothing to re-check,
    no credential or a seat's own token, which cannot be revoked). Read
    while the request is there; the check itself reads no request global."""
    if not request.headers.get("Authorization"):
        return None
    token = bearer()
    if key_account(token) is None:
        return None
    accounts = svc.opus.accounts
    return lambda: accounts.by_key(token) is not None


def audience_of(svc: Services, game_id: UUID) -> Audience:
    """Who the stream is for: the seat the request's token holds in the game
    (read from the game itself, as a command finds it), or the public (no
    token, or one that holds no seat: the organiser's, a spectator's). A
    header that holds no bearer token is a 401, a game that does not exist
    a 404."""
    if not request.headers.get("Authorization"):
        return PUBLIC
    digest = caller_hash()
    with svc.opus.reading(game_id) as (state, _):
        try:
            return seat(seat_of(state, digest))
        except NotSeatedError:
            return PUBLIC


class _Writer:
    """What one stream writes: the log's records from where its client is,
    then each message as it comes; for a seat, its turn offers, each once,
    never one older than what it has written (the game moved on) nor ahead
    of it (the events before it are read from the log first)."""

    def __init__(
        self,
        svc: Services,
        game_id: UUID,
        audience: Audience,
        after: int,
        check: Check | None = None,
    ) -> None:
        self.svc, self.game_id, self.audience = svc, game_id, audience
        self.sent = after  # the last version written
        self.offered = 0  # the version of the last offer written
        self.done = False
        self.check = check  # the credential's re-check (None: nothing to re-check)
        self.next_check = time.monotonic() + RECHECK_SECONDS

    def revoked(self) -> bool:
        """Whether the credential the stream was opened with is revoked, asked
        once every ``RECHECK_SECONDS``. A store that cannot answer now keeps
        the stream open (logged): it is asked again at the next check."""
        now = time.monotonic()
        if self.check is None or now < self.next_check:
            return False
        self.next_check = now + RECHECK_SECONDS
        try:
            return not self.check()
        except Exception as e:
            _failures.failed("a stream's credential not re-checked", e)
            return False

    def wait_seconds(self, last_write: float) -> float:
        """How long to wait for a message: until the keepalive is due, or
        the credential's next re-check, whichever is first."""
        now = time.monotonic()
        wait = last_write + KEEPALIVE_SECONDS - now
        if self.check is not None:
            wait = min(wait, self.next_check - now)
        return max(0.0, wait)

    def stream(self, backlog: Iterable[Logged], subscription: Any) -> Iterator[str]:
        deadline = time.monotonic() + MAX_SECONDS
        last_write = time.monotonic()
        out: list[str] = []
        self.records(backlog, out)
        if not self.done:
            self.offer_now(out)
        while True:
            if self.revoked():  # nothing more is written: not what waits in ``out``
                yield REVOKED
                return
            if out:
                yield "".join(out)
                out = []
                last_write = time.monotonic()
            if self.done or time.monotonic() >= deadline:
                return
            message = subscription.get(timeout=self.wait_seconds(last_write))
            if message is None:
                if time.monotonic() - last_write >= KEEPALIVE_SECONDS:
                    yield ": keepalive\n\n"
                    last_write = time.monotonic()
                continue
            for each in (message, *subscription.drain()):
                self.message(each, out)
                if self.done:
                    break

    def records(self, records: Iterable[Logged], out: list[str]) -> None:
        """Write the log's messages after the last version written."""
        for record in records:
            if record.version <= self.sent:
                continue
            out.append(record.text)
            self.sent = record.version
            if record.type == "GameEnded" or self.moved(record.type):
                self.done = True
                return

    def moved(self, event_type: str) -> bool:
        """A seat stream's seat may have changed (R2.1's seats move down)."""
        return event_type == "PlayerLeft" and self.audience.kind == "seat"

    def from_log(self, out: list[str]) -> None:
        log = self.svc.backlogs.log(self.svc.opus, self.game_id)
        if log is not None:
            self.records(log.after(self.sent), out)

    def offer_now(self, out: list[str]) -> None:
        """The seat's offer as the game stands now, if it is its turn (the
        stream opening, or the broker's messages lost)."""
        if self.audience.kind != "seat" or self.audience.seat is None:
            return
        made = turn_offers.current_offer(self.svc, self.game_id, self.audience.seat)
        if made is not None:
            self.offer(made[0], made[1], self.audience.seat, out)

    def offer(self, version: int, text: str, offered_to: int, out: list[str]) -> None:
        if not sees_turn_offer(self.audience, offered_to):
            return  # never: the stream hears only its own seat's channel
        if version <= self.offered or version < self.sent:
            return  # written already, or the game has moved on since
        if version > self.sent:
            self.from_log(out)  # the events it follows were lost: the log has them
            if self.done or version < self.sent:
                return
        out.append(f"event: turn\ndata: {text}\n\n")
        self.offered = version

    def message(self, message: str, out: list[str]) -> None:
        if message == RESYNC:  # messages may have been lost: the log has them
            self.from_log(out)
            if not self.done:
                self.offer_now(out)
            return
        line = message.fields if isinstance(message, Message) else Message(message).fields
        if "checkpoint" in line:  # the game's signed checkpoint after a command (receipts)
            out.append(f"event: checkpoint\ndata: {message}\n\n")
            return
        if "moves" in line:  # a turn offer, from the seat's own channel
            self.offer(int(line["version"]), message, int(line["seat"]), out)
            return
        version = line["version"]
        if version <= self.sent:
            return
        if version > self.sent + 1:
            # Messages were lost (a full queue): the log has them, and this
            # one too (an event is published once saved).
            self.from_log(out)
            return
        out.append(live_sse(message, version, line["type"]))
        self.sent = version
        if line["type"] == "GameEnded" or self.moved(line["type"]):
            self.done = True


def _check_cooperative() -> None:
    """Under gevent, psycopg must have been imported after the patching (it
    picks its wait function at import): else every query blocks the worker."""
    import sys

    monkey = sys.modules.get("gevent.monkey")
    if monkey is None or not monkey.is_module_patched("select"):
        return
    from psycopg import waiting

    if getattr(waiting, "wait_c", None) is waiting.wait:
        log.warning("psycopg was imported before gevent patched select: queries will block")


def create_stream_app(config: Settings | Mapping[str, str | None] | None = None) -> Flask:
    """The stream service: the live streams and the health checks only, on
    the same settings as the API (never running the projections). Production
    serves it with a worker class made for long-lived connections:
    ``gunicorn -k gevent --worker-connections 2000 'api.stream:create_stream_app()'``
    (gevent makes redis-py and psycopg 3 cooperative: psycopg waits through
    the patched ``select`` once gevent has patched it)."""
    from api import health
    from api.app import OpusApi
    from infra.bootstrap import open_services

    if isinstance(config, Settings):
        settings = config
    else:
        settings = Settings.from_env(overrides=config)
    # never the projections; every stream asked of it (gevent's worker
    # connections bound them)
    settings = dataclasses.replace(settings, run_projections=False, api_streams=None)
    _check_cooperative()
    app = Flask("opus-streams")
    app.json = OrjsonProvider(app)
    app.config.update(
        API_TITLE="Opus streams",
        API_VERSION="1",
        OPENAPI_VERSION="3.0.3",
    )
    app.extensions["opus"] = open_services(settings)
    api = OpusApi(app)
    for blueprint in (blp, health.blp):
        api.register_blueprint(blueprint)
    return app
