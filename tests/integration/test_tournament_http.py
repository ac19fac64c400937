"""The tournament commands over HTTP on a real SQLite event store: a round
played through the game endpoints with the players' own tokens, and each
refusal named by its T… rule (TOURNAMENT.md), changing nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from domain.tournaments.state import TournamentState
from tests.apps import embedded_app

NAMES = ("Ada", "Boris", "Cleo", "Dora", "Emil", "Fay", "Gus")
OWN_TOKEN = "t" * 43  # a client's own token: 256 bits' worth of base64url characters


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


def create(client: FlaskClient, **body: Any) -> tuple[str, str]:
    """A new tournament's id and organiser token."""
    created = client.post("/tournaments", json={"name": "Spring Cup", **body})
    assert created.status_code == 201, created.json
    return created.json["tournament_id"], created.json["organiser_token"]


def register(client: FlaskClient, tournament: str, names: tuple[str, ...]) -> dict[int, str]:
    """Each name registered; their tokens by registration number."""
    tokens = {}
    for name in names:
        registered = client.post(f"/tournaments/{tournament}/players", json={"name": name})
        assert registered.status_code == 201, registered.json
        tokens[registered.json["player"]] = registered.json["token"]
    return tokens


def pair(client: FlaskClient, tournament: str, organiser: str) -> int:
    paired = client.post(f"/tournaments/{tournament}/rounds", json={}, headers=bearer(organiser))
    assert paired.status_code == 201, paired.json
    return int(paired.json["round"])


def state(app: Flask, tournament: str) -> TournamentState:
    return app.extensions["opus"].opus.tournaments.get(UUID(tournament)).state


def version(app: Flask, tournament: str) -> int:
    return int(app.extensions["opus"].opus.tournaments.get(UUID(tournament)).version)


def play_round(app: Flask, client: FlaskClient, tournament: str, tokens: dict[int, str]) -> int:
    """Every game of the open round played to its end over HTTP, each move
    the first that GET /legal-moves offers the seat in turn, posted with its
    player's registration token; the moves made."""
    moves = 0
    opus = app.extensions["opus"].opus
    for table in state(app, tournament).rounds[-1].tables:
        while (game := opus.state(table.game)).status == "running":
            token = tokens[table.players[game.turn]]
            offered = client.get(f"/games/{table.game}/legal-moves", headers=bearer(token)).json
            move = offered["moves"][0]
            made = client.post(move["path"], json=move["body"], headers=bearer(token))
            assert made.status_code == 201, made.json
            moves += 1
    return moves


def organiser_post(
    client: FlaskClient, path: str, organiser: str, body: dict[str, Any] | None = None
) -> Any:
    return client.post(path, json=body or {}, headers=bearer(organiser))


def refused(answer: Any, status: int, rule: str | None = None) -> None:
    assert answer.status_code == status, answer.json
    assert set(answer.json) == {"code", "status", "message", "errors", "rule"}
    assert answer.json["rule"] == rule


def test_a_round_is_played_with_the_players_tokens_and_the_next_is_paired(
    app: Flask, client: FlaskClient
) -> None:
    tournament, organiser = create(client)
    tokens = register(client, tournament, NAMES)
    assert sorted(tokens) == list(range(1, 8))
    assert pair(client, tournament, organiser) == 1
    round_one = state(app, tournament).rounds[0]
    assert sorted(len(t.players) for t in round_one.tables) == [3, 4]  # T3.1: 7 → 4+3

    player = round_one.tables[0].players[1]  # not in turn: seat 0 moves first
    offered = client.get(
        f"/games/{round_one.tables[0].game}/legal-moves", headers=bearer(tokens[player])
    )
    assert offered.status_code == 200 and offered.json["seat"] == 1
    assert offered.json["reason"].startswith("R3.4")

    assert play_round(app, client, tournament, tokens) > 0
    after_one = state(app, tournament)
    assert after_one.status == "between" and after_one.rounds[0].closed  # T9.1
    assert set(after_one.results) == {t.game for t in round_one.tables}  # T5.1
    assert pair(client, tournament, organiser) == 2
    assert state(app, tournament).status == "playing"


