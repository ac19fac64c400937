"""Liveness and readiness.

/healthz is liveness: the process answers. It reads no store, so a store
that is down or restarting never makes it fail or wait (a restart of the
process would not bring the store back).

/readyz answers 200 when the event store and the view store answer, no
view lags the log by more than ``OPUS_READY_MAX_LAG`` positions (the log's
head minus the view's position) and every projection's runner wrote its
heartbeat within ``OPUS_READY_MAX_SILENCE`` seconds (projections/runner.py;
infra/settings.py), else 503, each failing check named in ``checks``
(``projector:<name>`` for a silent one). It reports each view's lag under
``lag`` and each projection's silence under ``silence``, whatever the
verdict, so a frozen projector shows up even while it is within the
thresholds.

With shards (infra/shards.py) each shard's store is checked apart and
reported as ``shard:<k>``: a shard that is down is named, but does not make
the process unready, since every process would be unready alike and the
other shards' games would go unanswered too (the shard's own games answer
503 with Retry-After); the event store is unreachable when no shard answers.
"""

from __future__ import annotations

import time
from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint

from api.runtime import services
from api.schemas import HealthSchema
from domain.application import Opus
from domain.sharding import position_of
from infra.shards import shard_apps
from projections.registry import PROJECTIONS

SHARD = "shard:"  # a shard's check: reported, not counted against readiness

blp = Blueprint("health", __name__, description="Liveness and readiness")


@blp.route("/healthz")
class Health(MethodView):
    @blp.response(200, HealthSchema)
    def get(self) -> dict[str, Any]:
        """The process is up (no store is read)."""
        return {"status": "ok", "checks": {}}


@blp.route("/readyz")
class Ready(MethodView):
    @blp.response(200, HealthSchema)
    @blp.alt_response(503, schema=HealthSchema)
    def get(self) -> Any:
        """The event store and the view store answer, every view is within
        the lag allowed (OPUS_READY_MAX_LAG) of the log's head, and every
        projection's runner wrote a heartbeat within OPUS_READY_MAX_SILENCE."""
        svc = services()
        checks: dict[str, str] = {}
        lag: dict[str, int] = {}
        head: int | None = None
        heads: dict[int, int] = {}  # with shards, each one's that answered
        apps = shard_apps(svc.opus)
        if len(apps) > 1:
            head = _shards(apps, checks, heads)
            checks["event_store"] = "ok" if head is not None else "unreachable: every shard"
        else:
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
                # with shards: behind each shard's log, summed (projections/queries.py)
                lag[name] = (
                    sum(svc.views.lags(name, heads).values()) if heads else max(0, head - position)
                )
                checks[f"view:{name}"] = (
                    "ok"
                    if lag[name] <= limit
                    else f"behind the log by {lag[name]} (more than {limit})"
                )
        silence: dict[str, float] = {}
        if positions and svc.ready_max_silence:
            try:
                silence = _silences(svc.views.heartbeats())
            except Exception as e:
                checks["view_store"] = f"unreachable: {type(e).__name__}"
            else:
                most = svc.ready_max_silence
                for name in PROJECTIONS:
                    checks[f"projector:{name}"] = _verdict(silence.get(name), most)
        ok = all(v == "ok" for name, v in checks.items() if not name.startswith(SHARD))
        body = {
            "status": "ok" if ok else "unavailable",
            "checks": checks,
            "lag": lag,
            "silence": silence,
        }
        return body, 200 if ok else 503


def _shards(apps: list[Opus], checks: dict[str, str], heads: dict[int, int]) -> int | None:
    """Each shard's check (``shard:<k>``); the largest position of those
    that answered (None: none did); each one's last notification in ``heads``."""
    head: int | None = None
    for k, app in enumerate(apps):
        try:
            local = app.recorder.max_notification_id() or 0
        except Exception as e:
            checks[f"{SHARD}{k}"] = f"unreachable: {type(e).__name__}"
            continue
        checks[f"{SHARD}{k}"] = "ok"
        heads[k] = local
        head = max(head or 0, position_of(k, local, len(apps)))
    return head


def _silences(beats: dict[str, float]) -> dict[str, float]:
    """Seconds since each projection's last heartbeat (0 for one a clock
    ahead of this one's wrote)."""
    now = time.time()
    return {name: round(max(0.0, now - at), 1) for name, at in beats.items()}


def _verdict(silence: float | None, limit: float) -> str:
    if silence is None:
        return "no heartbeat: is a projector (opus project) running?"
    if silence > limit:
        return f"silent for {silence:.0f} s (more than {limit:g}): is its projector running?"
    return "ok"
