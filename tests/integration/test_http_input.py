"""Bad input over HTTP: each kind gets its own clear status, never a 5xx."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.apps import embedded_app

UNKNOWN = "00000000-0000-4000-8000-000000000000"


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    flask_app = embedded_app(tmp_path, run_projections=False)
    yield flask_app
    flask_app.extensions["opus"].close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def test_an_integer_too_long_for_python_is_an_invalid_json_body(client: FlaskClient) -> None:
    body = '{"stage_points": [' + "1" * 5000 + "]}"
    answer = client.post("/games", data=body, content_type="application/json")
    assert answer.status_code == 400
    assert answer.json["message"].startswith("invalid JSON body")


def test_a_malformed_body_is_400_and_speaks_of_the_request(client: FlaskClient) -> None:
    answer = client.post("/games", data="{", content_type="application/json")
    assert answer.status_code == 400 and "invalid JSON body" in answer.json["message"]
    assert "browser" not in answer.json["message"]


def test_a_body_that_is_not_json_is_415_and_names_its_type(client: FlaskClient) -> None:
    answer = client.post("/games", data="{}", content_type="text/plain")
    assert answer.status_code == 415
    assert "application/json" in answer.json["message"] and "text/plain" in answer.json["message"]


def test_an_oversized_chunked_body_is_413(app: Flask, client: FlaskClient) -> None:
    big = b'{"name": "' + b"x" * (app.config["MAX_CONTENT_LENGTH"] + 10) + b'"}'
    answer = client.post(
        f"/games/{UNKNOWN}/players",
        input_stream=io.BytesIO(big),
        headers={"Transfer-Encoding": "chunked", "Content-Type": "application/json"},
        environ_overrides={"wsgi.input_terminated": True},  # as servers set it for chunked
    )
    assert answer.status_code == 413, answer.json


def test_a_source_outside_the_known_places_is_422(client: FlaskClient) -> None:
    answer = client.post(
        f"/games/{UNKNOWN}/assemble",
        json={"card": 6, "components": [{"card": 4, "source": "attic"}]},
        headers={"Authorization": "Bearer x"},
    )
    assert answer.status_code == 422
    assert "components.0.source" in answer.json["message"]


def test_the_log_of_an_unknown_game_is_404_and_of_an_unprojected_one_503(
    client: FlaskClient,
) -> None:
    assert client.get(f"/games/{UNKNOWN}/log").status_code == 404
    created = client.post("/games", json={}).json
    for path in ("", "/log", "/scoreboard"):
        answer = client.get(f"/games/{created['game_id']}{path}")  # no runner here
        assert answer.status_code in (404, 503), path
        if path != "/scoreboard":  # the scoreboard holds a game once a seat is taken
            assert answer.status_code == 503
            assert f"after={created['position']}" in answer.json["message"]


def test_a_log_asked_from_its_end_or_past_it_is_empty_and_of_no_game_404(tmp_path: Path) -> None:
    app = embedded_app(tmp_path / "live", run_projections=True)
    try:
        client = app.test_client()
        game = client.post("/games", json={}).json["game_id"]
        after = client.post(f"/games/{game}/players", json={"name": "Ada"}).json["position"]
        whole = client.get(f"/games/{game}/log?after={after}").json["data"]
        assert [e["event"] for e in whole] == ["GameCreated", "PlayerJoined"]
        assert client.get(f"/games/{game}/log?since=1&after={after}").json["data"] == whole[1:]
        for since in (2, 3, 50):  # up to date, and past the end
            answer = client.get(f"/games/{game}/log?since={since}&after={after}")
            assert answer.status_code == 200 and answer.json["data"] == [], since
        for since in (0, 2, 50):
            assert client.get(f"/games/{UNKNOWN}/log?since={since}").status_code == 404, since
    finally:
        app.extensions["opus"].close()


def test_the_catalog_names_every_card_the_game_deals(client: FlaskClient) -> None:
    from domain.catalog import load_catalog

    catalog = client.get("/cards")
    assert catalog.status_code == 200
    cards = {c["id"]: c for c in catalog.json["cards"]}
    deck = load_catalog().base_deck + load_catalog().guild_deck
    assert set(cards) == set(deck)
    love = cards[6]
    assert love["name"]["en"] == "Love Potion" and love["name"]["ru"]
    assert [r["elements"] for r in love["requires"]] == [[4], [5]]
    assert cards[200]["stone"] == "nigredo" and cards[206]["spell"] == "transmutation"
    assert all(c["name"]["ru"] and c["name"]["en"] for c in cards.values())
    assert {e["id"] for e in catalog.json["elements"]} >= {
        e for c in cards.values() for e in c["elements"]
    }
    assert len(catalog.json["sequence_cards"]) == 6


def test_the_spec_names_tokens_and_headers_and_docs_load_nothing_from_elsewhere(
    client: FlaskClient,
) -> None:
    spec = client.get("/openapi.json").json
    paths = spec["paths"]

    def headers(op: dict[str, object]) -> set[str]:
        params = op.get("parameters", [])
        assert isinstance(params, list)
        return {p["name"] for p in params if p.get("in") == "header"}

    for kind in ("discard", "assemble", "place", "cast", "pass"):
        move = paths["/games/{game_id}/" + kind]["post"]
        assert move["security"] == [{"token": []}]
        assert headers(move) == {"Idempotency-Key", "If-Match"}
    assert paths["/games/{game_id}/start"]["post"]["security"] == [{"token": []}]
    assert paths["/games/{game_id}/hand"]["get"]["security"] == [{"token": []}]
    assert paths["/games/{game_id}/legal-moves"]["get"]["security"] == [{"token": []}]
    assert "security" not in paths["/games/{game_id}"]["get"]
    assert headers(paths["/games"]["post"]) == {"Idempotency-Key"}
    assert headers(paths["/games/{game_id}/events"]["get"]) == {"Last-Event-ID"}
    page = client.get("/docs").get_data(as_text=True)
    sources = [part.split('"')[1] for part in page.split("src=")[1:]]
    sources += [part.split('"')[1] for part in page.split("href=")[1:]]
    assert sources and all(s.startswith("/docs/assets/") for s in sources), sources
    for source in sources:
        assert client.get(source).status_code == 200, source


def test_an_idempotency_key_reused_for_another_request_is_422(client: FlaskClient) -> None:
    """The IETF Idempotency-Key draft's conflict: never a silent replay."""
    own = {"Authorization": "Bearer " + "o" * 43, "Idempotency-Key": "k-1"}
    created = client.post("/games", json={"draw": "five"}, headers=own)
    assert created.status_code == 201
    conflict = client.post("/games", json={"draw": "one"}, headers=own)
    assert conflict.status_code == 422 and "Idempotency-Key" in conflict.json["errors"]["headers"]
    again = client.post("/games", json={"draw": "five"}, headers=own)
    assert again.status_code == 201 and again.json["game_id"] == created.json["game_id"]
    game = created.json["game_id"]
    key = {"Idempotency-Key": "k-1"}
    joined = client.post(f"/games/{game}/players", json={"name": "Ada"}, headers=key)
    assert joined.status_code == 201
    other = client.post(f"/games/{game}/players", json={"name": "Boris"}, headers=key)
    assert other.status_code == 422
    client.post(f"/games/{game}/players", json={"name": "Boris"})
    organiser = {"Authorization": own["Authorization"]}
    assert client.post(f"/games/{game}/start", headers=organiser).status_code == 200
    seat = {"Authorization": f"Bearer {joined.json['token']}", "Idempotency-Key": "move"}
    legal = client.get(f"/games/{game}/legal-moves", headers=seat).json["moves"]
    discards = [m for m in legal if m["path"].endswith("/discard")]
    first = client.post(discards[0]["path"], json=discards[0]["body"], headers=seat)
    assert first.status_code == 201
    reused = client.post(discards[1]["path"], json=discards[1]["body"], headers=seat)
    assert reused.status_code == 422, reused.json
    retried = client.post(discards[0]["path"], json=discards[0]["body"], headers=seat)
    assert retried.status_code == 201 and retried.json["version"] == first.json["version"]


