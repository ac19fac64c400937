"""The tournaments projection on real view stores (SQLite, then Redis): live
runners and a rebuild give the same bytes; as of any position, the
tournament and its standings are those of the tournament's events up to
there (TournamentState, the write side's own model)."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest

from domain.application import Opus
from domain.simulation import enter_tournament, play_on
from domain.tournaments.standings import digest
from domain.tournaments.state import TournamentState
from projections.queries import Queries
from projections.rebuild import rebuild
from projections.registry import select
from tests.conftest import ViewsUnderTest
from tests.integration.test_projections import dumps, last_position, run_all, stop_all, wait_all


@pytest.fixture
def opus(events_env: dict[str, str]) -> Iterator[Opus]:
    application = Opus(env=events_env)
    yield application
    application.close()


def state_at(app: Opus, tournament: Any, position: int) -> TournamentState:
    """The tournament as its events up to ``position`` leave it."""
    events = [
        app.mapper.to_domain_event(n)
        for n in app.recorder.select_notifications(0, 1_000_000, stop=position)
        if n.originator_id == tournament
    ]
    state = TournamentState.from_created(vars(events[0]))
    for event in events[1:]:
        state.evolve(type(event).__name__, vars(event))
    return state


def test_live_tournament_views_equal_a_rebuild_and_every_past_one_its_events(
    opus: Opus, events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    app = opus
    runners = run_all(views, events_env)
    try:
        # revision 4's events too: teams, a constraint, the cut (T11, T12)
        run = enter_tournament(app, players=9, rounds=3, seed=77, teams=2, constraints=1, cut=1)
        registered = last_position(app)
        app.tournaments.penalise(run.tournament, 2, Fraction(1, 2), "late", "arbiter")
        play_on(app, run, "random", drop_rate=0.2)
        wait_all(runners, last_position(app))
    finally:
        stop_all(runners)
    live = dumps(views)
    end = last_position(app)
    fresh = dumps(views, rebuild(views.store, app, select(["tournaments"]), as_of=end).generation)
    assert fresh["tournaments"] == live["tournaments"]

    queries = Queries(views.store)
    key = str(run.tournament)
    positions = [registered] + [
        n.id
        for n in app.recorder.select_notifications(registered, 1_000_000)
        if n.originator_id == run.tournament
    ]
    seals = {
        e.round: e.standings
        for e in app.events.get(run.tournament)
        if type(e).__name__ == "RoundClosed"
    }
    for position in [*positions[:: max(1, len(positions) // 6)], end]:
        then = rebuild(views.store, app, select(["tournaments"]), as_of=position).generation
        past = state_at(app, run.tournament, position)
        doc = queries.tournament(key, generation=then)
        standings = queries.standings(key, generation=then)
        assert doc is not None and standings is not None
        assert doc["status"] == past.status and doc["position"] <= position
        assert [p["dropped"] for p in doc["players"]] == [r.dropped for r in past.registrations]
        assert [p["team"] for p in doc["players"]] == [r.team for r in past.registrations]
        assert [c["players"] for c in doc["constraints"]] == [list(c) for c in past.constraints]
        assert [r["stage"] != "swiss" for r in doc["rounds_paired"]] == [r.cut for r in past.rounds]
        rows = past.standings()
        if past.seed is not None:  # before round 1 the view's are provisional
            assert standings["rows"] == [row.to_json() for row in rows]
            assert standings["digest"] == digest(rows)
        for round_ in past.rounds:
            if round_.closed:
                sealed = queries.standings(key, round_.number, generation=then)
                assert sealed is not None and sealed["digest"] == seals[round_.number]
