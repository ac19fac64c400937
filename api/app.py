"""The Flask application factory: nothing starts at import time.

``create_app(config)`` opens the application service, the live-event broker,
the idempotent-response cache and (when asked) the projections through the
composition root (infra/bootstrap.py), then registers the blueprints and the
one error shape. Production runs it under gunicorn:
``gunicorn 'api.app:create_app()'``.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping

import orjson
from flask import Flask, Response, g, request
from flask_smorest import Api

from api import (
    analytics_http,
    catalog_http,
    commands_http,
    docs,
    health,
    identity,
    queries_http,
    receipts_http,
    stream,
    tournament_queries_http,
    tournaments_http,
    turn_offers,
)
from api.bodies import register_body_checks
from api.client_address import ClientAddress, TrustedProxies
from api.errors import ApiError, register_error_handlers
from api.json_provider import OPTIONS, OrjsonProvider
from api.ratelimit import (
    InProcessLimiter,
    Limiter,
    RateLimit,
    RedisLimiter,
    register_rate_limit,
)
from api.runtime import Services
from api.schemas import ErrorSchema
from api.web import account_pages, bot_pages, desk, pages, people_pages, rules_pages
from infra import bot_driver
from infra.bootstrap import open_services
from infra.broker import RedisBroker
from infra.clock_scheduler import ClockScheduler
from infra.logthrottle import LogThrottle
from infra.settings import Settings

log = logging.getLogger(__name__)
_failures = LogThrottle(log)  # the response cache's, once per kind an interval


class OpusApi(Api):
    """flask-smorest's Api with the service's one error path (api/errors.py)
    in place of the library's own HTTPException handler."""

    ERROR_SCHEMA = ErrorSchema

    def _register_error_handlers(self) -> None:
        register_error_handlers(self._app)


API_DESCRIPTION = (
    "Games of Potion-Making with the Guild of Alchemists, and Swiss tournaments of it, "
    "as an event-sourced service: the rules are at /rules (ids R…) and /rules/tournament "
    "(ids T…).\n\n"
    "**Seats are indexes, counted from 0**: a `seat` field, an event's or a view's "
    "`player`, `turn`, `winners`, `next_player`, a location's `table:<seat>`. "
    "The pages and the command line's text show a seat to people as index + 1 "
    '("seat 1" is index 0); the JSON keeps the index, as every export and client reads it. '
    "A tournament's registration numbers (`player` in tournament requests and standings) "
    "count from 1 (T2.1)."
)


def create_app(config: Settings | Mapping[str, str | None] | None = None) -> Flask:
    """The app on ``config``: a ``Settings`` value, or variables (as in the
    environment, README) set over the environment's, None unsetting one."""
    if isinstance(config, Settings):
        settings = config
    else:
        settings = Settings.from_env(overrides=config)
    app = Flask("opus")
    app.json = OrjsonProvider(app)
    app.config.update(
        API_TITLE="Opus",
        API_VERSION="1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        OPENAPI_SWAGGER_UI_URL=docs.ASSETS_URL,  # served from the package, never a CDN
        API_SPEC_OPTIONS={"info": {"description": API_DESCRIPTION}},
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        OPUS_ANALYTICS_DIR=settings.analytics_dir,  # GET /analytics/{question}'s snapshot
    )
    services = build_services(settings)
    app.extensions["opus"] = services
    api = OpusApi(app)
    api.spec.components.security_scheme("token", {"type": "http", "scheme": "bearer"})
    blueprints = (
        commands_http.blp,
        queries_http.blp,
        stream.blp,
        health.blp,
        catalog_http.blp,
        tournaments_http.blp,
        tournament_queries_http.blp,
        analytics_http.blp,
        receipts_http.blp,
    )
    for blueprint in blueprints:
        api.register_blueprint(blueprint)
    app.register_blueprint(docs.assets)
    # the web client: plain Flask, not in the OpenAPI spec; these modules' routes join its blueprint
    assert account_pages and bot_pages and desk and people_pages and rules_pages
    app.register_blueprint(pages.blp)
    # the client's address, for the rate limits: as the trusted proxies tell it
    proxies = TrustedProxies.parse(settings.trusted_proxies, settings.trusted_proxy_networks)
    app.wsgi_app = ClientAddress(app.wsgi_app, proxies)  # type: ignore[method-assign]
    limit = RateLimit.parse(settings.rate_limit)
    if limit is not None:
        register_rate_limit(app, rate_limiter(services, settings, limit))
    register_body_checks(app)
    register_idempotency(app, services)
    receipts_http.register(app)
    return app


