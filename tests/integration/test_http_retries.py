"""Retried commands and lost live messages, over HTTP on a real SQLite store.

- A retried command that carries its ``Idempotency-Key`` and the same
  ``If-Match`` answers its first outcome even when the response cache has
  lost the first response (eviction, a restart, another process): the
  service looks for the command id before it compares versions.
- The live stream refills a gap in the versions it hears (messages lost by
  the broker) from the log, in the auditor's form: hidden values sealed,
  no version missing.
"""

from __future__ import annotations

import json
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
from tests.sse import sse_messages


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    flask_app = embedded_app(tmp_path, run_projections=False)
    yield flask_app
    flask_app.extensions["opus"].close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(client: FlaskClient, players: int = 2) -> tuple[str, list[str]]:
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
    return game_id, tokens


def version_of(app: Flask, game_id: str) -> int:
    version: int = app.extensions["opus"].opus.version(UUID(game_id))
    return version


def discardable(app: Flask, game_id: str, seat: int) -> int:
    """A card in the seat's hand that may be discarded (not a Stone, R4.1)."""
    hand = app.extensions["opus"].opus.state(UUID(game_id)).hands[seat]
    return next(c for c in hand if load_catalog().card(c).stone is None)


def discard(app: Flask, client: FlaskClient, game_id: str, tokens: list[str]) -> None:
    """The seat to play discards a card (R4.1)."""
    seat = app.extensions["opus"].opus.state(UUID(game_id)).turn
    card = discardable(app, game_id, seat)
    answer = client.post(
        f"/games/{game_id}/discard", json={"card": card}, headers=bearer(tokens[seat])
    )
    assert answer.status_code == 201, answer.json


# ---- a retry with Idempotency-Key and If-Match ------------------------------


def test_a_retry_with_the_same_if_match_answers_its_first_outcome_without_the_cache(
    app: Flask,
) -> None:
    """The first response is lost from the cache; the retry, still sending
    If-Match with the version the game had before the command, is the same
    command: 201, replayed, the first version, nothing applied twice (not a
    409 version clash)."""
    client = app.test_client()
    game_id, tokens = new_game(client)
    card = discardable(app, game_id, 0)
    before = version_of(app, game_id)
    headers = {
        **bearer(tokens[0]),
        "Idempotency-Key": "discard-once",
        "If-Match": f'"{before}"',
    }
    first = client.post(f"/games/{game_id}/discard", json={"card": card}, headers=headers)
    assert first.status_code == 201, first.json
    assert first.json["replayed"] is False
    after = version_of(app, game_id)
    assert first.json["version"] == after > before

    app.extensions["opus"].responses._items.clear()  # the cache missed
    again = client.post(f"/games/{game_id}/discard", json={"card": card}, headers=headers)
    assert again.status_code == 201, again.json
    assert again.json["replayed"] is True
    assert again.json["version"] == first.json["version"]
    assert again.json["game_id"] == first.json["game_id"]
    assert version_of(app, game_id) == after  # applied once

    # A different command with the stale If-Match is still a clash.
    clash = client.post(
        f"/games/{game_id}/pass",
        json={},
        headers={**bearer(tokens[1]), "Idempotency-Key": "other", "If-Match": f'"{before}"'},
    )
    assert clash.status_code == 409 and "version" in clash.json["message"]


# ---- the live stream's gap refill ------------------------------------------


def messages(chunks: Iterator[Any], until: int) -> list[dict[str, Any]]:
    """The stream's messages up to version ``until``."""
    read: list[dict[str, Any]] = []
    for text in sse_messages(chunks):
        if text.startswith("id:"):
            read.append(json.loads(text.split("data: ", 1)[1]))
            if read[-1]["version"] >= until:
                break
    return read


def test_the_stream_refills_lost_messages_from_the_log_sealed(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The broker loses messages while a game is played; the stream hears a
    later version, reads the gap from the log and sends it in the auditor's
    form: every hidden value sealed, every version once, in order, each
    message the exported line of its event."""
    client = app.test_client()
    game_id, tokens = new_game(client)
    opus = app.extensions["opus"].opus
    secret = opus.state(UUID(game_id)).secret
    response = client.get(f"/games/{game_id}/events", buffered=False)
    chunks = iter(response.response)
    start = version_of(app, game_id)
    read = messages(chunks, start)

    broker = app.extensions["opus"].broker
    publish = broker.publish
    dropped: list[int] = []
    dropping = True

    def lossy(game: str, *messages: str) -> None:
        kept = []
        for message in messages:
            parsed = json.loads(message)
            if "type" not in parsed:  # not an event (a receipt's checkpoint, a turn offer): kept
                kept.append(message)
                continue
            version = parsed["version"]
            if dropping and version % 3 != 0:
                dropped.append(version)
            else:
                kept.append(message)
        publish(game, *kept)

    monkeypatch.setattr(broker, "publish", lossy)
    for _ in range(6):
        discard(app, client, game_id, tokens)
    dropping = False
    discard(app, client, game_id, tokens)  # its messages all arrive
    end = version_of(app, game_id)
    read += messages(chunks, end)
    response.close()

    refilled = [m for m in read if m["version"] in dropped]
    assert len(dropped) > 5 and len(refilled) == len(dropped)
    assert any(m["type"] == "CardsDrawn" for m in refilled)
    assert [m["version"] for m in read] == list(range(1, end + 1))  # none missing
    exported = {
        json.loads(line)["version"]: json.loads(line)
        for line in client.get(f"/games/{game_id}/export").get_data(as_text=True).splitlines()
    }
    for m in read:
        for name in hidden_fields(m["type"]):
            assert str(m["payload"][name]).startswith("sealed:"), (m["version"], name)
        assert secret not in json.dumps(m)
        assert {k: v for k, v in m.items() if k != "position"} == {
            k: v for k, v in exported[m["version"]].items() if k != "position"
        }
