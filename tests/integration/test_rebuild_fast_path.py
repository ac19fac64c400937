"""The rebuild's fast path against the slow one, byte for byte.

A rebuild (and a live runner) reads the log as rows (``select_rows``) and
parses each stored event straight into a record (``EventDecoder``: no
domain event, no mapper), committing batches of thousands. Here the same
log, holding every kind of game and tournament event, is projected also
through the library's interface, one domain event at a time
(``tests.slow_path.project_event``, events made by the library's mapper), and by live
runners catching up; every view must hold the same bytes, on SQLite views
and on Redis views. The move log and the scoreboard are also built by their
former implementations, handlers of domain events (kept below as they
were, but for the move log's text, which is the one describer's:
projections/describe.py), which the views must equal too.
"""

from __future__ import annotations

import random
from datetime import timedelta
from fractions import Fraction
from typing import Any
from uuid import UUID

import orjson
import pytest
from eventsourcing.dispatch import singledispatchmethod
from eventsourcing.persistence import Notification, Tracking

from domain import clock as clock_module
from domain.application import Opus
from domain.bots import BOTS
from domain.clock import Clock
from domain.disclosure import PUBLIC, disclose
from domain.events import (
    EVENT_TYPES,
    CardsDealt,
    CardsDrawn,
    GameCreated,
    GameEnded,
    GameEvent,
    PlayerJoined,
    PlayerLeft,
    PointsAwarded,
    SpellCast,
)
from domain.internals import select_rows
from domain.pipeline import Caller
from domain.ruleset import RuleSet
from domain.simulation import enter_tournament, play_game, play_on, play_out, token_hash, token_of
from domain.tournaments.events import TOURNAMENT_EVENT_TYPES
from projections.base import (
    EventDecoder,
    ViewProjection,
    game_key,
    on,
    read_rows,
    record_of,
    rows_of,
)
from projections.describe import PLAIN, describe, plain
from projections.ports import namespace
from projections.queries import Queries
from projections.rebuild import rebuild, replay
from projections.registry import PROJECTIONS, select
from projections.view import Transaction, View
from tests.conftest import ViewsUnderTest
from tests.integration.test_projections import (
    last_position,
    play_moves,
    run_all,
    start_game,
    stop_all,
    wait_all,
)
from tests.slow_path import decoded, event_of, project_event

SPELLS = {"knowledge", "transformation", "destruction", "transmutation"}


@pytest.fixture
def app(events_env: dict[str, str]) -> Any:
    application = Opus(env=events_env)
    yield application
    application.close()


def fill(app: Opus) -> None:
    """Every kind of event: games of 2 to 6 players in each variant, one with
    a seat removed before the start and one withdrawn during play, a column
    completed, games running and open, and a tournament with teams and a
    constraint, a penalty, a drop, a called game, a corrected result and its
    finish."""
    rng = random.Random(11)
    play_game(app, 2, "random", rng, secret=b"\x11" * 32)
    play_game(app, 4, "greedy", rng, RuleSet(draw="one"), secret=b"\x12" * 32)
    play_game(app, 3, "greedy", rng, RuleSet(guild=False), secret=b"\x13" * 32)
    play_game(app, 5, "random", rng, secret=b"\x14" * 32)
    play_game(app, 6, "greedy", rng, secret=b"\x15" * 32)
    play_game(app, 2, "greedy", random.Random(2), secret=bytes([2]) * 32)  # completes a column
    game = app.create_game(secret=b"\x16" * 32)
    for k, name in enumerate(("Ada", "Boris", "Cleo")):
        app.join(game, name, caller=Caller(str(k) * 64))
    app.remove_seat(game, 1)
    app.join(game, "Dmitri", caller=Caller("3" * 64))
    app.start(game)
    play_moves(app, game, 12, seed=3)
    app.withdraw(game, app.state(game).turn)
    play_moves(app, game, 400, seed=4)
    play_moves(app, start_game(app, 3, 9), 25, seed=9)
    app.join(app.create_game(), "Eva")
    timed_game(app)

    run = enter_tournament(app, 7, 3, seed=5, teams=2, constraints=1)  # T11 (revision 4)
    tournaments = app.tournaments
    tournaments.penalise(run.tournament, 2, Fraction(1, 2), "late", "arbiter")
    tournaments.pair(run.tournament)
    tables = tournaments.get(run.tournament).state.rounds[-1].tables
    tournaments.drop(run.tournament, tables[0].players[0])
    tournaments.call(run.tournament, tables[0].game, "arbiter")
    choose = BOTS["random"](random.Random(5))
    for table in tables:
        hashes = [token_hash(token_of(run.seed, p)) for p in table.players]
        play_out(app, table.game, hashes, choose)
    results = tournaments.get(run.tournament).state.results
    corrected = next(iter(results))
    places = list(results[corrected].places)
    upside_down = [1 + sum(other > mine for other in places) for mine in places]
    tournaments.correct(run.tournament, corrected, upside_down, "reversed", "arbiter")
    play_on(app, run, "random", drop_rate=0.2)