def test_T9_1_a_round_is_paired_only_once_every_game_has_a_result(
    app: Flask, client: FlaskClient
) -> None:
    tournament, organiser = create(client)
    register(client, tournament, NAMES[:3])
    pair(client, tournament, organiser)
    before = version(app, tournament)
    again = organiser_post(client, f"/tournaments/{tournament}/rounds", organiser)
    refused(again, 409, "T9.1")
    assert again.json["message"].startswith("T9.1:")
    finish = organiser_post(client, f"/tournaments/{tournament}/finish", organiser)
    refused(finish, 409, "T9.3")  # nor finished while a round is open
    assert version(app, tournament) == before


def test_T7_1_a_correction_is_a_competition_ranking_of_a_game_with_a_result(
    app: Flask, client: FlaskClient
) -> None:
    tournament, organiser = create(client)
    tokens = register(client, tournament, NAMES)
    pair(client, tournament, organiser)
    table = next(t for t in state(app, tournament).rounds[0].tables if len(t.players) == 4)
    path = f"/tournaments/{tournament}/corrections"
    body = {"game": str(table.game), "places": [1, 1, 3, 4], "reason": "score slip"}
    refused(organiser_post(client, path, organiser, body), 409, "T7.1")  # no result yet

    play_round(app, client, tournament, tokens)
    before = version(app, tournament)
    wrong = organiser_post(client, path, organiser, {**body, "places": [1, 2, 2, 3]})
    refused(wrong, 409, "T7.1")
    assert version(app, tournament) == before
    corrected = organiser_post(client, path, organiser, {**body, "by": "Head judge"})
    assert corrected.status_code == 201, corrected.json
    assert corrected.json["version"] == before + 1
    result = state(app, tournament).results[table.game]
    assert result.counted == (1, 1, 3, 4) and result.corrections == 1


def test_T7_2_a_penalty_is_a_positive_multiple_of_a_half_written_exactly(
    app: Flask, client: FlaskClient
) -> None:
    tournament, organiser = create(client)
    register(client, tournament, NAMES[:3])
    path = f"/tournaments/{tournament}/penalties"
    body = {"player": 2, "reason": "late", "by": "Judge"}
    before = version(app, tournament)
    for points in ("1/3", "-1/2", "0/1"):
        given = organiser_post(client, path, organiser, {**body, "points": points})
        refused(given, 409, "T7.2")
    for points in ("0.5", "+1/2", "1/0", 1):
        malformed = organiser_post(client, path, organiser, {**body, "points": points})
        refused(malformed, 422)
        assert "points" in malformed.json["errors"]["json"]
        assert malformed.json["message"] == "invalid input: points"
    assert version(app, tournament) == before
    given = organiser_post(client, path, organiser, {**body, "points": "2/4"})  # 1/2
    assert given.status_code == 201, given.json
    row = next(r for r in state(app, tournament).standings() if r.player == 2)
    assert row.penalties == Fraction(1, 2) and row.corrections == 1  # T7.3


def test_T2_1_a_name_is_taken_by_its_key(app: Flask, client: FlaskClient) -> None:
    tournament, _ = create(client)
    register(client, tournament, ("Ada",))
    before = version(app, tournament)
    fullwidth = client.post(f"/tournaments/{tournament}/players", json={"name": "ＡＤＡ"})
    refused(fullwidth, 409, "T2.1")
    assert version(app, tournament) == before


