"""The HTTP commands on a real SQLite event store, through the Flask app."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.catalog import load_catalog
from domain.disclosure import hidden_fields
from tests.apps import embedded_app
from tests.moves_http import kind_of
from tests.sse import sse_messages


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    flask_app = embedded_app(tmp_path, run_projections=False)
    yield flask_app
    flask_app.extensions["opus"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(client: FlaskClient, players: int = 2) -> tuple[str, str, list[str]]:
    created = client.post("/games", json={})
    assert created.status_code == 201
    game_id, organiser = created.json["game_id"], created.json["organiser_token"]
    tokens = []
    for i in range(players):
        joined = client.post(f"/games/{game_id}/players", json={"name": f"P{i}"})
        assert joined.status_code == 201 and joined.json["seat"] == i
        tokens.append(joined.json["token"])
    started = client.post(f"/games/{game_id}/start", headers=bearer(organiser))
    assert started.status_code == 200, started.json
    return game_id, organiser, tokens


def opus(app: Flask) -> Any:
    return app.extensions["opus"].opus


def discardable(app: Flask, game_id: str, seat: int) -> int:
    """A card in the seat's hand that may be discarded (not a Stone, R4.1)."""
    hand = opus(app).state(UUID(game_id)).hands[seat]
    return next(c for c in hand if load_catalog().card(c).stone is None)


def test_every_error_has_one_shape(client: FlaskClient) -> None:
    game_id, _, tokens = new_game(client)
    answers = {
        422: client.post(
            f"/games/{game_id}/discard", json={"card": "x"}, headers=bearer(tokens[0])
        ),
        404: client.post(f"/games/{'0' * 8}-0000-0000-0000-{'0' * 12}/players", json={"name": "A"}),
        401: client.post(f"/games/{game_id}/pass", json={}),
        403: client.post(f"/games/{game_id}/pass", json={}, headers=bearer("not-a-seat")),
        409: client.post(f"/games/{game_id}/pass", json={}, headers=bearer(tokens[0])),
    }
    for status, response in answers.items():
        assert response.status_code == status, response.json
        assert set(response.json) == {"code", "status", "message", "errors", "rule"}
        assert response.json["code"] == status
    assert "card" in answers[422].json["message"]
    assert answers[409].json["rule"] == "R3.3"
    assert answers[409].json["message"].startswith("R3.3:")


def test_a_seat_plays_only_with_its_own_token_and_only_on_its_turn(app: Flask) -> None:
    client = app.test_client()
    game_id, _, tokens = new_game(client)
    card = discardable(app, game_id, 0)
    version = opus(app).version(UUID(game_id))
    other = client.post(f"/games/{game_id}/discard", json={"card": card}, headers=bearer(tokens[1]))
    assert other.status_code == 403 and other.json["rule"] == "R3.4"
    moves = client.get(f"/games/{game_id}/legal-moves", headers=bearer(tokens[1]))
    assert moves.status_code == 200 and moves.json["seat"] == 1 and moves.json["moves"] == []
    assert moves.json["reason"] == "R3.4: it is P0's turn, not P1's"
    offered = client.get(f"/games/{game_id}/legal-moves", headers=bearer(tokens[0])).json
    assert offered["reason"] is None and offered["moves"]
    for request in offered["moves"]:  # each is a request the API takes as it is
        assert request["method"] == "POST" and request["path"].startswith(f"/games/{game_id}/")
    assert opus(app).version(UUID(game_id)) == version
    chosen = next(m for m in offered["moves"] if m["body"] == {"card": card})
    mine = client.post(chosen["path"], json=chosen["body"], headers=bearer(tokens[0]))
    assert mine.status_code == 201 and mine.json["version"] > version


def test_tokens_are_stored_only_as_hashes(app: Flask) -> None:
    client = app.test_client()
    game_id, organiser, tokens = new_game(client)
    exported = client.get(f"/games/{game_id}/export").get_data(as_text=True)
    for token in [organiser, *tokens]:
        assert token not in exported