def timed_game(app: Opus) -> None:
    """A timed game (RULES §11): time added, the clocks paused and resumed,
    then a seat's time out (the service's clock set a minute on)."""
    game = app.create_game(RuleSet.timed(Clock(10, 1)), secret=b"\x17" * 32)
    for name in ("Ada", "Boris", "Cleo"):
        app.join(game, name)
    app.start(game)
    app.add_time(game, 1, 5, "a phone call", "arbiter")
    app.pause_clocks(game, "a fire drill", "arbiter")
    app.resume_clocks(game, "the drill is over", "arbiter")
    real = clock_module.now
    later = real() + timedelta(minutes=1)
    clock_module.now = lambda: later  # type: ignore[assignment]
    try:
        app.expire(game)  # seat 0's TimeExpired, its withdrawal for the clock
    finally:
        clock_module.now = real  # type: ignore[assignment]


def assert_every_kind_is_in(app: Opus) -> None:
    events = [app.mapper.to_domain_event(n) for n in app.recorder.select_notifications(0, 10**6)]
    kinds = {type(e).__name__ for e in events}
    assert kinds >= set(EVENT_TYPES) | set(TOURNAMENT_EVENT_TYPES)
    assert {e.kind for e in events if isinstance(e, SpellCast)} == SPELLS


def one_event_at_a_time(
    app: Opus, views: ViewsUnderTest, classes: list[type[ViewProjection]], generation: str
) -> None:
    """Through the library's interface: domain events made by its mapper,
    ``project_event`` for each; the first ones in a transaction each, the
    others in batches of a few (as a live runner's)."""
    notifications = app.recorder.select_notifications(0, 10**6)
    for cls in classes:
        projection = cls(View(views.store, cls.name, generation, fresh=True))
        for start in range(0, len(notifications), 37):
            batch = notifications[start : start + 37]
            if start < 300:
                for n in batch:
                    project_event(projection, app.mapper.to_domain_event(n), Tracking("Opus", n.id))
                continue
            with projection.view.batch():
                for n in batch:
                    project_event(projection, app.mapper.to_domain_event(n), Tracking("Opus", n.id))


def dumps(views: ViewsUnderTest, generation: str) -> dict[str, Any]:
    return {name: views.store.dump(namespace(name, generation)) for name in PROJECTIONS}


def test_the_fast_path_gives_the_bytes_of_one_event_at_a_time_and_of_live_runners(
    app: Opus, events_env: dict[str, str], views: ViewsUnderTest
) -> None:
    fill(app)
    assert_every_kind_is_in(app)
    end = last_position(app)
    fast = dumps(views, rebuild(views.store, app, select([]), as_of=end).generation)
    assert all(dump["tracking"] == {"Opus": end} for dump in fast.values())
    assert fast["move_log"] and fast["tournaments"] and fast["table"]

    one_event_at_a_time(app, views, list(PROJECTIONS.values()), "slow")
    slow = dumps(views, "slow")
    for name in PROJECTIONS:
        assert slow[name] == fast[name], name

    runners = run_all(views, events_env)  # they catch up from nothing, in batches
    try:
        wait_all(runners, end)
    finally:
        stop_all(runners)
    live = {name: views.store.dump(namespace(name, "g0")) for name in PROJECTIONS}
    for name in PROJECTIONS:
        assert live[name] == fast[name], name


def test_the_move_log_and_the_scoreboard_equal_their_former_implementations(
    app: Opus, views: ViewsUnderTest
) -> None:
    fill(app)
    end = last_position(app)
    fast = rebuild(views.store, app, select(["move_log", "scoreboard"]), as_of=end).generation
    former: list[ViewProjection] = [
        cls(View(views.store, cls.name, "former", fresh=True))
        for cls in (FormerMoveLog, FormerScoreboard)
    ]
    replay(app, former, 0, end)
    then = views.store.dump(namespace("scoreboard", "former"))
    assert then == views.store.dump(namespace("scoreboard", fast))
    # the move log, as its query serves it: the former stored each entry's
    # text, made with the seating as it stood at the entry's event; the text
    # is now rendered on read, with the game's seating
    queries = Queries(views.store)
    logs = views.store.dump(namespace("move_log", "former"))
    games = [key.removeprefix("list ") for key in logs if key.startswith("list ")]
    assert len(games) > 10
    for game in games:
        served = queries.move_log(game, generation=fast)
        assert served == [orjson.loads(item) for item in logs[f"list {game}"]], game
        since = len(served) // 2
        assert queries.move_log(game, since=since, generation=fast) == served[since:], game


