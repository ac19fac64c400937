"""The Flask application factory: nothing starts at import time.

``create_app(config)`` wires the application service, the live-event broker,
the idempotent-response cache and (when asked) the projections, then
registers the blueprints and the one error shape. Production runs it under
gunicorn: ``gunicorn 'api.app:create_app()'``.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, g, request
from flask_smorest import Api

from api import commands_http, health, queries_http, stream
from api.errors import error_body, register_error_handlers
from api.runtime import Services
from api.schemas import ErrorSchema
from infra.broker import InProcessBroker, RedisBroker
from infra.config import (
    api_settings,
    projection_env,
    view_store_settings,
)
from infra.idempotency import InProcessResponses, RedisResponses
from infra.stores import open_application, open_views
from projections.queries import Queries
from projections.registry import PROJECTIONS
from projections.runner import ProjectionRunner

log = logging.getLogger(__name__)


class OpusApi(Api):
    ERROR_SCHEMA = ErrorSchema


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    settings = dict(api_settings())
    settings.update(config or {})
    app = Flask("opus")
    app.config.update(
        API_TITLE="Opus",
        API_VERSION="1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        OPENAPI_SWAGGER_UI_URL="https://cdn.jsdelivr.net/npm/swagger-ui-dist/",
        MAX_CONTENT_LENGTH=settings["MAX_CONTENT_LENGTH"],
        OPUS=settings,
    )
    services = build_services(settings)
    app.extensions["opus"] = services
    api = OpusApi(app)
    api.spec.components.security_scheme("token", {"type": "http", "scheme": "bearer"})
    for blueprint in (commands_http.blp, queries_http.blp, stream.blp, health.blp):
        api.register_blueprint(blueprint)
    register_error_handlers(app)
    register_idempotency(app, services)

    @app.errorhandler(Exception)
    def unexpected(e: Exception) -> Any:
        log.exception("unexpected error")
        return error_body(500, "internal error"), 500

    return app


def build_services(settings: Mapping[str, Any]) -> Services:
    """The composition root of the HTTP service: event store, views, broker,
    response cache and, in the embedded mode, the projection runners."""
    env = projection_env(settings["EVENT_STORE"])
    application = open_application(env)
    redis_url = settings.get("REDIS_URL")
    if redis_url:
        broker: Any = RedisBroker(redis_url)
        responses: Any = RedisResponses(broker.client)
    else:
        broker = InProcessBroker()
        responses = InProcessResponses()
    view_settings = settings.get("VIEW_STORE") or view_store_settings(
        {**env, "REDIS_URL": redis_url or ""}
    )
    store = open_views(view_settings)
    services = Services(
        application,
        broker,
        responses,
        views=Queries(store),
        query_wait_seconds=float(settings.get("QUERY_WAIT_SECONDS", 5.0)),
    )
    application.listeners.append(stream.publisher(services))
    services.closers.extend([application.close, broker.close, store.close])
    if settings.get("RUN_PROJECTIONS"):
        for cls in PROJECTIONS.values():
            runner = ProjectionRunner(
                cls, open_views(view_settings), env, application_factory=open_application
            ).start()
            services.closers.append(runner.stop)
    return services


def register_idempotency(app: Flask, services: Services) -> None:
    """A POST with an Idempotency-Key gets the same response every time."""

    def cache_key() -> str | None:
        """The same caller, path, key and body; hashed, as the cache is shared."""
        key = request.headers.get("Idempotency-Key")
        if request.method != "POST" or not key or len(key) > commands_http.MAX_KEY:
            return None
        parts = [request.path, request.headers.get("Authorization", ""), key]
        digest = hashlib.sha256("\n".join(parts).encode())
        digest.update(request.get_data())
        return digest.hexdigest()

    @app.before_request
    def replay() -> Response | None:
        key = cache_key()
        g.idempotency_key = key
        if key is None:
            return None
        stored = services.responses.get(key)
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
            services.responses.put(key, f"{response.status_code}\n{response.get_data(True)}")
        return response
