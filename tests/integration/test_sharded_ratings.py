"""The ratings recomputed over two shards, and the positions of the API's
answers with shards (``OPUS_SHARDS``: two databases of the shared
PostgreSQL), filled as tests/integration/test_sharded_read_side.py fills
its shards (accounts on the home shard, games rated across both).

``opus verify --ratings`` reads every shard's log as of the view's position
in each and rates the games in the order the view does, so it passes on a
rebuild and on views fed in other interleavings (late games rated again)
or only partly, and fails on a tampered rating, and so does ``opus verify
--ratings --file`` on an export of both shards; the analytics report's seat
effects are the rebuilt view's; a game's answer on shard 1 names the
view's position there, which ``?after=`` takes at once, and one a step past
it is waited for and times out; an answer spanning the shards names each.
"""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from api.app import create_app
from api.cli import main
from domain.application import Opus
from domain.sharding import position_of, shard_position
from infra.bootstrap import open_application
from infra.settings import Settings
from projections.ports import namespace
from projections.queries import Queries
from projections.ratings import RatingsView
from projections.rebuild import rebuild
from projections.registry import PROJECTIONS
from projections.sqlite_views import SQLiteViewStore
from tests.integration.test_sharded_read_side import (
    Shards,
    feed,
    fill,
    home_prefix,
    rows_of_shard,
)
from tests.integration.test_shards import shards_env  # noqa: F401 (a fixture)

pytestmark = pytest.mark.postgres
WAIT = 1.0  # how long ?after= waits at most, in the HTTP test


@dataclass
class Sharded:
    shards: Shards  # each shard's own application, filled
    store: SQLiteViewStore
    env: dict[str, str]  # the shards and the views, for `opus`