def test_T8_1_a_game_is_called_once_time_is_up_or_a_seat_has_withdrawn(
    app: Flask, client: FlaskClient
) -> None:
    tournament, organiser = create(client, time_limit=3600)
    tokens = register(client, tournament, NAMES[:3])
    pair(client, tournament, organiser)
    game = state(app, tournament).rounds[0].tables[0].game
    call = f"/tournaments/{tournament}/games/{game}/call"
    before = version(app, tournament)
    early = organiser_post(client, call, organiser, {"by": "Judge"})
    refused(early, 409, "T8.1")
    assert version(app, tournament) == before

    dropped = client.post(
        f"/tournaments/{tournament}/drop", json={"player": 3}, headers=bearer(tokens[3])
    )
    assert dropped.status_code == 200, dropped.json
    called = organiser_post(client, call, organiser, {"by": "Judge"})
    assert called.status_code == 200, called.json
    assert [e.__class__.__name__ for e in app.extensions["opus"].opus.events.get(game)][-1] == (
        "GameCalled"
    )


def test_T2_2_only_a_player_or_the_organiser_drops_and_seats_are_never_withdrawn_directly(
    app: Flask, client: FlaskClient
) -> None:
    tournament, organiser = create(client)
    tokens = register(client, tournament, NAMES[:3])
    pair(client, tournament, organiser)
    before = version(app, tournament)
    drop = f"/tournaments/{tournament}/drop"
    refused(client.post(drop, json={"player": 1}, headers=bearer(tokens[2])), 403)
    refused(client.post(drop, json={"player": 1}), 401)
    table = state(app, tournament).rounds[0].tables[0]
    withdraw = client.post(
        f"/games/{table.game}/withdraw", json={"seat": 0}, headers=bearer(organiser)
    )
    refused(withdraw, 409, "T2.2")
    assert version(app, tournament) == before
    by_organiser = client.post(drop, json={"player": 1}, headers=bearer(organiser))
    assert by_organiser.status_code == 200 and by_organiser.json["version"] > before
    assert state(app, tournament).registration(1).dropped


def test_organiser_commands_need_the_organisers_token_and_a_known_tournament(
    app: Flask, client: FlaskClient
) -> None:
    tournament, organiser = create(client)
    tokens = register(client, tournament, NAMES[:3])
    before = version(app, tournament)
    rounds = f"/tournaments/{tournament}/rounds"
    refused(client.post(rounds, json={}), 401)
    refused(client.post(rounds, json={}, headers=bearer(tokens[1])), 403)
    refused(client.post(f"/tournaments/{tournament}/finish", headers=bearer("not-a-token")), 403)
    unknown = "00000000-0000-4000-8000-000000000000"
    refused(client.post(f"/tournaments/{unknown}/rounds", json={}, headers=bearer(organiser)), 404)
    refused(client.post(f"/tournaments/{unknown}/players", json={"name": "Ada"}), 404)
    refused(client.get(f"/tournaments/{unknown}/export"), 404)
    refused(client.post(rounds, json={"beacon": 7}, headers=bearer(organiser)), 422)
    refused(client.post("/tournaments", json={"name": "Cup", "tables": {"min": "3"}}), 422)
    refused(client.post("/tournaments", json={}), 422)
    sizes = client.post("/tournaments", json={"name": "Cup", "tables": {"min": 5, "max": 4}})
    refused(sizes, 409, "T1.1")
    assert version(app, tournament) == before


def test_a_retried_command_is_answered_once_and_a_key_is_for_one_request(
    app: Flask, client: FlaskClient
) -> None:
    tournament, organiser = create(client)
    players = f"/tournaments/{tournament}/players"
    anonymous = client.post(players, json={"name": "Ada"}, headers={"Idempotency-Key": "r1"})
    refused(anonymous, 401)
    mine = {**bearer(OWN_TOKEN), "Idempotency-Key": "r1"}
    first = client.post(players, json={"name": "Ada"}, headers=mine)
    assert first.status_code == 201 and first.json["token"] == OWN_TOKEN
    retried = client.post(players, json={"name": "Ada"}, headers=mine)
    assert retried.status_code == 201 and retried.json["replayed"]
    assert retried.json["player"] == 1 and retried.json["token"] is None
    refused(client.post(players, json={"name": "Abe"}, headers=mine), 422)  # key reused
    register(client, tournament, NAMES[1:3])

    key = {**bearer(organiser), "Idempotency-Key": "pair-1"}
    paired = client.post(f"/tournaments/{tournament}/rounds", json={}, headers=key)
    again = client.post(f"/tournaments/{tournament}/rounds", json={}, headers=key)
    assert paired.status_code == again.status_code == 201
    assert again.json == {**paired.json, "replayed": True}  # the first answer, as a replay's
    assert again.headers["Idempotent-Replayed"] == "true"
    assert state(app, tournament).paired == 1

    created = client.post("/tournaments", json={"name": "Cup"}, headers=mine)
    recreated = client.post("/tournaments", json={"name": "Cup"}, headers=mine)
    assert created.json["tournament_id"] == recreated.json["tournament_id"]
    assert recreated.json["replayed"] and recreated.json["organiser_token"] == ""
    other = client.post("/tournaments", json={"name": "Cup", "weight": 7}, headers=mine)
    refused(other, 422)  # the same key for other settings is never a silent replay


