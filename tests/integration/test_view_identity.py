"""No view holds an identity field (domain/disclosure.py): after a game and a
tournament are projected, every projection of projections/registry.py, on
SQLite views and on Redis views, is searched, every stored key and value,
for the value of every identity field of every event in the log (token
hashes, command ids), each event class's own ``identity`` declaration
naming them. The one view made to hold some is ``seats`` (never served):
the token hashes of PlayerJoined, for ``/hand`` to find a caller's seat,
and nothing else.

The commands are sent with tokens and command ids, so that every identity
field has a value to look for."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from fractions import Fraction
from typing import Any
from uuid import UUID

import pytest

from domain.application import Opus
from domain.bots import BOTS
from domain.pipeline import Caller
from projections.ports import namespace
from projections.rebuild import rebuild
from projections.registry import PROJECTIONS, select
from tests.conftest import ViewsUnderTest

IdentityValue = tuple[str, str, str]  # (event type, field, value)


@pytest.fixture
def app(events_env: dict[str, str]) -> Iterator[Opus]:
    application = Opus(env=events_env)
    yield application
    application.close()


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class Ids:
    """A fresh command id for each command, as the API makes them ("<key>:<request>")."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, token_hash: str) -> Caller:
        self.count += 1
        key = digest(f"view identity command {self.count}")
        return Caller(token_hash, f"{key[:32]}:{key[32:48]}")


def play(app: Opus, game: UUID, hashes: list[str], ids: Ids, rng: random.Random) -> None:
    """The game to its end, every move by its seat's token under a command id."""
    choose = BOTS["greedy"](rng)
    state = app.state(game)
    while state.status == "running":
        app.play(game, choose(state, state.turn), caller=ids(hashes[state.turn]))
        state = app.state(game)


def a_game(app: Opus, ids: Ids, rng: random.Random) -> None:
    organiser = digest("game organiser")
    game = app.create(caller=ids(organiser), secret=bytes([7]) * 32).aggregate_id
    hashes = [digest(f"game seat {k}") for k in range(3)]
    for k, token_hash in enumerate(hashes):
        app.join(game, f"Seat{k}", f"c{k}", caller=ids(token_hash))
    app.start(game, caller=ids(organiser))
    play(app, game, hashes, ids, rng)


def a_tournament(app: Opus, ids: Ids, rng: random.Random) -> None:
    """Seven players at tables of 4–5 (byes), two rounds, a drop, a
    correction and a penalty, finished: every tournament event."""
    t = app.tournaments
    organiser = digest("tournament organiser")
    tournament = t.create(
        "Identities", caller=ids(organiser), sizes=(4, 4, 5), rounds=2, secret=bytes(32)
    ).aggregate_id
    hashes = {n: digest(f"tournament player {n}") for n in range(1, 8)}
    for n, token_hash in hashes.items():
        t.register(tournament, f"P{n}", f"c{n}", caller=ids(token_hash))
    for _ in range(2):
        t.pair(tournament, caller=ids(organiser))
        for seat in t.get(tournament).state.rounds[-1].tables:
            play(app, seat.game, [hashes[p] for p in seat.players], ids, rng)
        if t.get(tournament).state.paired == 1:
            t.drop(tournament, 7, caller=ids(hashes[7]))
    first = t.get(tournament).state.rounds[0].tables[0]
    places = list(range(1, len(first.players) + 1))
    t.correct(tournament, first.game, places, "slip", "Arbiter", caller=ids(organiser))
    t.penalise(tournament, 2, Fraction(1, 2), "late", "Arbiter", caller=ids(organiser))
    t.finish(tournament, caller=ids(organiser))


def is_identity(event: Any, name: str) -> bool:
    """An identity field: one its class declares, or one that holds what
    identity fields hold (a token hash, a command id), whether declared or
    not: a declaration that leaves one out is what this test is for."""
    return name in type(event).identity or name == "command" or name.endswith("_hash")


def identity_values(app: Opus) -> list[IdentityValue]:
    """Every identity field's value of every event in the log."""
    found: list[IdentityValue] = []
    for notification in app.recorder.select_notifications(0, 1_000_000):
        event: Any = app.mapper.to_domain_event(notification)
        for name, value in vars(event).items():
            if value and is_identity(event, name):
                found.append((type(event).__name__, name, value))
    return found


def stored_text(views: ViewsUnderTest, ns: str) -> str:
    """Every key and value stored under a namespace, as one text."""
    return json.dumps(views.store.dump(ns), sort_keys=True, ensure_ascii=False)


def test_no_view_holds_an_identity_field_of_any_event(app: Opus, views: ViewsUnderTest) -> None:
    ids, rng = Ids(), random.Random(11)
    a_game(app, ids, rng)
    a_tournament(app, ids, rng)
    values = identity_values(app)
    kinds = {(kind, name) for kind, name, _ in values}
    for needed in [
        ("GameCreated", "organiser_hash"),
        ("PlayerJoined", "token_hash"),
        ("PlayerJoined", "command"),
        ("TournamentCreated", "organiser_hash"),
        ("PlayerRegistered", "token_hash"),
        ("PlayerRegistered", "command"),
        ("RoundPaired", "command"),
        ("PlayerDropped", "command"),
        ("ResultCorrected", "command"),
        ("PenaltyGiven", "command"),
        ("TournamentFinished", "command"),
    ]:
        assert needed in kinds, needed  # every kind of identity value is looked for
    rebuild(views.store, app, select([]))
    spaces = {name: namespace(name, views.store.active_generation(name)) for name in PROJECTIONS}
    assert set(spaces.values()) == set(views.store.namespaces())  # nothing stored elsewhere
    seated = {
        value for kind, name, value in values if (kind, name) == ("PlayerJoined", "token_hash")
    }
    for name, ns in spaces.items():
        text = stored_text(views, ns)
        allowed = seated if name == "seats" else set()
        held = [
            (kind, field) for kind, field, value in values if value in text and value not in allowed
        ]
        assert not held, f"the {name} view holds identity fields: {sorted(set(held))}"
    seats = stored_text(views, spaces["seats"])
    assert seated and all(value in seats for value in seated)  # the view it is made for
