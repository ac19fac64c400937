"""The API with an account key: it stands for its account (the account's
holder hash seats, organises and plays), until the key is rotated; games
by invitation through the API follow the same admission as the pages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask

from domain.accounts.aggregate import admission_id, name_id
from tests.apps import embedded_app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    flask_app = embedded_app(tmp_path, run_projections=False)
    yield flask_app
    flask_app.extensions["opus"].close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def opus(app: Flask) -> Any:
    return app.extensions["opus"].opus


def test_an_account_key_creates_joins_starts_and_plays_for_its_account(app: Flask) -> None:
    client = app.test_client()
    ada = opus(app).accounts.open("Ada")
    holder = opus(app).accounts.view(ada.account).holder_hash
    created = client.post("/games", json={}, headers=bearer(ada.key))
    assert created.status_code == 201, created.json
    assert created.json["organiser_token"] == ""  # the account's: nothing new to show
    game = created.json["game_id"]
    joined = client.post(f"/games/{game}/players", json={"name": "Ada"}, headers=bearer(ada.key))
    assert joined.status_code == 201 and joined.json["token"] is None
    other = client.post(f"/games/{game}/players", json={"name": "Boris"})
    assert other.status_code == 201
    assert opus(app).state(UUID(game)).token_hashes[0] == holder
    started = client.post(f"/games/{game}/start", headers=bearer(ada.key))
    assert started.status_code == 200, started.json
    moves = client.get(f"/games/{game}/legal-moves", headers=bearer(ada.key))
    assert moves.status_code == 200 and moves.json["seat"] == 0


def test_a_rotated_key_no_longer_stands_for_the_account(app: Flask) -> None:
    client = app.test_client()
    ada = opus(app).accounts.open("Ada")
    new_key = opus(app).accounts.rotate_key(ada.account)
    refused = client.post("/games", json={}, headers=bearer(ada.key))
    assert refused.status_code == 401 and "account key" in refused.json["message"]
    assert client.post("/games", json={}, headers=bearer(new_key)).status_code == 201


def test_the_apis_join_of_a_game_by_invitation_needs_its_code(app: Flask) -> None:
    client = app.test_client()
    created = client.post("/games", json={"admission": "invitation"})
    assert created.status_code == 201
    game, code = created.json["game_id"], created.json["invitation"]
    assert code
    refused = client.post(f"/games/{game}/players", json={"name": "Stranger"})
    assert refused.status_code == 403 and "invitation" in refused.json["message"]
    wrong = client.post(f"/games/{game}/players", json={"name": "Stranger", "invitation": "x"})
    assert wrong.status_code == 403
    assert opus(app).state(UUID(game)).names == []
    ok = client.post(f"/games/{game}/players", json={"name": "Friend", "invitation": code})
    assert ok.status_code == 201
    open_game = client.post("/games", json={}).json
    assert open_game["invitation"] is None
    bad = client.post("/games", json={"admission": "friends"})
    assert bad.status_code == 422


def test_an_accounts_public_id_reads_as_no_game_or_tournament_anywhere(tmp_path: Path) -> None:
    """An account's id is public: the paths of games and tournaments answer
    404 for it (and for its name's and a game admission's ids), never its
    events, never an error of ours."""
    app = embedded_app(tmp_path, run_projections=True)
    try:
        service = opus(app)
        opened = service.accounts.open("Probe", session_label="x")
        game = service.create(admission="invitation").aggregate_id
        client = app.test_client()
        for private in (opened.account, name_id("Probe"), admission_id(game)):
            for path in (
                f"/games/{private}",
                f"/games/{private}/export",
                f"/games/{private}/log",
                f"/games/{private}/events",
                f"/tournaments/{private}",
                f"/tournaments/{private}/export",
                f"/replay/{private}",
                f"/table/{private}",
            ):
                answer = client.get(path, headers={"Accept": "application/json"})
                assert answer.status_code == 404, (path, answer.get_data(as_text=True))
                assert "Probe" not in answer.get_data(as_text=True)
    finally:
        app.extensions["opus"].close()


def test_an_account_keys_game_by_invitation_gets_its_code_and_so_does_a_retry(
    app: Flask,
) -> None:
    client = app.test_client()
    ada = opus(app).accounts.open("Ada")
    headers = {**bearer(ada.key), "Idempotency-Key": "make-1"}
    first = client.post("/games", json={"admission": "invitation"}, headers=headers)
    again = client.post("/games", json={"admission": "invitation"}, headers=headers)
    assert first.status_code == again.status_code == 201
    code = first.json["invitation"]
    assert code and again.json["invitation"] == code
    game = first.json["game_id"]
    joined = client.post(f"/games/{game}/players", json={"name": "Friend", "invitation": code})
    assert joined.status_code == 201