def replay_body(response: Response) -> str:
    """The body a retry of the command is answered with from the cache: the
    first answer, saying ``"replayed": true`` where it says whether it was
    (a command's outcome), as the service's own answer to a retry does."""
    body = response.get_data(as_text=True)
    if response.is_json:
        try:
            document = orjson.loads(body)
        except orjson.JSONDecodeError:
            return body
        if isinstance(document, dict) and document.get("replayed") is False:
            document["replayed"] = True
            return orjson.dumps(document, option=OPTIONS).decode() + "\n"
    return body


def rate_limiter(services: Services, settings: Settings, limit: RateLimit) -> Limiter:
    """Shared through Redis when the service has it, else this process's own."""
    if isinstance(services.broker, RedisBroker):
        return RedisLimiter(services.broker.client, settings.redis_prefix, limit)
    return InProcessLimiter(limit)


def build_services(settings: Settings) -> Services:
    """The HTTP service's parts from the composition root (infra/bootstrap.py),
    each event the application records published to the game's live streams,
    then the turn offer of the seat whose turn it is (api/turn_offers.py);
    with ``OPUS_BOTS``, the bots at lobby tables moving (infra/bot_driver.py);
    with the projections in this process (the embedded defaults), the clock
    scheduler (infra/clock_scheduler.py; else its own role, ``opus clocks``)."""
    services = open_services(settings)
    listeners = services.opus.listeners
    first = len(listeners)
    # the live streams' publisher; with receipts, a save's checkpoint follows its events
    if not receipts_http.attach(services, settings):
        listeners.append(stream.publisher(services))
    # then the turn offer of the seat whose turn it now is, on that seat's channel
    listeners.append(turn_offers.publisher(services))
    listeners[first:] = [stream.together(services, listeners[first:])]
    if settings.bots:
        bots = bot_driver.start(services.opus, services.views, settings.bot_delay_seconds)
        services.closers.append(bots.stop)
    if settings.run_projections and settings.clocks:  # embedded: its clocks fired here (R11.4)
        scheduler = ClockScheduler(services.opus, services.views).start()
        services.closers.append(scheduler.stop)
    return services


def register_idempotency(app: Flask, services: Services) -> None:
    """A POST with an Idempotency-Key gets the same response every time the
    cache can answer; the cache is best-effort (a failure is a miss on read and
    is logged on write): the command id recorded on the events already keeps
    a retried command from being applied twice."""

    def cache_key() -> str | None:
        """The same caller, path, key and body; hashed, as the cache is shared.
        The caller is the key's scope, as the command id's
        (``identity.key_scope``: the token, however its header is spelled);
        None, no caching, for a header that names no bearer token (the
        command answers it)."""
        key = request.headers.get("Idempotency-Key")
        if request.method != "POST" or not key or len(key) > identity.MAX_KEY:
            return None
        try:
            scope = identity.key_scope()
        except ApiError:
            return None
        parts = [request.path, scope, key]
        digest = hashlib.sha256("\n".join(parts).encode())
        digest.update(request.get_data())
        return digest.hexdigest()

    @app.before_request
    def replay() -> Response | None:
        key = cache_key()
        g.idempotency_key = key
        if key is None:
            return None
        try:
            stored = services.responses.get(key)
        except Exception as e:  # best-effort: the command id prevents a second application
            _failures.failed("response cache: read failed; answering as a miss", e)
            stored = None
        if stored is None:
            return None
        status, _, body = stored.partition("\n")
        return Response(
            body,
            status=int(status),
            mimetype="application/json",
            headers={"Idempotent-Replayed": "true"},
        )

    @app.after_request
    def remember(response: Response) -> Response:
        key = g.get("idempotency_key")
        if g.get("secret_in_response"):
            return response  # a retry is answered by the game, without the token
        if key and response.status_code < 500 and "Idempotent-Replayed" not in response.headers:
            try:
                services.responses.put(key, f"{response.status_code}\n{replay_body(response)}")
            except Exception as e:  # best-effort, as above: never fail an applied command
                _failures.failed("response cache: write failed; the response is not kept", e)
        return response