def test_a_create_key_is_the_callers_alone_and_makes_no_guessable_game(
    client: FlaskClient,
) -> None:
    """Whoever sent a guessable key first would hold the game: a key on
    create needs the caller's own organiser token, which scopes it."""
    anonymous = client.post("/games", json={}, headers={"Idempotency-Key": "game-1"})
    assert anonymous.status_code == 401
    assert "Authorization" in anonymous.json["errors"]["headers"]
    short = client.post(
        "/games", json={}, headers={"Idempotency-Key": "game-1", "Authorization": "Bearer x"}
    )
    assert short.status_code == 422
    mine = {"Idempotency-Key": "game-1", "Authorization": "Bearer " + "m" * 43}
    theirs = {"Idempotency-Key": "game-1", "Authorization": "Bearer " + "t" * 43}
    first = client.post("/games", json={}, headers=mine)
    other = client.post("/games", json={}, headers=theirs)
    assert first.status_code == other.status_code == 201
    assert first.json["game_id"] != other.json["game_id"]
    assert first.json["organiser_token"] == "m" * 43
    retried = client.post("/games", json={}, headers=mine)
    assert retried.json["game_id"] == first.json["game_id"] and retried.json["replayed"]
    started = client.post(
        f"/games/{first.json['game_id']}/start", headers={"Authorization": mine["Authorization"]}
    )
    assert started.status_code == 409  # the organiser's: R2.1, no players yet
    assert (
        client.post(
            f"/games/{first.json['game_id']}/start",
            headers={"Authorization": theirs["Authorization"]},
        ).status_code
        == 403
    )


