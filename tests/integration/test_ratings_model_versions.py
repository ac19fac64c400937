"""The rating model's versions (issue 35, item 5): the seats moved to a
settled table's scale with a wider prior (domain/ratings.py, ``seat_scale``
and ``SEAT_SIGMA``), and ratings recorded before still verify.

- An export whose ratings were computed before (its parameters name no
  ``seat_scale``, its seats' σ₀ is 1) verifies with ``opus verify --ratings
  --file``, recomputed with the model it names, and fails once its
  parameters are rewritten to today's: the numbers are each model's own.
- A ratings view begun with the model before goes on with it for games
  after the upgrade (its ``meta``), so that every game in it is rated
  alike and ``opus verify --ratings`` re-derives it exactly; a rebuild
  takes today's model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eventsourcing.persistence import Tracking

from domain.application import Opus
from domain.ratings import BEFORE_ISSUE_35, PARAMETERS, Parameters, differences
from projections.base import EventDecoder, rows_of
from projections.queries import Queries
from projections.ratings import RatingsView, ledger_from_log
from projections.rebuild import rebuild
from projections.sqlite_views import SQLiteViewStore
from projections.view import View
from tests.integration.test_ratings_cli import opus
from tests.integration.test_ratings_view import fill, play


def test_an_export_made_with_the_model_before_still_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(tmp_path / "events.db"),
        "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
        "OPUS_RUN_PROJECTIONS": "0",
    }
    app = Opus(env={k: env[k] for k in ("PERSISTENCE_MODULE", "SQLITE_DBNAME")})
    fill(app)
    app.close()
    monkeypatch.setattr(RatingsView, "params", BEFORE_ISSUE_35)  # the code before the upgrade
    done = opus(env, "rebuild", "ratings")  # the view the export reads
    assert done.exit_code == 0, done.output
    path = tmp_path / "log.ndjson"
    assert opus(env, "export", "--ratings", "--output", str(path)).exit_code == 0
    monkeypatch.undo()
    lines = path.read_text(encoding="utf-8").splitlines()
    carried = json.loads(lines[-1])["ratings"]
    del carried["parameters"]["seat_scale"]  # as the code before wrote them
    assert carried["parameters"]["seat_sigma"] == 1.0

    def verified(ratings: dict[str, object]) -> tuple[int, str]:
        changed = tmp_path / "changed.ndjson"
        changed.write_text("\n".join([*lines[:-1], json.dumps({"ratings": ratings})]) + "\n")
        done = opus(env, "verify", "--ratings", "--file", str(changed))
        return done.exit_code, done.output

    code, output = verified(carried)
    assert code == 0, output
    assert "ok   ratings of the export" in output and "4 rated games" in output
    today = {**carried, "parameters": PARAMETERS.to_doc()}
    code, output = verified(today)
    assert code == 1 and "FAIL ratings of the export" in output and "recomputed μ" in output


def test_a_view_goes_on_with_the_model_it_began_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = Opus(
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(tmp_path / "e.db")}
    )
    store = SQLiteViewStore(str(tmp_path / "views.db"))
    decoder = EventDecoder(app.mapper)

    def project(since: int) -> int:
        """The log's events after ``since``, each by a projection opened
        afresh (a process started with the code as it is now)."""
        last = since
        for n in app.recorder.select_notifications(since + 1, 10**6):
            view = View(store, "ratings", "live")
            records, error = decoder.decode(rows_of([n]), text_ids=False)
            assert error is None
            with view.batch():
                RatingsView(view).process_events(records, [n.id])
            if (view.position or 0) < n.id:
                view.insert_tracking(Tracking("Opus", n.id))
            last = n.id
        return last

    try:
        log = fill(app)
        with monkeypatch.context() as before:
            before.setattr(RatingsView, "params", BEFORE_ISSUE_35)
            reached = project(0)
        h = log.holders
        play(app, [h["Ann"], h["Ben"], h["Cat"]], 31)  # rated after the upgrade
        project(reached)
        queries = Queries(store)
        record = queries.ratings_record(history=True, generation="live")
        assert len(record["games"]) == 5
        assert Parameters.from_doc(record["parameters"]) == BEFORE_ISSUE_35
        assert differences(record, ledger_from_log(app, params=BEFORE_ISSUE_35)) == []
        assert differences(record, ledger_from_log(app, params=PARAMETERS))  # another model
        head = app.recorder.max_notification_id() or 0
        fresh = rebuild(store, app, [RatingsView], as_of=head).generation
        again = queries.ratings_record(history=True, generation=fresh)
        assert Parameters.from_doc(again["parameters"]) == PARAMETERS
        assert differences(again, ledger_from_log(app)) == []
    finally:
        store.close()
        app.close()
