"""Liveness and readiness.

/readyz answers 200 when the event store and the view store answer and no
view lags the log by more than ``OPUS_READY_MAX_LAG`` positions (the log's
head minus the view's position; infra/settings.py), else 503. It reports
each view's lag under ``lag``, whatever the verdict, so a frozen projector
shows up even while it is within the threshold.
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from api.runtime import services
from api.schemas import HealthSchema
from projections.registry import PROJECTIONS

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
        """The event store and the view store answer, and every view is within
        the lag allowed (OPUS_READY_MAX_LAG) of the log's head."""
        svc = services()
        checks: dict[str, str] = {}
        lag: dict[str, int] = {}
        head: int | None = None
        try:
            head = svc.views.head()
            checks["event_store"] = "ok"
        except Exception as e:  # readiness reports, it does not raise
            checks["event_store"] = f"unreachable: {type(e).__name__}"
        try:
            positions = {name: svc.views.position(name) or 0 for name in PROJECTIONS}
            checks["view_store"] = "ok"
        except Exception as e:
            positions = {}
            checks["view_store"] = f"unreachable: {type(e).__name__}"
        if head is not None and positions:
            limit = svc.ready_max_lag
            for name, position in positions.items():
                lag[name] = max(0, head - position)
                checks[f"view:{name}"] = (
                    "ok"
                    if lag[name] <= limit
                    else f"behind the log by {lag[name]} (more than {limit})"
                )
        ok = all(v == "ok" for v in checks.values())
        body = {"status": "ok" if ok else "unavailable", "checks": checks, "lag": lag}
        return body, 200 if ok else 503
