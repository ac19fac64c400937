"""The analytics' latest figures over HTTP: ``GET /analytics/{question}``.

Answers come from the latest report's snapshot (``report.json`` in
``$OPUS_ANALYTICS_DIR/report``, written last and atomically by ``opus
analytics report``), never from a scan of the data: a request costs a
``stat`` of the file, and the file is parsed again only when a new report
has replaced it. 404 for a question the report does not hold, or when no
report has been made yet. The web client shows the charts beside them
(``charts/<question>.png`` in the same folder).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from flask import current_app
from flask.views import MethodView
from flask_smorest import Blueprint

from api.errors import ApiError
from api.schemas import ErrorSchema
from projections.analytics import report_dir
from projections.analytics.report import SNAPSHOT

CONFIG_KEY = "OPUS_ANALYTICS_DIR"

blp = Blueprint("analytics", __name__, description="Analytics: the latest report's figures")

_lock = threading.Lock()
_cached: dict[str, tuple[tuple[int, int, int], dict[str, Any]]] = {}


def snapshot(path: Path) -> dict[str, Any] | None:
    """The report's snapshot, parsed once per version of the file."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    stamp = (info.st_ino, info.st_mtime_ns, info.st_size)
    key = str(path)
    with _lock:
        found = _cached.get(key)
        if found is not None and found[0] == stamp:
            return found[1]
    try:
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    with _lock:
        _cached[key] = (stamp, doc)
    return doc


@blp.route("/analytics/<string:question>")
class AnalyticsQuery(MethodView):
    @blp.response(200)
    @blp.alt_response(404, schema=ErrorSchema, description="No report yet, or no such question")
    def get(self, question: str) -> dict[str, Any]:
        """One question's figures from the latest report: its title,
        description, columns and rows, with when and from what log position
        the report was made (seat_advantage, seat_effects (from the ratings,
        when the report was made with them), card_strength, points_by_rule,
        steal_graph, sequence_progress, sequence_wins, game_ends,
        game_length, length_histogram, time_per_move, bot_head_to_head, player_history,
        tournament_seats, tournament_match_points)."""
        folder = report_dir(current_app.config.get(CONFIG_KEY) or "./var/analytics")
        doc = snapshot(folder / SNAPSHOT)
        if doc is None:
            raise ApiError(404, "no analytics report yet: run `opus analytics report`")
        answer = doc["questions"].get(question)
        if answer is None:
            known = ", ".join(sorted(doc["questions"]))
            raise ApiError(404, f"no question {question!r}; the report answers {known}")
        return {
            **answer,
            "generated_at": doc["generated_at"],
            "engine": doc["engine"],
            "position": doc["position"],
            "games": doc["games"],
        }
