"""The ratings view (projections/ratings.py) on real stores, SQLite views
and Redis views alike: built by a live runner, by a rebuild, and by a
projection started afresh at every event (each reading back what the one
before wrote), the three byte for byte the same; as of any position equal
to the ratings recomputed from the log up to it (domain.ratings.Ledger);
and holding what the decisions say: who is rated, a withdrawn seat last and
alone, an adopted token's seat the account's from the adoption on, names
renamed, no token hash. Events in SQLite, and in PostgreSQL (marked
``postgres``) where the other projection tests use it."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from uuid import UUID

import pytest
from eventsourcing.persistence import Tracking

from domain.application import Opus
from domain.bots import BOTS
from domain.pipeline import Caller
from domain.ratings import PARAMETERS, Ledger, RatedGame, differences, rate_game
from projections.base import EventDecoder, rows_of
from projections.ports import namespace
from projections.queries import Queries
from projections.ratings import RatingsView, ledger_from_log
from projections.rebuild import rebuild
from projections.runner import ProjectionRunner
from projections.view import View
from tests.conftest import POSTGRES_ENV, ViewsUnderTest, opener
from tests.settings import connect_test_postgres

TOKEN = "7" * 64  # a seat held by no account
ADOPTED = "5" * 64  # a token Dee takes a seat with, signed out, then adopts


@dataclass
class Log:
    accounts: dict[str, UUID] = field(default_factory=dict)
    holders: dict[str, str] = field(default_factory=dict)
    games: dict[str, UUID] = field(default_factory=dict)


def play(app: Opus, seats: list[str], seed: int, *, withdraw: int | None = None) -> UUID:
    """A whole game of greedy bots, each seat moved by its token hash; the
    seat ``withdraw`` withdrawn (R3.5) after 30 moves."""
    game = app.create_game(secret=seed.to_bytes(32, "big"))
    for n, digest in enumerate(seats):
        app.join(game, f"Seat {n}", caller=Caller(digest))
    app.start(game)
    choose = BOTS["greedy"](random.Random(seed))
    moves = 0
    while (state := app.state(game)).status == "running":
        if moves == 30 and withdraw is not None:
            app.withdraw(game, withdraw)
        app.play(game, choose(state, state.turn), caller=Caller(seats[state.turn]))
        moves += 1
    return game


def fill(app: Opus) -> Log:
    log = Log()
    for name in ("Ann", "Ben", "Cat", "Dee"):
        log.accounts[name] = app.accounts.open(name).account
    log.accounts["Greedy bot"] = app.accounts.bot("greedy", 1)
    for name, account in log.accounts.items():
        log.holders[name] = app.accounts.view(account).holder_hash
    h = log.holders
    log.games["two"] = play(app, [h["Ann"], h["Ben"]], 1)
    log.games["token"] = play(app, [h["Ben"], TOKEN, h["Cat"], h["Greedy bot"]], 2)
    log.games["alone"] = play(app, [h["Ann"], TOKEN], 3)  # one account: not rated
    log.games["before"] = play(app, [ADOPTED, h["Cat"]], 4)  # the token's, not Dee's yet
    app.accounts.adopt(log.accounts["Dee"], [ADOPTED])
    log.games["withdrawn"] = play(
        app, [h["Ann"], h["Cat"], ADOPTED, h["Greedy bot"]], 5, withdraw=1
    )
    app.accounts.rename(log.accounts["Ann"], "Ann Lovelace")
    moved = app.create_game(secret=(6).to_bytes(32, "big"))  # seats move before the start
    for digest in (TOKEN, h["Ben"], h["Dee"], h["Ann"]):
        app.join(moved, f"Seat {digest[:3]}", caller=Caller(digest))
    app.remove_seat(moved, 0)
    app.start(moved)
    choose = BOTS["greedy"](random.Random(6))
    seated = [h["Ben"], h["Dee"], h["Ann"]]
    while (state := app.state(moved)).status == "running":
        app.play(moved, choose(state, state.turn), caller=Caller(seated[state.turn]))
    log.games["moved"] = moved
    running = app.create_game(secret=(7).to_bytes(32, "big"))  # left running
    for digest in (h["Cat"], h["Ben"]):
        app.join(running, f"Seat {digest[:3]}", caller=Caller(digest))
    app.start(running)
    log.games["running"] = running
    return log


@pytest.fixture
def filled(events_env: dict[str, str]) -> Iterator[tuple[Opus, Log]]:
    app = Opus(env=events_env)
    yield app, fill(app)
    app.close()


def test_what_the_view_holds(filled: tuple[Opus, Log], views: ViewsUnderTest) -> None:
    app, log = filled
    rebuild(views.store, app, [RatingsView])
    queries = Queries(views.store)
    record = queries.ratings_record(history=True)
    by_game = {g["game"]: g for g in record["games"]}
    ids = {str(v): k for k, v in log.accounts.items()}
    # not "alone" (one account), nor "before" (its token was not Dee's yet),
    # nor "running"; in the order they ended
    assert list(by_game) == [str(log.games[n]) for n in ("two", "token", "withdrawn", "moved")]
    token_game = by_game[str(log.games["token"])]
    assert [(s["seat"], ids[s["account"]]) for s in token_game["seats"]] == [
        (0, "Ben"),
        (2, "Cat"),
        (3, "Greedy bot"),
    ]
    assert token_game["players"] == 4
    withdrawn = by_game[str(log.games["withdrawn"])]
    seats = {ids[s["account"]]: s for s in withdrawn["seats"]}
    assert seats["Dee"]["seat"] == 2  # the adopted token's seat, the account's now
    assert seats["Cat"]["withdrawn"] and seats["Cat"]["place"] == 4  # last, alone
    assert sorted(s["place"] for s in withdrawn["seats"] if not s["withdrawn"]) in (
        [1, 2, 3],
        [1, 1, 3],
        [1, 2, 2],
        [1, 1, 1],
    )
    moved = by_game[str(log.games["moved"])]
    assert [(s["seat"], ids[s["account"]]) for s in moved["seats"]] == [
        (0, "Ben"),
        (1, "Dee"),
        (2, "Ann"),
    ]
    # seat 2 of 4 sat with no account in one game and withdrew in the other:
    # its pseudo-player was never rated
    assert "1/4" not in record["seats"] and "0/4" in record["seats"]
    board = queries.ratings()
    assert [row["rank"] for row in board["players"]] == list(range(1, 6))
    scores = [row["mu"] - 3 * row["sigma"] for row in board["players"]]
    assert scores == sorted(scores, reverse=True)
    names = {row["name"] for row in board["players"]}
    assert names == {"Ann Lovelace", "Ben", "Cat", "Dee", "Greedy bot"}
    assert board["model"]["parameters"] == PARAMETERS.to_doc()
    assert board["model"]["library"] == "openskill"
    ann = queries.rating(log.accounts["Ann"])
    assert ann is not None and ann["name"] == "Ann Lovelace"
    assert [p["game"] for p in ann["history"]] == [
        str(log.games[n]) for n in ("two", "withdrawn", "moved")
    ]
    assert (ann["mu"], ann["sigma"]) == (ann["history"][-1]["mu"], ann["history"][-1]["sigma"])
    nobody = app.accounts.open("Eve").account
    rebuild(views.store, app, [RatingsView])
    eve = queries.rating(nobody)
    assert eve is not None and eve["games"] == 0 and eve["rank"] is None and eve["rating"] == 0
    assert queries.rating(log.games["two"]) is None  # a game's id is no account
    dumped = str(views.store.dump(namespace("ratings", views.store.active_generation("ratings"))))
    for holder in log.holders.values():
        assert holder not in dumped
    assert TOKEN not in dumped and ADOPTED not in dumped


def test_a_seat_pseudo_player_learns_from_its_seat_alone(
    filled: tuple[Opus, Log], views: ViewsUnderTest
) -> None:
    """Counting games: each seat pseudo-player rated once per rated game it
    sat in, a withdrawn seat's never; every account's games likewise."""
    app, _ = filled
    rebuild(views.store, app, [RatingsView])
    record = Queries(views.store).ratings_record()
    seats: dict[str, int] = {}
    accounts: dict[str, int] = {}
    for game in record["games"]:
        for s in game["seats"]:
            accounts[s["account"]] = accounts.get(s["account"], 0) + 1
            if not s["withdrawn"]:
                key = f"{s['seat']}/{game['players']}"
                seats[key] = seats.get(key, 0) + 1
    assert {k: v["games"] for k, v in record["seats"].items()} == seats
    assert {k: v["games"] for k, v in record["accounts"].items()} == accounts
    assert any(s["withdrawn"] for g in record["games"] for s in g["seats"])


def test_live_rebuilt_and_restarted_at_every_event_are_byte_identical(
    events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    app = Opus(env=events_env)
    try:
        runner = ProjectionRunner(RatingsView, views.store, opener(events_env)).start()
        try:
            fill(app)
            end = app.recorder.max_notification_id() or 0
            runner.wait(end, timeout=60)
        finally:
            runner.stop()
            runner.join()
        live = views.store.dump(namespace("ratings", views.store.active_generation("ratings")))
        rebuilt = rebuild(views.store, app, [RatingsView], as_of=end).generation
        assert views.store.dump(namespace("ratings", rebuilt)) == live
        # a projection opened afresh for every event: every document read back
        restarted = "restarted"
        decoder = EventDecoder(app.mapper)
        for n in app.recorder.select_notifications(0, 10**6):
            view = View(views.store, "ratings", restarted)
            projection = RatingsView(view)
            records, error = decoder.decode(rows_of([n]), text_ids=False)
            assert error is None
            with view.batch():
                projection.process_events(records, [n.id])
            if (view.position or 0) < n.id:
                view.insert_tracking(Tracking("Opus", n.id))
        assert views.store.dump(namespace("ratings", restarted)) == live
    finally:
        app.close()


def test_as_of_any_position_equals_the_ratings_recomputed_up_to_it(
    filled: tuple[Opus, Log], views: ViewsUnderTest
) -> None:
    app, _ = filled
    end = app.recorder.max_notification_id() or 0
    rng = random.Random(22)
    ended = [
        n.id for n in app.recorder.select_notifications(0, 10**6) if n.topic.endswith(":GameEnded")
    ]
    positions = sorted({*ended, *(p - 1 for p in ended), *rng.sample(range(1, end), 8), end})
    queries = Queries(views.store)
    seen = []
    for position in positions:
        generation = rebuild(views.store, app, [RatingsView], as_of=position).generation
        record = queries.ratings_record(history=True, generation=generation)
        assert record["position"] == position
        ledger = ledger_from_log(app, stop=position)
        assert differences(record, ledger) == [], position
        seen.append(len(record["games"]))
        views.store.drop(namespace("ratings", generation))
    assert seen == sorted(seen) and seen[0] < seen[-1]  # the games come in as they end


def test_a_game_rated_in_the_view_is_the_model_applied_to_the_accounts_before(
    filled: tuple[Opus, Log], views: ViewsUnderTest
) -> None:
    """Each rated game moves its members from where the game before left
    them: the view's history, replayed through the model game by game."""
    app, _ = filled
    rebuild(views.store, app, [RatingsView])
    record = Queries(views.store).ratings_record()
    current: dict[str, tuple[float, float]] = {}
    for doc in record["games"]:
        game = RatedGame.from_doc(doc)
        after = rate_game(PARAMETERS, current, game)
        for s in doc["seats"]:
            assert (s["mu"], s["sigma"]) == after[s["account"]]
        current.update(after)
    ledger = Ledger()
    for doc in record["games"]:
        ledger.apply(RatedGame.from_doc(doc))
    assert ledger.games == record["games"]