def test_an_idempotency_key_returns_the_first_response_and_applies_once(app: Flask) -> None:
    client = app.test_client()
    game_id, _, tokens = new_game(client)
    card = discardable(app, game_id, 0)
    headers = {**bearer(tokens[0]), "Idempotency-Key": "discard-1"}
    first = client.post(f"/games/{game_id}/discard", json={"card": card}, headers=headers)
    version = opus(app).version(UUID(game_id))
    second = client.post(f"/games/{game_id}/discard", json={"card": card}, headers=headers)
    assert first.status_code == second.status_code == 201
    assert first.json["replayed"] is False
    assert second.json == {**first.json, "replayed": True}  # the first answer, as a replay's
    assert second.headers["Idempotent-Replayed"] == "true"
    assert opus(app).version(UUID(game_id)) == version
    # Without the cached response the domain still refuses to apply it twice.
    app.extensions["opus"].responses._items.clear()
    third = client.post(f"/games/{game_id}/discard", json={"card": card}, headers=headers)
    assert third.status_code == 201 and third.json["replayed"] is True
    assert opus(app).version(UUID(game_id)) == version


def test_if_match_with_a_stale_version_is_a_clash(app: Flask) -> None:
    client = app.test_client()
    game_id, _, tokens = new_game(client)
    card = discardable(app, game_id, 0)
    stale = client.post(
        f"/games/{game_id}/discard",
        json={"card": card},
        headers={**bearer(tokens[0]), "If-Match": '"1"'},
    )
    assert stale.status_code == 409 and "version" in stale.json["message"]
    version = opus(app).version(UUID(game_id))
    fresh = client.post(
        f"/games/{game_id}/discard",
        json={"card": card},
        headers={**bearer(tokens[0]), "If-Match": f'"{version}"'},
    )
    assert fresh.status_code == 201