def test_a_body_nested_too_deep_is_an_invalid_json_body(client: FlaskClient) -> None:
    answer = client.post("/games", data="[" * 50_000, content_type="application/json")
    assert answer.status_code == 400 and "invalid JSON body" in answer.json["message"]


# Words of Python's, never of the API's: an error message names what is
# wrong with the body, not the parser's internals.
PYTHON_WORDS = ("sys.", "codec", "recursion", "'utf-8'", "int_max_str", "position", "syntax")


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (b"[" * 50_000, "arrays and objects are nested more than 32 deep"),
        (b'{"stage_points": ' + b"[" * 980 + b"]" * 980 + b"}", "nested more than 32 deep"),
        (b'{"name": "[{", "contribution": ' + b"[" * 33 + b"]" * 33 + b"}", "more than 32"),
        (b'{"stage_points": [' + b"1" * 5000 + b"]}", "a number has more than 4,300 digits"),
        (b'{"name": "\xffAda"}', "not UTF-8 text: the byte 0xFF at offset 10"),
        (b'{"name": "\xed\xa0\x80"}', "not UTF-8 text: the byte 0xED at offset 10"),
        (b"\xff\xfe{\x00}\x00", "not UTF-8 text: the byte 0xFF at offset 0"),  # UTF-16
        (b'\xef\xbb\xbf{"name": "Ada"}', "begins with a byte order mark (U+FEFF)"),
        (b'{"name": "Ada", "contribution": NaN}', "NaN is not a JSON value"),
        (b'{"name": "Ada",}', "line 1, column 16"),
    ],
    ids=[
        "deep",
        "near-the-limit",
        "past-ours",
        "digits",
        "byte",
        "surrogate",
        "utf-16",
        "bom",
        "nan",
        "comma",
    ],
)
def test_a_malformed_body_is_400_naming_what_is_wrong_in_plain_words(
    client: FlaskClient, body: bytes, says: str
) -> None:
    for path in ("/games", f"/games/{UNKNOWN}/players"):
        answer = client.post(path, data=body, content_type="application/json")
        assert answer.status_code == 400, (path, answer.json)
        assert set(answer.json) == {"code", "status", "message", "errors", "rule"}
        message = answer.json["message"]
        assert message.startswith("invalid JSON body: ") and says in message, message
        assert not any(word in message.lower() for word in PYTHON_WORDS), message


