"""The organiser's way out (R3.5 over HTTP) and the limit on creating games
and taking seats (429 with Retry-After), in one process and through Redis."""

from __future__ import annotations

import uuid
from pathlib import Path

from flask import Flask

from api.app import create_app
from tests.apps import embedded_app
from tests.conftest import REDIS_URL
from tests.redis_keys import drop_prefix


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def app_with(tmp_path: Path, **variables: str | None) -> Flask:
    """The app on SQLite files in ``tmp_path``, no Redis, no runners, and
    these variables."""
    return create_app(
        {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / "events.db"),
            "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
            "REDIS_URL": None,
            "OPUS_RUN_PROJECTIONS": "0",
            **variables,
        }
    )


def test_R3_5_the_organiser_withdraws_a_seat_left_idle_and_its_turns_pass(tmp_path: Path) -> None:
    app = app_with(tmp_path, OPUS_INACTIVITY_SECONDS="0")
    try:
        client = app.test_client()
        created = client.post("/games", json={}).json
        game, organiser = created["game_id"], created["organiser_token"]
        tokens = [
            client.post(f"/games/{game}/players", json={"name": n}).json["token"]
            for n in ("Ada", "Boris", "Cleo")
        ]
        client.post(f"/games/{game}/start", headers=bearer(organiser))
        by_seat = client.post(
            f"/games/{game}/withdraw", json={"seat": 0}, headers=bearer(tokens[1])
        )
        assert by_seat.status_code == 403  # the organiser's alone
        not_in_turn = client.post(
            f"/games/{game}/withdraw", json={"seat": 1}, headers=bearer(organiser)
        )
        assert not_in_turn.status_code == 409 and not_in_turn.json["rule"] == "R3.5"
        done = client.post(f"/games/{game}/withdraw", json={"seat": 0}, headers=bearer(organiser))
        assert done.status_code == 200, done.json
        state = app.extensions["opus"].opus.state(uuid.UUID(game))
        assert state.withdrawn == [0] and state.turn == 1  # Ada's turn ended with a pass
        moves = client.get(f"/games/{game}/legal-moves", headers=bearer(tokens[0])).json
        assert moves["moves"] == [] and moves["reason"].startswith("R3.4")
    finally:
        app.extensions["opus"].close()


def test_R3_5_an_idle_limit_not_yet_reached_refuses_the_withdrawal(tmp_path: Path) -> None:
    app = embedded_app(tmp_path, run_projections=False)  # the default limit, 300 s
    try:
        client = app.test_client()
        created = client.post("/games", json={}).json
        game, organiser = created["game_id"], created["organiser_token"]
        for name in ("Ada", "Boris"):
            client.post(f"/games/{game}/players", json={"name": name})
        client.post(f"/games/{game}/start", headers=bearer(organiser))
        early = client.post(f"/games/{game}/withdraw", json={"seat": 0}, headers=bearer(organiser))
        assert early.status_code == 409 and "300 s" in early.json["message"]
    finally:
        app.extensions["opus"].close()


def limited_app(tmp_path: Path, redis_prefix: str | None) -> Flask:
    return app_with(
        tmp_path,
        REDIS_URL=REDIS_URL if redis_prefix else None,
        OPUS_REDIS_PREFIX=redis_prefix,
        OPUS_RATE_LIMIT="3/60",
    )


def test_creating_and_joining_past_the_limit_is_429_with_retry_after(tmp_path: Path) -> None:
    prefix = f"opus-test:{uuid.uuid4().hex[:12]}:"
    try:
        for redis_prefix in (None, prefix):
            app = limited_app(tmp_path / ((redis_prefix and "r") or "p"), redis_prefix)
            try:
                client = app.test_client()
                game = client.post("/games", json={}).json["game_id"]
                assert client.post(f"/games/{game}/players", json={"name": "A"}).status_code == 201
                assert client.post("/games", json={}).status_code == 201
                refused = client.post(f"/games/{game}/players", json={"name": "B"})
                assert refused.status_code == 429, redis_prefix
                assert 1 <= int(refused.headers["Retry-After"]) <= 60
                assert client.get(f"/games/{game}/export").status_code == 200  # reads: free
            finally:
                app.extensions["opus"].close()
    finally:
        drop_prefix(REDIS_URL, prefix)


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_count(tmp_path: Path) -> None:
    app = app_with(tmp_path, OPUS_RATE_LIMIT="2/60", OPUS_TRUSTED_PROXIES="1")
    try:
        client = app.test_client()
        one, two = {"X-Forwarded-For": "203.0.113.1"}, {"X-Forwarded-For": "203.0.113.2"}
        assert [client.post("/games", json={}, headers=one).status_code for _ in range(3)] == [
            201,
            201,
            429,
        ]
        assert client.post("/games", json={}, headers=two).status_code == 201
    finally:
        app.extensions["opus"].close()
