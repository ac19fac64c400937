"""A seat's turn offer on its own stream (api/turn_offers.py): its hand and
its legal moves when its turn comes, to that seat alone
(``domain.disclosure.sees_turn_offer``). Other seats, the organiser and the
public (no token) never receive one, nor a card they may not know; a seat
stream's offers are the GET of legal moves' answer and the seat's hand at
their version; through Redis, a seat's channel reaches only its own
subscriptions."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.disclosure import AUDITOR, ORGANISER, PUBLIC, Audience, seat, sees_turn_offer
from infra.broker import RedisBroker, seat_key
from tests.apps import embedded_app
from tests.conftest import REDIS_URL
from tests.leaks import Knowledge, card_ids
from tests.redis_keys import drop_prefix
from tests.sse import data, fields, sse_messages

MOVES = 16


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    application = embedded_app(tmp_path, run_projections=False)
    yield application
    application.extensions["opus"].close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Stream:
    """A stream read message by message, as far as the test asks."""

    def __init__(self, client: FlaskClient, game_id: str, token: str | None) -> None:
        headers = bearer(token) if token else {}
        self.response = client.get(f"/games/{game_id}/events", headers=headers, buffered=False)
        assert self.response.status_code == 200
        self.messages = sse_messages(self.response.response)
        self.events: list[dict[str, Any]] = []
        self.offers: list[dict[str, Any]] = []

    def read_until(self, done: Any) -> None:
        """Read messages until ``done()``; a keepalive (15 s without one) fails."""
        while not done():
            message = next(self.messages)
            assert not message.startswith(": keepalive"), "nothing came"
            kind = fields(message).get("event")
            if kind == "turn":
                assert "id" not in fields(message)  # no event of the log: no Last-Event-ID
                self.offers.append(data(message))
            elif kind != "checkpoint":
                self.events.append(data(message))

    def version(self) -> int:
        return self.events[-1]["version"] if self.events else 0

    def close(self) -> None:
        self.response.close()


def new_game(client: FlaskClient) -> tuple[str, str, list[str]]:
    created = client.post("/games", json={}).json
    game_id, organiser = created["game_id"], created["organiser_token"]
    tokens = [
        client.post(f"/games/{game_id}/players", json={"name": n}).json["token"]
        for n in ("Ada", "Boris")
    ]
    return game_id, organiser, tokens


def test_each_seat_hears_its_own_offers_and_no_one_else_hears_any(app: Flask) -> None:
    client = app.test_client()
    service = app.extensions["opus"].opus
    game_id, organiser, tokens = new_game(client)
    seats = [Stream(client, game_id, token) for token in tokens]
    others = {
        ORGANISER: Stream(client, game_id, organiser),
        PUBLIC: Stream(client, game_id, None),
    }
    started = client.post(f"/games/{game_id}/start", headers=bearer(organiser)).json
    rng = random.Random(4)
    version = started["version"]
    used = [0, 0]  # the version of the offer each seat moved on
    try:
        for _ in range(MOVES):
            state = service.state(UUID(game_id))
            if state.status != "running":
                break
            k = state.turn
            mine = seats[k]
            mine.read_until(lambda s=mine, k=k: any(o["version"] > used[k] for o in s.offers))
            offer = next(o for o in mine.offers if o["version"] > used[k])
            # the offer is the state at its version: the seat's hand, the GET's moves
            assert offer["seat"] == k and offer["version"] == version
            assert offer["hand"] == state.hands[k]
            legal = client.get(f"/games/{game_id}/legal-moves", headers=bearer(tokens[k])).json
            assert offer["moves"] == legal["moves"] and offer["version"] == legal["version"]
            assert offer["moves"], "an offer at a running game's turn has a move (R3.3)"
            move = rng.choice(offer["moves"])
            answer = client.post(move["path"], json=move["body"], headers=bearer(tokens[k]))
            assert answer.status_code == 201, answer.json
            used[k], version = offer["version"], answer.json["version"]
        assert version > started["version"] + 5
        for stream in [*seats, *others.values()]:
            stream.read_until(lambda s=stream: s.version() >= version)
    finally:
        for stream in [*seats, *others.values()]:
            stream.close()
    knows = Knowledge(list(service.repository.event_store.get(UUID(game_id))))
    for k, stream in enumerate(seats):
        assert stream.offers and {o["seat"] for o in stream.offers} == {k}
        assert not card_ids(stream.offers) & knows.unknown(seat(k))
        assert not card_ids(stream.events) & knows.unknown(seat(k))
        # each offer once, in order
        versions = [o["version"] for o in stream.offers]
        assert versions == sorted(set(versions))
    for audience, stream in others.items():
        assert stream.offers == [], audience
        assert not card_ids(stream.events) & knows.unknown(audience)
    # every stream carried every event, once, in order
    for stream in [*seats, *others.values()]:
        assert [e["version"] for e in stream.events] == list(range(1, version + 1))


def test_a_seat_stream_opened_at_its_turn_starts_with_its_offer(app: Flask) -> None:
    """The offer published before the stream opened is not lost: the stream
    reads it from the game as it opens."""
    client = app.test_client()
    game_id, organiser, tokens = new_game(client)
    started = client.post(f"/games/{game_id}/start", headers=bearer(organiser)).json
    first = Stream(client, game_id, tokens[0])
    second = Stream(client, game_id, tokens[1])
    try:
        first.read_until(lambda: bool(first.offers))
        assert first.offers[0]["seat"] == 0 and first.offers[0]["version"] == started["version"]
        assert first.version() == started["version"]  # after the events it follows
        second.read_until(lambda: second.version() >= started["version"])
        assert second.offers == []
    finally:
        first.close()
        second.close()


def test_a_seat_stream_ends_when_the_seats_move_down(app: Flask) -> None:
    """Before the start, a removal moves the seats after it down (R2.1): a
    seat stream ends after the PlayerLeft, so that its client, reconnecting,
    is found at its new seat and never hears another seat's offers."""
    client = app.test_client()
    game_id, organiser, tokens = new_game(client)
    stream = Stream(client, game_id, tokens[1])
    public = Stream(client, game_id, None)
    try:
        removed = client.post(
            f"/games/{game_id}/remove-seat", json={"seat": 0}, headers=bearer(organiser)
        )
        assert removed.status_code == 200, removed.json
        stream.read_until(lambda: stream.version() >= removed.json["version"])
        assert stream.events[-1]["type"] == "PlayerLeft"
        with pytest.raises(StopIteration):
            next(stream.messages)
        public.read_until(lambda: public.version() >= removed.json["version"])
    finally:
        stream.close()
        public.close()