@pytest.mark.postgres
def test_on_postgresql_live_and_rebuilt_are_byte_identical_and_equal_the_log(
    views: ViewsUnderTest,
) -> None:
    """Production's pairing: events in PostgreSQL (a schema of its own), a
    runner following it live, a rebuild, and the ratings recomputed by the
    log's SQL reader (``ledger_from_log``) all agree."""
    schema = f"opus_test_{uuid.uuid4().hex[:10]}"
    env = {**POSTGRES_ENV, "POSTGRES_SCHEMA": schema}
    with connect_test_postgres() as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    app = Opus(env=env)
    try:
        runner = ProjectionRunner(RatingsView, views.store, opener(env)).start()
        try:
            fill(app)
            end = app.recorder.max_notification_id() or 0
            runner.wait(end, timeout=60)
        finally:
            runner.stop()
            runner.join()
        live = views.store.dump(namespace("ratings", views.store.active_generation("ratings")))
        rebuilt = rebuild(views.store, app, [RatingsView], as_of=end).generation
        assert views.store.dump(namespace("ratings", rebuilt)) == live
        record = Queries(views.store).ratings_record(history=True)
        assert len(record["games"]) == 4
        assert differences(record, ledger_from_log(app)) == []
    finally:
        app.close()
        with connect_test_postgres() as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