def test_if_match_refuses_a_command_on_another_version(app: Flask, client: FlaskClient) -> None:
    tournament, organiser = create(client)
    register(client, tournament, NAMES[:3])
    before = version(app, tournament)
    path = f"/tournaments/{tournament}/penalties"
    body = {"player": 1, "points": "1/1", "reason": "late"}
    stale = client.post(path, json=body, headers={**bearer(organiser), "If-Match": "1"})
    refused(stale, 409)
    assert version(app, tournament) == before
    current = client.post(path, json=body, headers={**bearer(organiser), "If-Match": str(before)})
    assert current.status_code == 201 and current.json["version"] == before + 1


def test_creating_and_registering_are_rate_limited(tmp_path: Path) -> None:
    app = create_app(
        {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(tmp_path / "events.db"),
            "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db"),
            "REDIS_URL": None,
            "OPUS_RUN_PROJECTIONS": "0",
            "OPUS_RATE_LIMIT": "2/60",
        }
    )
    try:
        client = app.test_client()
        tournament, _ = create(client)
        first = client.post(f"/tournaments/{tournament}/players", json={"name": "A"})
        assert first.status_code == 201
        limited = client.post(f"/tournaments/{tournament}/players", json={"name": "B"})
        assert limited.status_code == 429 and "Retry-After" in limited.headers
    finally:
        app.extensions["opus"].close()


def test_the_export_holds_the_tournament_and_its_games_in_the_auditors_form(
    app: Flask, client: FlaskClient
) -> None:
    tournament, organiser = create(client)
    tokens = register(client, tournament, NAMES[:3])
    pair(client, tournament, organiser)
    game = state(app, tournament).rounds[0].tables[0].game
    exported = client.get(f"/tournaments/{tournament}/export")
    assert exported.status_code == 200 and exported.mimetype == "application/x-ndjson"
    lines = [json.loads(line) for line in exported.get_data(as_text=True).splitlines()]
    by_aggregate = {line["aggregate_id"] for line in lines}
    assert by_aggregate == {tournament, str(game)}
    types = [line["type"] for line in lines if line["aggregate_id"] == tournament]
    assert types[:2] == ["TournamentCreated", "PlayerRegistered"] and "RoundPaired" in types
    text = exported.get_data(as_text=True)
    assert all(token not in text for token in [organiser, *tokens.values()])
    assert state(app, tournament).secret not in text  # sealed until T9.3
    assert all(line["chain"] for line in lines)
    refused(client.get(f"/tournaments/{game}/export"), 404)  # a game is no tournament