def test_a_token_that_is_no_bearer_is_a_401_and_opens_no_stream(app: Flask) -> None:
    client = app.test_client()
    game_id, _, _ = new_game(client)
    answer = client.get(f"/games/{game_id}/events", headers={"Authorization": "Basic abc"})
    assert answer.status_code == 401
    assert "Bearer" in answer.json["message"]
    assert app.extensions["opus"].streams.open == 0


def test_only_the_offered_seat_sees_its_offer() -> None:
    audiences: list[Audience] = [PUBLIC, ORGANISER, AUDITOR, seat(0), seat(1), seat(2)]
    for offered_to in range(3):
        assert [a for a in audiences if sees_turn_offer(a, offered_to)] == [seat(offered_to)]


def test_a_seats_channel_reaches_only_its_own_subscriptions_through_redis() -> None:
    prefix = f"opus-test:{uuid.uuid4().hex[:8]}:"
    broker = RedisBroker(REDIS_URL, prefix)
    game = str(uuid.uuid4())
    try:
        with (
            broker.subscribe(game) as public,
            broker.subscribe(game, seat_key(game, 0)) as seat0,
            broker.subscribe(game, seat_key(game, 1)) as seat1,
        ):
            broker.publish(game, '{"version": 1}')
            broker.publish(seat_key(game, 0), '{"seat": 0}')
            broker.publish(game, '{"version": 2}')
            assert [public.get(timeout=5), public.get(timeout=5)] == [
                '{"version": 1}',
                '{"version": 2}',
            ]
            # in the order published, across the two channels
            assert [seat0.get(timeout=5) for _ in range(3)] == [
                '{"version": 1}',
                '{"seat": 0}',
                '{"version": 2}',
            ]
            assert [seat1.get(timeout=5), seat1.get(timeout=5)] == [
                '{"version": 1}',
                '{"version": 2}',
            ]
            for subscription in (public, seat0, seat1):
                assert subscription.get(timeout=0.3) is None
    finally:
        broker.close()
        drop_prefix(REDIS_URL, prefix)


def test_what_is_published_together_is_heard_at_the_end_in_order() -> None:
    """A save's messages (its events, its checkpoint, the next seat's offer)
    are held while the publishers run and sent in one round trip after."""
    prefix = f"opus-test:{uuid.uuid4().hex[:8]}:"
    broker = RedisBroker(REDIS_URL, prefix)
    game = str(uuid.uuid4())
    try:
        with broker.subscribe(game, seat_key(game, 1)) as heard:
            with broker.together():
                broker.publish(game, "event 1", "event 2")
                broker.publish(seat_key(game, 1), "offer")
                assert heard.get(timeout=0.3) is None  # held
            assert [heard.get(timeout=5) for _ in range(3)] == ["event 1", "event 2", "offer"]
            assert heard.get(timeout=0.3) is None
    finally:
        broker.close()
        drop_prefix(REDIS_URL, prefix)
