"""The disclosure policy, end to end (domain/disclosure.py, R1.3, R9.3).

For random games, at random positions, for every audience — the public, each
seat, the organiser, an auditor — nothing the viewer receives over HTTP (the
views, the hand, the legal moves, the live stream, the export, the error of a
refused move) holds a card id that viewer may not know at that position.

What a viewer may know is worked out here from the recorded events alone,
by the rules (R1.3), not by the policy under test: every card that an event
names outside the dealt hands and the drawn cards is public; a seat also
knows its own deal and draws; once the game has ended, everyone knows all.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.disclosure import AUDITOR, ORGANISER, PUBLIC, disclose, seat
from tests.apps import embedded_app
from tests.leaks import Knowledge, card_ids
from tests.moves_http import move_request
from tests.sse import sse_messages


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    folder: Path = tmp_path_factory.mktemp("disclosure")
    flask_app = embedded_app(folder, run_projections=True)
    yield flask_app
    flask_app.extensions["opus"].close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def stream(client: FlaskClient, game_id: str, version: int) -> list[dict[str, Any]]:
    """The live stream's messages up to ``version``."""
    response = client.get(f"/games/{game_id}/events", buffered=False)
    messages = []
    for text in sse_messages(response.response):
        if text.startswith("id:"):
            messages.append(json.loads(text.split("data: ", 1)[1]))
            if messages[-1]["version"] >= version:
                break
    response.close()
    return messages


def received_by_anyone(client: FlaskClient, game_id: str, position: int) -> dict[str, Any]:
    """Everything a caller without a token can read of a game now."""
    after = {"after": position}
    answers = {
        path: client.get(f"/games/{game_id}{path}", query_string=after)
        for path in ("", "/scoreboard", "/log")
    }
    answers["/leaderboard"] = client.get("/leaderboard", query_string=after)
    for path, answer in answers.items():
        assert answer.status_code == 200, (path, answer.json)
    export = client.get(f"/games/{game_id}/export").get_data(as_text=True)
    return {
        **{path: answer.json for path, answer in answers.items()},
        "export": [json.loads(line) for line in export.splitlines()],
    }


def check_position(
    app: Flask, client: FlaskClient, game_id: str, tokens: list[str], position: int
) -> Knowledge:
    service = app.extensions["opus"].opus
    events = list(service.repository.event_store.get(UUID(game_id)))
    knows = Knowledge(events)
    # the policy itself, event by event
    audiences = [PUBLIC, ORGANISER, *(seat(k) for k in range(len(tokens)))]
    for event in events:
        for audience in audiences:
            shown = disclose(type(event).__name__, vars(event), audience, ended=knows.ended)
            assert not card_ids(shown) & knows.unknown(audience), (audience, event)
    # what anyone receives: the views, the export (the auditor's form)
    public = received_by_anyone(client, game_id, position)
    assert not card_ids(public) & knows.unknown(PUBLIC), "a public answer shows a hidden card"
    assert not card_ids(public["export"]) & knows.unknown(AUDITOR)
    version = max(e.originator_version for e in events)
    assert not card_ids(stream(client, game_id, version)) & knows.unknown(PUBLIC)
    # what each seat receives: its hand, its legal moves, a refusal
    for k, token in enumerate(tokens):
        unknown = knows.unknown(seat(k))
        hand = client.get(
            f"/games/{game_id}/hand", headers=bearer(token), query_string={"after": position}
        )
        legal = client.get(f"/games/{game_id}/legal-moves", headers=bearer(token))
        assert hand.status_code == 200 and legal.status_code == 200
        assert not card_ids(hand.json) & unknown, "a hand shows another seat's card"
        assert not card_ids(legal.json) & unknown
        for card in sorted(unknown)[:3]:
            refused = client.post(
                f"/games/{game_id}/discard", json={"card": card}, headers=bearer(token)
            )
            assert refused.status_code in (403, 409)
            assert not card_ids(refused.json) & (unknown - {card}), refused.json
    return knows


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**16),
    players=st.integers(2, 4),
    guild=st.booleans(),
    draw=st.sampled_from(["five", "one"]),
)
def test_no_audience_receives_a_card_it_may_not_know(
    app: Flask, seed: int, players: int, guild: bool, draw: str
) -> None:
    client = app.test_client()
    rng = random.Random(seed)
    created = client.post("/games", json={"guild": guild, "draw": draw})
    game_id, organiser = created.json["game_id"], created.json["organiser_token"]
    tokens = [
        client.post(f"/games/{game_id}/players", json={"name": f"P{k}"}).json["token"]
        for k in range(players)
    ]
    position = client.post(f"/games/{game_id}/start", headers=bearer(organiser)).json["position"]
    checks = sorted(rng.sample(range(1, 120), 2))
    moves = 0
    while True:
        if moves == 0:  # just dealt: the test is about something
            assert check_position(app, client, game_id, tokens, position).unknown(PUBLIC)
        elif moves in checks:
            check_position(app, client, game_id, tokens, position)
        turn = client.get(f"/games/{game_id}", query_string={"after": position}).json["data"]
        if turn["status"] == "ended" or moves > max(checks):
            break
        token = tokens[turn["turn"]]
        legal = client.get(f"/games/{game_id}/legal-moves", headers=bearer(token)).json["moves"]
        kind, body = move_request(rng.choice(legal))
        answer = client.post(f"/games/{game_id}/{kind}", json=body, headers=bearer(token))
        assert answer.status_code == 201, answer.json
        position = answer.json["position"]
        moves += 1
    check_position(app, client, game_id, tokens, position)