def test_the_tournament_its_rounds_and_standings_are_read_from_the_projection(
    tmp_path: Path,
) -> None:
    app = embedded_app(tmp_path, run_projections=True)
    client = app.test_client()
    try:
        tournament, organiser = create(client)
        tokens = register(client, tournament, NAMES[:5])
        early = client.get(f"/tournaments/{tournament}/standings?after={version_position(app)}")
        assert early.status_code == 200 and early.json["data"]["provisional"]
        pair(client, tournament, organiser)
        play_round(app, client, tournament, tokens)
        penalty = organiser_post(
            client,
            f"/tournaments/{tournament}/penalties",
            organiser,
            {"player": 2, "points": "1/2", "reason": "late", "by": "arbiter"},
        )
        after = penalty.json["position"]
        doc = client.get(f"/tournaments/{tournament}?after={after}").json["data"]
        live = state(app, tournament)
        assert doc["status"] == "between" and doc["players"][1]["name"] == NAMES[1]
        round_one = client.get(f"/tournaments/{tournament}/rounds/1?after={after}").json["data"]
        assert round_one == doc["rounds_paired"][0]
        assert [t["players"] for t in round_one["tables"]] == [
            list(t.players) for t in live.rounds[0].tables
        ]
        assert round_one["seal"]["heads"] == [
            {"game": str(t.game), "head": live.results[t.game].head} for t in live.rounds[0].tables
        ]
        assert doc["corrections"] == [
            {
                "type": "PenaltyGiven",
                "player": 2,
                "points": "1/2",
                "reason": "late",
                "by": "arbiter",
            }
        ]
        now = client.get(f"/tournaments/{tournament}/standings?after={after}").json["data"]
        assert now["rows"] == [row.to_json() for row in live.standings()]
        sealed = client.get(f"/tournaments/{tournament}/standings?round=1").json["data"]
        assert sealed["digest"] == round_one["seal"]["standings"] != now["digest"]
        assert client.get(f"/tournaments/{tournament}/standings?round=2").status_code == 404
        assert client.get(f"/tournaments/{tournament}/rounds/2").status_code == 404
        unknown = "00000000-0000-4000-8000-000000000000"
        assert client.get(f"/tournaments/{unknown}").status_code == 404
    finally:
        app.extensions["opus"].close()


def version_position(app: Flask) -> int:
    """The log's last position."""
    return int(app.extensions["opus"].opus.recorder.max_notification_id() or 0)


def test_standings_served_after_a_finish_before_round_one_are_the_recorded_ones(
    tmp_path: Path,
) -> None:
    app = embedded_app(tmp_path, run_projections=True)
    client = app.test_client()
    try:
        tournament, organiser = create(client)
        register(client, tournament, NAMES[:6])
        finished = organiser_post(client, f"/tournaments/{tournament}/finish", organiser)
        after = finished.json["position"]
        doc = client.get(f"/tournaments/{tournament}?after={after}").json["data"]
        served = client.get(f"/tournaments/{tournament}/standings?after={after}").json["data"]
        assert "provisional" not in served  # the finish revealed the secret (T9.3)
        assert served["digest"] == doc["finished"]["standings"]  # T6.1 (4) by the seed
        assert served["rows"] == [row.to_json() for row in state(app, tournament).standings()]
    finally:
        app.extensions["opus"].close()


# ---- revision 4: teams, constraints and the cut (T11, T12) --------------------------------


def test_T11_1_T12_1_creation_takes_a_procedure_and_a_cut_registration_a_team(
    app: Flask, client: FlaskClient
) -> None:
    for body, status, rule in (
        ({"cut": 2}, 409, "T12.1"),  # k ∈ {1, 3, 4, 5}
        ({"cut": 5, "tables": {"min": 3, "preferred": 4, "max": 4}}, 409, "T12.1"),
        ({"cut": 6}, 422, None),
        ({"cut": "3"}, 422, None),
        ({"procedure": "swap-2"}, 422, None),
    ):
        answer = client.post("/tournaments", json={"name": "Refused", **body})
        refused(answer, status, rule)
    tournament, _ = create(client, cut=3, procedure="swap-1", rounds=2)
    made = state(app, tournament)
    assert (made.procedure, made.cut, made.revised) == ("swap-1", 3, True)
    plain, _ = create(client)
    assert state(app, plain).procedure == "regroup-1"  # the default (T4.2b)
    path = f"/tournaments/{tournament}/players"
    accepted = client.post(path, json={"name": "Ada", "team": "Red Lions"})
    assert accepted.status_code == 201, accepted.json
    refused(client.post(path, json={"name": "Bo", "team": "\u202eRed"}), 409, "T11.1")
    refused(client.post(path, json={"name": "Bo", "team": "x" * 41}), 422)
    assert [r.team for r in state(app, tournament).registrations] == ["Red Lions"]


