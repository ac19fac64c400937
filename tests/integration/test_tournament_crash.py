"""T5.1 exactly once: a process playing a tournament is killed (SIGKILL)
as it saves the move that ends a tournament game: after the game's
GameEnded is written inside the transaction, before the commit ("inside"),
or right after the commit ("after"). After each kill the store holds the
end and its result, or neither; a new process resumes the tournament, and
in the end every game's result is recorded exactly once and every round is
sealed over every game, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from uuid import UUID

import pytest

from domain.application import Opus
from domain.simulation import enter_tournament, play_on

# The child plays on; the save of every game end after the first ``skip``
# stops, inside its transaction (the recorder's ``_insert_events``: events
# inserted, no commit) or after it (``insert_events``), and says so.
# The application's PostgreSQL recorder (infra/postgres_recorder.py) saves
# in one statement, with no moment between the insert and the commit for a
# client to be killed in (tests/integration/test_postgres_recorder.py kills
# one during its statement): "inside" on PostgreSQL is the library's
# recorder, whose transaction spans two round trips.
LIBRARY_RECORDER = "eventsourcing.postgres:PostgresApplicationRecorder"
CHILD = """
import json, sys, time
from uuid import UUID
from domain.application import Opus
from domain.simulation import TournamentRun, play_on

env, tournament, seed, marker, skip, point = json.loads(sys.argv[1])
app = Opus(env=env)
method = "_insert_events" if point == "inside" else "insert_events"
insert = getattr(app.recorder, method)
ends = []

def insert_then_wait(*args, **kwargs):
    done = insert(*args, **kwargs)
    stored_events = args[-1]
    ended = [s for s in stored_events if s.topic.endswith(":GameEnded")]
    if ended:
        ends.append(1)
        if len(ends) > skip:
            with open(marker + ".part", "w") as f:
                f.write(str(ended[0].originator_id))
            import os
            os.replace(marker + ".part", marker)
            time.sleep(120)
    return done

setattr(app.recorder, method, insert_then_wait)
play_on(app, TournamentRun(UUID(tournament), seed), "random")
"""


def tournament_log(app: Opus, tournament: UUID) -> list[tuple[str, dict[str, object]]]:
    return [(type(e).__name__, vars(e)) for e in app.events.get(tournament)]


def check_once(app: Opus, tournament: UUID) -> None:
    """Every ended game of the tournament has one result; no other game has."""
    log = tournament_log(app, tournament)
    games = [UUID(t["game"]) for kind, e in log if kind == "RoundPaired" for t in e["tables"]]
    results = Counter(UUID(e["game"]) for kind, e in log if kind == "GameResultRecorded")
    for game in games:
        ended = app.state(game).status == "ended"
        assert results[game] == (1 if ended else 0), (game, ended, results[game])
    closed = [e["round"] for kind, e in log if kind == "RoundClosed"]
    assert closed == list(range(1, len(closed) + 1))


@pytest.mark.parametrize("point", ["inside", "after"])
def test_T5_1_a_result_is_recorded_exactly_once_across_kill_9(
    env: dict[str, str], tmp_path: Path, point: str
) -> None:
    if point == "inside" and env["PERSISTENCE_MODULE"] == "eventsourcing.postgres":
        env = {**env, "APPLICATION_RECORDER_TOPIC": LIBRARY_RECORDER}
    app = Opus(env=env)
    run = enter_tournament(app, players=10, rounds=3, seed=int.from_bytes(os.urandom(4), "big"))
    app.close()
    kills = 0
    for attempt in range(12):
        marker = tmp_path / f"marker-{attempt}"
        args = json.dumps([env, str(run.tournament), run.seed, str(marker), attempt % 2, point])
        child = subprocess.Popen([sys.executable, "-c", CHILD, args])
        deadline = time.monotonic() + 120
        while not marker.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if child.poll() is not None:
            assert child.returncode == 0
            break  # the tournament finished
        assert marker.exists(), "the child neither ended a game nor finished"
        child.send_signal(signal.SIGKILL)
        child.wait()
        kills += 1
        cut = UUID(marker.read_text())
        app = Opus(env=env)
        try:
            # inside: the end was never committed; after: it was, with its result
            assert app.state(cut).status == ("running" if point == "inside" else "ended")
            check_once(app, run.tournament)
        finally:
            app.close()
    assert kills >= 3
    app = Opus(env=env)
    try:
        play_on(app, run, "random")
        check_once(app, run.tournament)
        state = app.tournaments.get(run.tournament).state
        assert state.finished and all(r.closed for r in state.rounds)
        assert len(state.results) == sum(len(r.tables) for r in state.rounds)
    finally:
        app.close()