# ---- decoding -------------------------------------------------------------------


def test_rows_are_what_select_notifications_reads(app: Opus) -> None:
    play_moves(app, start_game(app, 3, 21), 30, seed=21)
    topics = ["domain.events:CardsDrawn", "domain.events:TurnEnded"]
    for after, limit, stop, only in ((0, 1000, 10**6, []), (5, 7, 40, []), (3, 50, 90, topics)):
        rows = select_rows(app, after, limit, stop, only)
        notifications = app.recorder.select_notifications(
            after, limit, stop, only, inclusive_of_start=False
        )
        assert rows is not None and len(rows) == len(notifications) > 0
        decoder = EventDecoder(app.mapper)
        for row, n in zip(rows, notifications, strict=True):
            assert row[0] == n.id and row[2:] == (n.originator_version, n.topic, n.state)
            assert isinstance(n.originator_id, UUID) and str(n.originator_id) == str(
                UUID(str(row[1]))
            )
            assert decoder.decode([row])[0] == decoder.decode(rows_of([n]), text_ids=False)[0]
    assert select_rows(Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}), 0, 10, 10) is None


def test_a_store_without_sql_is_read_from_its_notifications_to_the_same_records(
    app: Opus,
) -> None:
    """``read_rows``: SQL where the store has it, else its notifications;
    the records decoded from either are the same."""
    memory = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    for application in (app, memory):
        play_moves(application, start_game(application, 3, 51), 20, seed=51)
    topics = ["domain.events:CardsDrawn", "domain.events:PointsAwarded"]
    read = {}
    for name, application in (("sql", app), ("memory", memory)):
        rows, text_ids = read_rows(application, 3, 40, 10**6, topics)
        assert text_ids is (name == "sql")
        assert rows and {row[3] for row in rows} <= set(topics)
        records, error = EventDecoder(application.mapper).decode(rows, text_ids=text_ids)
        assert error is None
        assert all(record[2] == str(record[3]["originator_id"]) for record in records)
        # the same game in two stores: all but its id, times, command ids and chain
        same = {"originator_id", "timestamp", "command", "chain"}
        read[name] = [
            (row[0], record[1], {k: v for k, v in record[3].items() if k not in same})
            for row, record in zip(rows, records, strict=True)
        ]
    assert read["sql"] == read["memory"]


def stored(app: Opus, n: Notification, state: dict[str, Any]) -> Notification:
    return Notification(
        id=n.id,
        originator_id=n.originator_id,
        originator_version=n.originator_version,
        topic=n.topic,
        state=orjson.dumps(state),
    )


def test_what_the_decoder_does_not_parse_itself_goes_through_the_mapper(app: Opus) -> None:
    """A record is the record of the event the library's mapper decodes,
    whatever the stored state: a timestamp not as ``isoformat`` writes it
    (then ``isoformat`` of what the mapper reads), a value of another
    transcoded type, an aggregate id that is not a UUID."""
    play_moves(app, start_game(app, 2, 31), 5, seed=31)
    decoder = EventDecoder(app.mapper)
    n = app.recorder.select_notifications(0, 10)[-1]
    state = orjson.loads(n.state)
    stamp = state["timestamp"]["_data_"]
    variants = {
        "as stored": state,
        "in Z": {**state, "timestamp": {**state["timestamp"], "_data_": stamp[:-6] + "Z"}},
        "no microseconds": {
            **state,
            "timestamp": {**state["timestamp"], "_data_": stamp[:19] + "+00:00"},
        },
        "zero microseconds": {
            **state,
            "timestamp": {**state["timestamp"], "_data_": stamp[:19] + ".000000+00:00"},
        },
        "in another zone": {
            **state,
            "timestamp": {**state["timestamp"], "_data_": stamp[:-6] + "+02:00"},
        },
        "another transcoded value": {
            **state,
            "command": {"_type_": "uuid_hex", "_data_": "0" * 32},
        },
    }
    for label, variant in variants.items():
        made = stored(app, n, variant)
        record = decoded(decoder, made)
        assert record == record_of(app.mapper.to_domain_event(made)), label
        cls, kind, _, fields = record
        assert type(event_of(cls, fields)) is cls and kind == cls.__name__, label
    timestamps = {
        label: decoded(decoder, stored(app, n, v))[3]["timestamp"] for label, v in variants.items()
    }
    whole = stamp[:19] + "+00:00"
    assert timestamps == {
        "as stored": stamp,
        "in Z": stamp,
        "no microseconds": whole,
        "zero microseconds": whole,
        "in another zone": stamp[:-6] + "+02:00",
        "another transcoded value": stamp,
    }


# ---- the former implementations, as they were (handlers of domain events) ----------