def test_a_token_holds_one_seat_of_a_game(client: FlaskClient) -> None:
    game = client.post("/games", json={}).json["game_id"]
    own = {"Authorization": "Bearer " + "s" * 43}
    assert client.post(f"/games/{game}/players", json={"name": "A"}, headers=own).status_code == 201
    again = client.post(f"/games/{game}/players", json={"name": "B"}, headers=own)
    assert again.status_code == 409 and "holds a seat" in again.json["message"]


def test_the_same_command_resent_with_other_json_spelling_is_a_retry(
    client: FlaskClient,
) -> None:
    own = {"Authorization": "Bearer " + "r" * 43, "Idempotency-Key": "spelled"}
    first = client.post(
        "/games",
        data='{"draw": "five", "guild": true}',
        content_type="application/json",
        headers=own,
    )
    again = client.post(
        "/games",
        data='{ "guild" : true ,\n "draw":"five" }',
        content_type="application/json",
        headers=own,
    )
    assert first.status_code == again.status_code == 201
    assert again.json["game_id"] == first.json["game_id"] and again.json["replayed"]


def test_R3_5_a_withdrawal_of_a_seat_that_is_not_there_is_refused(client: FlaskClient) -> None:
    created = client.post("/games", json={}).json
    game, organiser = created["game_id"], created["organiser_token"]
    for name in ("Ada", "Boris"):
        client.post(f"/games/{game}/players", json={"name": name})
    client.post(f"/games/{game}/start", headers={"Authorization": f"Bearer {organiser}"})
    answer = client.post(
        f"/games/{game}/withdraw",
        json={"seat": 3},
        headers={"Authorization": f"Bearer {organiser}"},
    )
    assert answer.status_code == 409 and answer.json["rule"] == "R3.5"


def test_R2_1_the_organiser_removes_a_seat_before_the_start(client: FlaskClient) -> None:
    created = client.post("/games", json={}).json
    game = created["game_id"]
    as_organiser = {"Authorization": f"Bearer {created['organiser_token']}"}
    tokens = [
        client.post(f"/games/{game}/players", json={"name": n}).json["token"]
        for n in ("Ada", "Boris", "Cleo")
    ]
    remove = f"/games/{game}/remove-seat"
    by_seat = client.post(
        remove, json={"seat": 1}, headers={"Authorization": f"Bearer {tokens[0]}"}
    )
    assert by_seat.status_code == 403
    assert client.post(remove, json={"seat": 1}, headers=as_organiser).status_code == 200
    assert client.post(f"/games/{game}/start", headers=as_organiser).status_code == 200
    cleo = {"Authorization": f"Bearer {tokens[2]}"}
    assert client.get(f"/games/{game}/legal-moves", headers=cleo).json["seat"] == 1
    boris = client.get(
        f"/games/{game}/legal-moves", headers={"Authorization": f"Bearer {tokens[1]}"}
    )
    assert boris.status_code == 403
    late = client.post(remove, json={"seat": 0}, headers=as_organiser)
    assert late.status_code == 409 and late.json["rule"] == "R2.1"


MALFORMED = st.one_of(
    st.binary(max_size=200),
    st.integers(4_000, 6_000).map(lambda n: b'{"stage_points": [' + b"9" * n + b"]}"),
    st.integers(1_000, 60_000).map(lambda n: b"[" * n),
    st.text(max_size=50).map(lambda t: ('{"name": "' + t).encode("utf-8", "surrogatepass")),
    st.sampled_from([b"\xff\xfe{}", b'{"name": "\xed\xa0\x80"}', b"NaN", b"1e999999"]),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=MALFORMED)
def test_no_body_at_all_gives_a_server_error(client: FlaskClient, body: bytes) -> None:
    """Fuzz: bytes, numbers too long for Python, nesting too deep, broken
    UTF-8, sent as JSON to the endpoints that need no token."""
    for path in ("/games", f"/games/{UNKNOWN}/players"):
        answer = client.post(path, data=body, content_type="application/json")
        assert answer.status_code < 500, (path, body[:80], answer.json)
