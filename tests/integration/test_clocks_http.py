"""Timed games over HTTP on the embedded defaults (real SQLite events and
views, the projections and the clock scheduler in the app's threads): a
game made with a clock (R11.1, by values or preset, a bad clock refused
naming R11.1), its clocks read from the server's deadline and time, the
organiser's pause (R11.6), and a seat that stops moving timed out by the
scheduler within the clock's grace (R11.4, R11.5), the log then verifying."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.web.session import SESSION_COOKIE
from domain.audit import verify_game
from domain.clock import PRESETS, SECOND, micros, moment
from domain.pipeline import Caller
from domain.ruleset import RuleSet
from infra.eventlog import game_records
from tests.apps import embedded_app

TOKEN = "o" * 43


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    flask_app = embedded_app(tmp_path_factory.mktemp("clocks"), run_projections=True)
    yield flask_app
    flask_app.extensions["opus"].close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def timed_game(client: FlaskClient, body: dict[str, Any]) -> str:
    made = client.post("/games", json=body, headers=bearer(TOKEN))
    assert made.status_code == 201, made.json
    game = str(made.json["game_id"])
    for n in (1, 2):
        joined = client.post(f"/games/{game}/players", json={"name": f"P{n}"})
        assert joined.status_code == 201, joined.json
    started = client.post(f"/games/{game}/start", headers=bearer(TOKEN))
    assert started.status_code == 200, started.json
    return game


def clocks(client: FlaskClient, game: str) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while True:
        answer = client.get(f"/games/{game}/clocks")
        if answer.status_code == 200 or time.monotonic() > deadline:
            assert answer.status_code == 200, answer.json
            data: dict[str, Any] = answer.json["data"]
            return data
        time.sleep(0.05)


def test_R11_1_a_clock_by_preset_or_values_and_a_bad_one_refused(app: Flask) -> None:
    client = app.test_client()
    game = timed_game(client, {"clock_preset": "blitz"})
    told = clocks(client, game)
    assert told["clock"] == {
        "initial": 180,
        "increment": 5,
        "move_limit": None,
        "on_timeout": "withdraw",
        "grace": 5,
    }
    assert told["turn"] == 0 and told["left"][1] == 180 * SECOND
    assert told["deadline"] - told["server_time"] <= 180 * SECOND
    bad = client.post("/games", json={"clock": {"initial": 5}}, headers=bearer(TOKEN))
    assert bad.status_code == 409 and bad.json["message"].startswith("R11.1:")
    assert "initial is between 10 seconds and 30 days" in bad.json["message"]
    both = client.post(
        "/games", json={"clock": {"initial": 60}, "clock_preset": "blitz"}, headers=bearer(TOKEN)
    )
    assert both.status_code == 409 and "not both" in both.json["message"]
    untimed = client.post("/games", headers=bearer(TOKEN)).json["game_id"]
    answer = client.get(f"/games/{untimed}/clocks")
    assert answer.status_code == 200 and answer.json["data"]["clock"] is None
    assert client.get("/games/00000000-0000-4000-8000-000000000000/clocks").status_code == 404


def test_R11_6_the_organiser_pauses_and_no_one_else_may(app: Flask) -> None:
    client = app.test_client()
    game = timed_game(client, {"clock": {"initial": 600, "increment": 10}})
    body = {"reason": "a fire drill", "by": "Arbiter"}
    stranger = client.post(f"/games/{game}/clocks/pause", json=body, headers=bearer("s" * 43))
    assert stranger.status_code == 403
    paused = client.post(f"/games/{game}/clocks/pause", json=body, headers=bearer(TOKEN))
    assert paused.status_code == 201, paused.json
    deadline = time.monotonic() + 10
    while not clocks(client, game)["paused"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert clocks(client, game)["deadline"] is None
    again = client.post(f"/games/{game}/clocks/pause", json=body, headers=bearer(TOKEN))
    assert again.status_code == 409 and again.json["message"].startswith("R11.6:")


def test_R11_4_a_seat_that_stops_moving_times_out_within_grace(app: Flask) -> None:
    """Seat 0 has 10 s and never moves: the scheduler records its
    TimeExpired (at its deadline exactly) within the clock's 5 s of grace,
    the seat is withdrawn for the clock, and the log verifies."""
    client = app.test_client()
    game = timed_game(client, {"clock": {"initial": 10, "grace": 5}})
    deadline = clocks(client, game)["deadline"]
    opus = app.extensions["opus"].opus
    found = None
    while found is None:
        records = game_records(opus, UUID(game))
        found = next((r for r in records if r.type == "TimeExpired"), None)
        assert time.time() * SECOND < deadline + 5 * SECOND, "not recorded within grace"
        time.sleep(0.1)
    assert micros(found.payload["at"]) == deadline  # type: ignore[index]
    recorded_at = micros(found.timestamp)
    assert deadline <= recorded_at < deadline + 5 * SECOND
    after = [r.type for r in records if r.version > found.version]
    assert after[:1] == ["SeatWithdrawn"]
    assert verify_game(records).ok
    assert [r.type for r in records].count("TimeExpired") == 1


def test_the_lobby_shows_a_timed_games_speed(app: Flask) -> None:
    client = app.test_client()
    ids = []
    for body in ({"clock_preset": "rapid"}, {"clock": {"initial": 90, "increment": 3}}, {}):
        made = client.post("/games", json=body, headers=bearer(TOKEN))
        assert made.status_code == 201, made.json
        ids.append(made.json["game_id"])
    deadline = time.monotonic() + 10
    while True:
        page = client.get("/").get_data(as_text=True)
        items = {g: re.search(rf'data-game="{g}">(.*?)</li>', page, re.S) for g in ids}
        if all(items.values()):
            break
        assert time.monotonic() < deadline, "the games never reached the lobby"
        time.sleep(0.1)
    rapid, own, untimed = (item.group(1) for item in items.values() if item)
    assert "rapid 10 min + 10 s" in rapid  # a preset, by its name and values
    assert "90 s + 3 s" in own and "rapid" not in own
    assert 'class="speed"' not in untimed


def test_me_tells_whose_timed_move_is_due(app: Flask) -> None:
    """A correspondence game (days): the seat whose turn it is sees on /me
    when its move is due (the turn's deadline, in UTC); the other seat not."""
    opus = app.extensions["opus"].opus
    ada = opus.accounts.open("Ada Daily", session_label="test browser")
    boris = opus.accounts.open("Boris Daily", session_label="test browser")
    game = opus.create(RuleSet.timed(PRESETS["daily"]), secret=bytes(32)).aggregate_id
    for opened in (ada, boris):
        holder = opus.accounts.view(opened.account).holder_hash
        opus.join(game, opus.accounts.view(opened.account).name, caller=Caller(holder))
    started = opus.start(game)
    deadline = opus.state(game).clocks.deadline()
    pages = {}
    for name, opened in (("ada", ada), ("boris", boris)):
        client = app.test_client()
        client.set_cookie(SESSION_COOKIE, opened.session)
        pages[name] = client.get(f"/me?after={started.position}").get_data(as_text=True)
    due = moment(deadline).isoformat()[:16].replace("T", " ")
    assert f"your move is due by {due} UTC" in pages["ada"]
    assert "your move is due" not in pages["boris"]