def entry(event: Any, position: int, names: list[str]) -> dict[str, Any]:
    event_type = type(event).__name__
    made = {
        "position": position,
        "version": event.originator_version,
        "event": event_type,
        "timestamp": event.timestamp.isoformat(),
        **disclose(event_type, vars(event), PUBLIC, ended=False),
    }
    made["text"] = plain(describe(made, names, PLAIN))
    return made


class OnDomainEvents(ViewProjection):
    """The former form of a projection: a ``singledispatchmethod``
    ``project(event, tx, position)`` on domain events, each made from its
    record as the library's mapper makes it (``event_of``)."""

    @on(object)
    def _any(self, kind: str, key: str, fields: Any, tx: Transaction, position: int) -> None:
        self.project(event_of(CLASSES[kind], fields), tx, position)

    @singledispatchmethod
    def project(self, event: Any, tx: Transaction, position: int) -> None:
        """Events it does not read."""


CLASSES = {**EVENT_TYPES, **TOURNAMENT_EVENT_TYPES}


class FormerMoveLog(OnDomainEvents):
    name = "move_log"

    @singledispatchmethod
    def project(self, event: Any, tx: Transaction, position: int) -> None:
        """Events of other aggregates are not moves."""

    def log(self, tx: Transaction, event: Any, position: int) -> None:
        names = self.names(tx, event)
        tx.append(game_key(event.originator_id), entry(event, position, names))

    def seal(self, tx: Transaction, event: Any, position: int) -> None:
        game = game_key(event.originator_id)
        names = self.names(tx, event)
        public = entry(event, position, names)
        tx.append(game, public)
        revealed = {**public, **disclose(type(event).__name__, vars(event), PUBLIC, ended=True)}
        revealed["text"] = plain(describe(revealed, names, PLAIN))
        sealed: dict[str, Any] = tx.doc(f"{game}:sealed", {})
        sealed[str(event.originator_version - 1)] = revealed

    @staticmethod
    def names(tx: Transaction, event: Any) -> list[str]:
        names: list[str] = tx.peek(f"{game_key(event.originator_id)}:names") or []
        return names

    @project.register
    def _created(self, event: GameCreated, tx: Transaction, position: int) -> None:
        self.seal(tx, event, position)

    @project.register
    def _joined(self, event: PlayerJoined, tx: Transaction, position: int) -> None:
        tx.doc(f"{game_key(event.originator_id)}:names", []).append(event.name)
        self.log(tx, event, position)

    @project.register
    def _left(self, event: PlayerLeft, tx: Transaction, position: int) -> None:
        self.log(tx, event, position)
        names: list[str] = tx.doc(f"{game_key(event.originator_id)}:names", [])
        del names[event.player]

    @project.register
    def _dealt(self, event: CardsDealt, tx: Transaction, position: int) -> None:
        self.seal(tx, event, position)

    @project.register
    def _drawn(self, event: CardsDrawn, tx: Transaction, position: int) -> None:
        self.seal(tx, event, position)

    @project.register
    def _logged(self, event: GameEvent, tx: Transaction, position: int) -> None:
        self.log(tx, event, position)

    @project.register
    def _ended(self, event: GameEnded, tx: Transaction, position: int) -> None:
        self.log(tx, event, position)
        game = game_key(event.originator_id)
        sealed: dict[str, Any] = tx.peek(f"{game}:sealed") or {}
        for index, full in sorted(sealed.items(), key=lambda item: int(item[0])):
            tx.replace(game, int(index), full)
        tx.delete(f"{game}:sealed")
        tx.delete(f"{game}:names")


class FormerScoreboard(OnDomainEvents):
    name = "scoreboard"

    @singledispatchmethod
    def project(self, event: Any, tx: Transaction, position: int) -> None:
        """Other events only move the position."""

    @project.register
    def _joined(self, event: PlayerJoined, tx: Transaction, position: int) -> None:
        game = game_key(event.originator_id)
        tx.append(f"{game}:players", event.name)
        tx.incr(f"{game}:totals", str(event.player), 0)

    @project.register
    def _left(self, event: PlayerLeft, tx: Transaction, position: int) -> None:
        game = game_key(event.originator_id)
        tx.rewrite(f"{game}:players", list(event.names))
        tx.zremove(f"{game}:totals", str(len(event.names)))

    @project.register
    def _awarded(self, event: PointsAwarded, tx: Transaction, position: int) -> None:
        game = game_key(event.originator_id)
        tx.incr(f"{game}:totals", str(event.player), event.points)
        award: dict[str, Any] = {
            "seat": event.player,
            "points": event.points,
            "rule": event.rule,
            "cause": event.cause,
            "cause_version": event.cause_version,
            "version": event.originator_version,
            "position": position,
        }
        tx.append(f"{game}:awards", award)
