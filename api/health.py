"""Liveness and readiness."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from api.runtime import services
from api.schemas import HealthSchema

blp = Blueprint("health", __name__, description="Liveness and readiness")


@blp.route("/healthz")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    def get(self) -> dict[str, Any]:
        """The process is up."""
        return {"status": "ok", "checks": {}}


@blp.route("/readyz")
class Ready(MethodView):
    @blp.response(200, HealthSchema)
    @blp.alt_response(503, schema=HealthSchema)
    def get(self) -> Any:
        """The event store and the view store answer."""
        svc = services()
        checks: dict[str, str] = {}
        try:
            svc.views.head()
            checks["event_store"] = "ok"
        except Exception as e:  # readiness reports, it does not raise
            checks["event_store"] = f"unreachable: {type(e).__name__}"
        try:
            svc.views.position("table")
            checks["view_store"] = "ok"
        except Exception as e:
            checks["view_store"] = f"unreachable: {type(e).__name__}"
        ok = all(v == "ok" for v in checks.values())
        return {"status": "ok" if ok else "unavailable", "checks": checks}, 200 if ok else 503