def test_T11_1_a_constraint_is_the_organisers_until_round_1_is_paired(
    app: Flask, client: FlaskClient
) -> None:
    tournament, organiser = create(client)
    tokens = register(client, tournament, NAMES[:6])
    path = f"/tournaments/{tournament}/constraints"
    body = {"players": [2, 5], "reason": "siblings", "by": "Arbiter"}
    refused(client.post(path, json=body, headers=bearer(tokens[2])), 403)
    refused(organiser_post(client, path, organiser, {**body, "players": [2, 2]}), 409, "T11.1")
    refused(organiser_post(client, path, organiser, {**body, "players": [2]}), 422)
    added = organiser_post(client, path, organiser, {**body, "players": [5, 2]})
    assert added.status_code == 201, added.json
    assert state(app, tournament).constraints == [(2, 5)]
    pair(client, tournament, organiser)
    refused(organiser_post(client, path, organiser, body), 409, "T11.1")
    paired = state(app, tournament).rounds[0]
    assert not any({2, 5} <= set(t.players) for t in paired.tables)


def test_T12_the_cut_is_paired_over_http_and_shown_with_shares_seeds_and_ranking(
    tmp_path: Path,
) -> None:
    """Seven players, one Swiss round, a cut of one table (k = 1): the pairing
    command after the Swiss round pairs the final (T12.2), its seats by
    seed; the read side shows the stage, the seeds, every table's shares and
    the final ranking (T12.4)."""
    app = embedded_app(tmp_path, run_projections=True)
    client = app.test_client()
    try:
        tournament, organiser = create(client, rounds=1, cut=1)
        tokens = register(client, tournament, NAMES)
        for name, player in (("Ada", 1), ("Boris", 2)):
            team = client.post(
                f"/tournaments/{tournament}/constraints",
                json={"players": [player, player + 2], "reason": f"{name}'s family"},
                headers=bearer(organiser),
            )
            assert team.status_code == 201, team.json
        assert pair(client, tournament, organiser) == 1
        play_round(app, client, tournament, tokens)
        assert pair(client, tournament, organiser) == 2
        play_round(app, client, tournament, tokens)
        again = organiser_post(client, f"/tournaments/{tournament}/rounds", organiser)
        refused(again, 409, "T12.2")  # the cut is played: only the finish is left
        finished = organiser_post(client, f"/tournaments/{tournament}/finish", organiser)
        after = finished.json["position"]
        doc = client.get(f"/tournaments/{tournament}?after={after}").json["data"]
        live = state(app, tournament)
        assert (doc["procedure"], doc["cut"]) == ("regroup-1", 1)
        assert doc["constraints"] == [
            {"players": [1, 3], "reason": "Ada's family", "by": "organiser"},
            {"players": [2, 4], "reason": "Boris's family", "by": "organiser"},
        ]
        swiss, final = doc["rounds_paired"]
        assert (swiss["stage"], final["stage"]) == ("swiss", "final")
        assert final["procedure"] == "cut" and final["byes"] == []
        assert final["tables"][0]["seeds"] == [1, 2, 3, 4]  # seats by seed (T12.2)
        assert swiss["objective_c"] == "0/1" and swiss["tables"][0]["seeds"] is None
        for paired, round_ in zip((swiss, final), live.rounds, strict=True):
            assert [t["shares"] for t in paired["tables"]] == [s.shares for s in round_.tables]
        ranking = doc["finished"]["ranking"]
        assert [row["reached"] for row in ranking] == ["final"] * 4 + ["swiss"] * 3
        assert ranking[0]["place"] == 1 and ranking[-1]["place"] is None
    finally:
        app.extensions["opus"].close()