def test_concurrent_clients_each_command_lands_once(app: Flask) -> None:
    """Many clients send the same seat's legal moves at once, with If-Match:
    exactly one wins per version; the others get 409 and nothing twice."""
    game_id, _, tokens = new_game(app.test_client(), players=3)
    accepted: list[int] = []
    clashes: list[int] = []
    lock = threading.Lock()

    def client_loop(k: int) -> None:
        client = app.test_client()
        for _ in range(6):
            version = opus(app).version(UUID(game_id))
            seat = opus(app).state(UUID(game_id)).turn
            moves = client.get(f"/games/{game_id}/legal-moves", headers=bearer(tokens[seat]))
            options = [m for m in moves.json["moves"] if kind_of(m) == "discard"]
            if not options:
                return
            m = options[k % len(options)]
            r = client.post(
                m["path"],
                json=m["body"],
                headers={
                    **bearer(tokens[seat]),
                    "If-Match": f'"{version}"',
                    "Idempotency-Key": f"client-{k}-{version}",
                },
            )
            with lock:
                if r.status_code == 201 and not r.json["replayed"]:
                    accepted.append(r.json["version"])
                elif r.status_code in (409, 403):
                    clashes.append(r.status_code)
                else:
                    raise AssertionError((r.status_code, r.json))

    threads = [threading.Thread(target=client_loop, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = list(opus(app).repository.event_store.get(UUID(game_id)))
    discards = [e for e in events if type(e).__name__ == "CardDiscarded"]
    assert len(discards) == len(accepted) > 0
    assert len(set(accepted)) == len(accepted)
    commands = [e.command for e in discards]
    assert len(set(commands)) == len(commands), "no command applied twice"


def test_the_public_stream_carries_no_hidden_card(app: Flask) -> None:
    client = app.test_client()
    game_id, _, _ = new_game(client)
    state = opus(app).state(UUID(game_id))
    hidden = {c for hand in state.hands for c in hand} | set(state.deck)
    response = client.get(f"/games/{game_id}/events", buffered=False)
    assert response.mimetype == "text/event-stream"
    chunks = response.response
    messages = []
    for text in sse_messages(chunks):
        if text.startswith("id:"):
            data = json.loads(text.split("data: ", 1)[1])
            messages.append(data)
            if data["version"] == opus(app).version(UUID(game_id)):
                break
    response.close()
    assert [m["version"] for m in messages] == list(range(1, len(messages) + 1))
    for m in messages:
        for name in hidden_fields(m["type"]):
            assert m["payload"][name].startswith("sealed:")
        assert state.secret not in json.dumps(m)
        cards_shown = {
            c
            for k, v in m["payload"].items()
            if k in ("card", "cards")
            for c in (v if isinstance(v, list) else [v])
            if isinstance(c, int)
        }
        assert not (cards_shown & hidden)


def test_request_bodies_are_bounded(client: FlaskClient) -> None:
    game_id, _, _ = new_game(client)
    response = client.post(
        f"/games/{game_id}/players",
        data=json.dumps({"name": "x" * 100_000}),
        content_type="application/json",
    )
    assert response.status_code == 413
    assert response.json["code"] == 413


def test_a_join_retried_with_its_key_never_hands_out_the_token_again(app: Flask) -> None:
    """Tokens are shown once: not to a retry, and never to a stranger who
    learnt the key."""
    client = app.test_client()
    game_id = client.post("/games", json={}).json["game_id"]
    headers = {"Idempotency-Key": "join-ada"}
    first = client.post(f"/games/{game_id}/players", json={"name": "Ada"}, headers=headers)
    again = client.post(f"/games/{game_id}/players", json={"name": "Ada"}, headers=headers)
    assert first.json["token"] and again.json["token"] is None
    assert again.json["replayed"] is True
    assert opus(app).state(UUID(game_id)).names == ["Ada"]
    exported = client.get(f"/games/{game_id}/export").get_data(as_text=True)
    assert "join-ada" not in exported and first.json["token"] not in exported


def test_one_seats_key_never_answers_for_another_seats_move(app: Flask) -> None:
    client = app.test_client()
    game_id, _, tokens = new_game(client)
    mine = discardable(app, game_id, 0)
    first = client.post(
        f"/games/{game_id}/discard",
        json={"card": mine},
        headers={**bearer(tokens[0]), "Idempotency-Key": "k1"},
    )
    assert first.status_code == 201
    theirs = discardable(app, game_id, 1)
    second = client.post(
        f"/games/{game_id}/discard",
        json={"card": theirs},
        headers={**bearer(tokens[1]), "Idempotency-Key": "k1"},
    )
    assert second.status_code == 201 and second.json["replayed"] is False
    assert second.json["version"] > first.json["version"]


def test_an_unknown_games_export_is_not_found(client: FlaskClient) -> None:
    response = client.get(f"/games/{'1' * 8}-0000-0000-0000-{'0' * 12}/export")
    assert response.status_code == 404 and response.json["code"] == 404


def test_one_error_path_answers_every_http_error(app: Flask) -> None:
    """The service's own handler, not flask-smorest's, answers HTTP errors."""
    from werkzeug.exceptions import HTTPException

    handlers = app.error_handler_spec[None]
    registered = [h for by_class in handlers.values() for h in by_class.values()]
    assert all(h.__module__ == "api.errors" for h in registered), registered
    assert handlers[None][HTTPException].__module__ == "api.errors"


def test_a_view_store_that_cannot_be_read_answers_503(app: Flask, client: FlaskClient) -> None:
    game_id, _, _ = new_game(client)
    store = app.extensions["opus"].views.store
    with store._reading() as connection:  # the views' tables are gone
        connection.execute("DROP TABLE view_docs")
    answer = client.get(f"/games/{game_id}")
    assert answer.status_code == 503, answer.json
    assert answer.json["message"].startswith("the views cannot be read")


def test_a_hand_read_before_the_seats_view_has_the_seat_is_503_not_403(
    app: Flask, client: FlaskClient
) -> None:
    """No runner here: the views are rebuilt by hand, then a seat is taken."""
    from projections.hands import Hands
    from projections.rebuild import rebuild
    from projections.seats import Seats

    service = app.extensions["opus"]
    game_id = client.post("/games", json={}).json["game_id"]
    first = client.post(f"/games/{game_id}/players", json={"name": "A"}).json["token"]
    rebuild(service.views.store, service.opus, [Seats, Hands])
    second = client.post(f"/games/{game_id}/players", json={"name": "B"}).json["token"]
    assert client.get(f"/games/{game_id}/hand", headers=bearer(first)).status_code == 200
    lagging = client.get(f"/games/{game_id}/hand", headers=bearer(second))
    assert lagging.status_code == 503 and "after=" in lagging.json["message"]
    rebuild(service.views.store, service.opus, [Seats, Hands])
    assert client.get(f"/games/{game_id}/hand", headers=bearer(second)).status_code == 200
    stranger = client.get(f"/games/{game_id}/hand", headers=bearer("x" * 43))
    assert stranger.status_code == 403