@pytest.fixture
def sharded(
    shards_env: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> Iterator[Sharded]:
    settings = Settings.from_env(shards_env)
    apps: list[Opus] = [open_application(settings.shard(k)) for k in range(2)]
    shards = Shards(apps, [])
    fill(shards)
    views = str(tmp_path / "views.db")
    env = {
        **shards_env,
        "OPUS_VIEWS_DBNAME": views,
        "OPUS_ANALYTICS_DIR": str(tmp_path / "analytics"),
        "REDIS_URL": "",
    }
    store = SQLiteViewStore(views)
    try:
        yield Sharded(shards, store, env)
    finally:
        store.close()
        for app in apps:
            app.close()


def opus(env: dict[str, str], *args: str) -> Result:
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def verified(sharded: Sharded) -> str:
    done = opus(sharded.env, "verify", "--ratings", "--no-views")
    assert done.exit_code == 0, done.output
    (line,) = [line for line in done.output.splitlines() if "ratings" in line]
    return line


def reached(store: SQLiteViewStore, generation: str) -> list[int]:
    """The ratings view's position in each shard (its own numbering)."""
    queries = Queries(store, shards=2)
    return [queries.position("ratings", shard=k, generation=generation) or 0 for k in (0, 1)]


def test_verify_ratings_over_two_shards_agrees_with_every_interleaving_and_fails_a_tamper(
    sharded: Sharded, monkeypatch: pytest.MonkeyPatch
) -> None:
    shards, store = sharded.shards, sharded.store
    heads = shards.heads()
    rebuild(store, shards.apps, [PROJECTIONS["ratings"]])
    line = verified(sharded)
    assert line.startswith(f"ok   ratings at {heads[0]} of shard 0, {heads[1]} of shard 1: ")
    assert "6 rated games, 4 accounts" in line

    rated_again: list[str] = []
    original = RatingsView._rate_again

    def counted(self: RatingsView, tx: Any, late: list[Any]) -> None:
        rated_again.extend(rated.game for _, rated in late)
        original(self, tx, late)

    monkeypatch.setattr(RatingsView, "_rate_again", counted)
    lengths = [len(rows_of_shard(app)[0]) for app in shards.apps]
    prefix = home_prefix(shards)
    rng = random.Random(7)
    mixed = [(0, prefix)]
    while sum(count for _, count in mixed) < 3 * sum(lengths):
        mixed.append((len(mixed) % 2, rng.randint(1, 40)))
    interleavings = {
        # the home shard's accounts, then shard 1 whole, then the rest of shard 0
        "other": [(0, prefix), (1, lengths[1]), (0, lengths[0])],
        "mixed": mixed,
        # shard 1 only half read: verified as of the view's position in each shard
        "part": [(0, prefix), (1, lengths[1] // 2), (0, lengths[0])],
    }
    for generation, runs in interleavings.items():
        feed(store, shards, generation, runs)
        store.activate("ratings", generation)
        at = reached(store, generation)
        line = verified(sharded)
        assert line.startswith(f"ok   ratings at {at[0]} of shard 0, {at[1]} of shard 1: "), (
            generation
        )
    assert str(shards.games["game2"]) in rated_again  # the views were fed out of order
    assert at[1] < heads[1] and "6 rated games" not in line  # "part": fewer games

    store.activate("ratings", "mixed")
    ben = f"rating:{shards.accounts['Ben']}"
    with sqlite3.connect(sharded.env["OPUS_VIEWS_DBNAME"]) as db:
        where = (namespace("ratings", "mixed"), ben)
        (text,) = db.execute("SELECT value FROM view_docs WHERE ns=? AND key=?", where).fetchone()
        doc = json.loads(text)
        changed = json.dumps({**doc, "mu": doc["mu"] + 1e-6})
        db.execute("UPDATE view_docs SET value=? WHERE ns=? AND key=?", (changed, *where))
    failed = opus(sharded.env, "verify", "--ratings", "--no-views")
    assert failed.exit_code == 1, failed.output
    assert f"FAIL ratings at {heads[0]} of shard 0, {heads[1]} of shard 1" in failed.output
    assert f"account {shards.accounts['Ben']}: recorded μ" in failed.output


def test_an_export_of_two_shards_carries_the_ratings_and_verify_holds_them_to_its_games(
    sharded: Sharded, tmp_path: Path
) -> None:
    shards, store = sharded.shards, sharded.store
    rebuild(store, shards.apps, [PROJECTIONS["ratings"]])
    heads = shards.heads()
    path = tmp_path / "log.ndjson"
    done = opus(sharded.env, "export", "--ratings", "--output", str(path))
    assert done.exit_code == 0, done.output
    lines = path.read_text(encoding="utf-8").splitlines()
    carried = json.loads(lines[-1])["ratings"]
    positions = [position_of(k, head, 2) for k, head in enumerate(heads)]
    assert carried["positions"] == positions and carried["position"] == max(positions)
    good = opus(sharded.env, "verify", "--ratings", "--file", str(path))
    assert good.exit_code == 0, good.output
    at = f"at positions {positions[0]}, {positions[1]}: 6 rated games"
    assert f"ok   ratings of the export, {at}" in good.output
    nudged = json.loads(json.dumps(carried))
    nudged["games"][-1]["seats"][0]["mu"] += 1e-7
    changed = tmp_path / "changed.ndjson"
    changed.write_text("\n".join([*lines[:-1], json.dumps({"ratings": nudged})]) + "\n")
    bad = opus(sharded.env, "verify", "--ratings", "--file", str(changed))
    assert bad.exit_code == 1 and "rated game 6" in bad.output and "recorded μ" in bad.output


def test_the_reports_seat_effects_over_two_shards_are_the_views(sharded: Sharded) -> None:
    shards, store = sharded.shards, sharded.store
    rebuild(store, shards.apps, [PROJECTIONS["ratings"]])
    assert opus(sharded.env, "analytics", "export").exit_code == 0
    done = opus(sharded.env, "analytics", "report")
    assert done.exit_code == 0, done.output
    report = Path(sharded.env["OPUS_ANALYTICS_DIR"]) / "report" / "report.json"
    rows = json.loads(report.read_text(encoding="utf-8"))["questions"]["seat_effects"]["rows"]
    found = {(r["players"], r["seat"]): r for r in rows}
    expected = Queries(store, shards=2).ratings()["seats"]
    # tables of 2 on both shards, of 3 on each (game3 on shard 1, game6 on shard 0)
    assert set(found) == {(e["players"], e["seat"]) for e in expected}
    assert {players for players, _ in found} == {2, 3}
    for seat in expected:
        row = found[(seat["players"], seat["seat"])]
        assert row["rated_games"] == seat["games"]
        for ours, theirs in (("mu", "mu"), ("sigma", "sigma"), ("rated_share", "share")):
            assert row[ours] == pytest.approx(seat[theirs], abs=1e-9), (seat, ours)


def test_a_shard_1_answers_position_is_taken_back_at_once_and_one_past_it_waits(
    sharded: Sharded,
) -> None:
    shards, store = sharded.shards, sharded.store
    heads = shards.heads()
    rebuild(store, shards.apps, list(PROJECTIONS.values()))
    shards.apps[1].create_game()  # in shard 1's log, not in the views
    service = create_app(
        {
            **sharded.env,
            "OPUS_RUN_PROJECTIONS": "0",
            "OPUS_BOTS": "0",
            "OPUS_RECEIPTS": "0",
            "OPUS_RATE_LIMIT": "0",
            "OPUS_QUERY_WAIT_SECONDS": str(WAIT),
        }
    )
    client = service.test_client()
    try:
        game = shards.games["game7"]  # played on shard 1
        answer = client.get(f"/games/{game}")
        assert answer.status_code == 200, answer.json
        position = answer.json["position"]
        assert shard_position(position, 2) == (1, heads[1])  # the view's, in shard 1
        assert "positions" not in answer.json
        started = time.monotonic()
        again = client.get(f"/games/{game}/scoreboard?after={position}")
        assert again.status_code == 200 and time.monotonic() - started < WAIT
        assert again.json["position"] == position
        started = time.monotonic()
        past = client.get(f"/games/{game}?after={position_of(1, heads[1] + 1, 2)}")
        assert past.status_code == 503 and "shard 1" in past.json["message"]
        assert time.monotonic() - started >= WAIT
        # an answer spanning the shards names the view's position in each
        board = client.get("/leaderboard").json
        assert board["position"] is None
        assert board["positions"] == [position_of(0, heads[0], 2), position]
        at_home = client.get(f"/leaderboard?after={board['positions'][0]}")
        assert at_home.status_code == 200
        # a tournament's answer: the view's position in its shard (one on each)
        tournaments = client.get("/lobby").json["data"]["tournaments"]
        shown = {
            client.get(f"/tournaments/{t['tournament']}").json["position"] for t in tournaments
        }
        assert shown == set(board["positions"])
        # the pages wait for no more than a shard's log holds
        queries = Queries(store, shards=2, heads=shards.heads)
        beyond = position_of(1, heads[1] + 5, 2)
        assert queries.capped(beyond) == position_of(1, heads[1] + 1, 2)
        assert queries.capped(position) == position
    finally:
        service.extensions["opus"].close()
