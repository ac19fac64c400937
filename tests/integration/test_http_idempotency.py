"""Idempotency-Key over HTTP on a real SQLite store: a key is scoped by the
caller's token however the Authorization header spells it, a true replay
says so (``"replayed": true``, from the response cache or from the game's
command ids), and a key reused for another command of a game is refused
with IdempotencyConflictError's status, changing nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.errors import status_of
from domain.catalog import load_catalog
from domain.errors import IdempotencyConflictError
from tests.apps import embedded_app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    flask_app = embedded_app(tmp_path, run_projections=False)
    yield flask_app
    flask_app.extensions["opus"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def new_game(client: FlaskClient) -> tuple[str, list[str]]:
    """A started game of two: its id and the seats' tokens."""
    created = client.post("/games", json={})
    game_id, organiser = created.json["game_id"], created.json["organiser_token"]
    tokens = []
    for name in ("Ada", "Boris"):
        joined = client.post(f"/games/{game_id}/players", json={"name": name})
        assert joined.status_code == 201, joined.json
        tokens.append(joined.json["token"])
    started = client.post(f"/games/{game_id}/start", headers=bearer(organiser))
    assert started.status_code == 200, started.json
    return game_id, tokens


def bearer(token: str, spelling: str = "Bearer ") -> dict[str, str]:
    return {"Authorization": f"{spelling}{token}"}


def discardable(app: Flask, game_id: str, seat: int) -> list[int]:
    """The cards in the seat's hand that may be discarded (not Stones, R4.1)."""
    hand = app.extensions["opus"].opus.state(UUID(game_id)).hands[seat]
    return [c for c in hand if load_catalog().card(c).stone is None]


def version_and_head(app: Flask, game_id: str) -> tuple[int, int]:
    opus = app.extensions["opus"].opus
    return opus.version(UUID(game_id)), opus.recorder.max_notification_id()


def test_a_retry_with_the_token_spelled_otherwise_is_the_same_command_and_says_replayed(
    app: Flask, client: FlaskClient
) -> None:
    """``Bearer X`` and ``bearer  X`` are one caller, so one key's scope: the
    retry is answered, never applied again, and its answer says replayed,
    whether the response cache answers it or the game's command ids do."""
    game_id, tokens = new_game(client)
    card = discardable(app, game_id, 0)[0]
    path = f"/games/{game_id}/discard"
    key = {"Idempotency-Key": "discard-once"}
    first = client.post(path, json={"card": card}, headers={**bearer(tokens[0]), **key})
    assert first.status_code == 201 and first.json["replayed"] is False, first.json
    applied = version_and_head(app, game_id)

    spelled = {**bearer(tokens[0], "bearer  "), **key}
    again = client.post(path, json={"card": card}, headers=spelled)
    assert again.status_code == 201, again.json
    assert again.json == {**first.json, "replayed": True}  # from the response cache
    assert again.headers["Idempotent-Replayed"] == "true"
    assert version_and_head(app, game_id) == applied

    app.extensions["opus"].responses._items.clear()  # the cache has lost it
    third = client.post(path, json={"card": card}, headers={**bearer(tokens[0], "BEARER "), **key})
    assert third.status_code == 201, third.json
    assert third.json["replayed"] is True and third.json["version"] == first.json["version"]
    assert version_and_head(app, game_id) == applied


def test_one_key_of_two_callers_is_two_commands_however_spelled(
    app: Flask, client: FlaskClient
) -> None:
    """The scope is the token: another seat's token with the same key is
    another command (here one out of turn, refused as such)."""
    game_id, tokens = new_game(client)
    card = discardable(app, game_id, 0)[0]
    path = f"/games/{game_id}/discard"
    key = {"Idempotency-Key": "shared"}
    first = client.post(path, json={"card": card}, headers={**bearer(tokens[0]), **key})
    assert first.status_code == 201
    other = client.post(path, json={"card": card}, headers={**bearer(tokens[1], "bearer "), **key})
    assert other.status_code in (403, 409) and other.json["rule"] in ("R3.4", "R4.1"), other.json


def test_a_key_reused_for_another_command_of_a_game_is_refused_and_changes_nothing(
    app: Flask, client: FlaskClient
) -> None:
    """The IETF Idempotency-Key draft's conflict on the game path: the same
    key with another body, or on another path of the game, is
    IdempotencyConflictError's status (api/errors.py status_of), names the
    header, and records nothing; the first request's retry is still a replay."""
    game_id, tokens = new_game(client)
    first_card, other_card, *_ = discardable(app, game_id, 0)
    headers = {**bearer(tokens[0]), "Idempotency-Key": "mine"}
    first = client.post(f"/games/{game_id}/discard", json={"card": first_card}, headers=headers)
    assert first.status_code == 201, first.json
    applied = version_and_head(app, game_id)
    conflict = status_of(IdempotencyConflictError("reused"))
    assert conflict == 422
    reuses = [
        (f"/games/{game_id}/discard", {"card": other_card}),  # another body
        (f"/games/{game_id}/pass", {}),  # another path
        (f"/games/{game_id}/place", {"column": "nigredo", "card": other_card}),
    ]
    for path, body in reuses:
        for spelling in ("Bearer ", "bearer  "):
            answer = client.post(
                path, json=body, headers={**bearer(tokens[0], spelling), "Idempotency-Key": "mine"}
            )
            assert answer.status_code == conflict, (path, spelling, answer.json)
            assert "Idempotency-Key" in answer.json["errors"]["headers"]
            assert version_and_head(app, game_id) == applied, (path, spelling)
    retried = client.post(f"/games/{game_id}/discard", json={"card": first_card}, headers=headers)
    assert retried.status_code == 201 and retried.json["replayed"] is True
    assert version_and_head(app, game_id) == applied
