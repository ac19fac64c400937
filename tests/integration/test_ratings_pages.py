"""Ratings where people see them, through Flask's test client with the
projections running: the leaderboard by rating (the number shown, μ and σ
on hover, the seat effects), an account's page with its rating history as
an SVG chart (a point per rated game, each game linked below it) under the
pages' Content-Security-Policy, and ``GET /ratings`` and
``GET /ratings/{account}``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from domain.application import Opus
from domain.ratings import shown
from tests.apps import embedded_app
from tests.integration.test_ratings_view import Log, fill

ABBR = re.compile(r'<abbr class="rating" title="μ ([0-9.]+), σ ([0-9.]+)">(−?[0-9]+)</abbr>')


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Flask, Log, int]]:
    flask_app = embedded_app(tmp_path_factory.mktemp("ratings-pages"), run_projections=True)
    service: Opus = flask_app.extensions["opus"].opus
    log = fill(service)
    yield flask_app, log, service.recorder.max_notification_id() or 0
    flask_app.extensions["opus"].close()


def page(client: FlaskClient, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, path
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "style-src 'self'" in csp
    return response.get_data(as_text=True)


def test_the_leaderboard_by_rating(served: tuple[Flask, Log, int]) -> None:
    app, log, head = served
    client = app.test_client()
    html = page(client, f"/players?after={head}")
    board = html[html.index('id="rt-board-h"') : html.index('id="rt-seats-h"')]
    rows = re.findall(r'<tr data-account="([0-9a-f-]{36})">', board)
    ratings = client.get("/ratings").get_json()["data"]
    assert rows == [row["account"] for row in ratings["players"]]
    assert set(rows) == {str(a) for name, a in log.accounts.items() if name != "Eve"}
    numbers = [
        (float(mu), float(sigma), int(n.replace("−", "-"))) for mu, sigma, n in ABBR.findall(board)
    ]
    assert len(numbers) == 5
    for (mu, sigma, number), row in zip(numbers, ratings["players"], strict=True):
        assert number == row["rating"] == shown(row["mu"], row["sigma"])
        assert (mu, sigma) == (round(row["mu"], 2), round(row["sigma"], 2))
    assert [n for _, _, n in numbers] == sorted((n for _, _, n in numbers), reverse=True)
    assert "Ann Lovelace" in board and "(greedy bot)" in board
    seats = html[html.index('id="rt-seats-h"') :]
    assert re.findall(r'data-seat="(\d/\d)"', seats) == [
        f"{k}/{s}" for s in (2, 3, 4) for k in range(s)
    ]
    assert "By wins" in html  # the leaderboard by wins goes on below


def test_an_accounts_page_draws_its_rating_history(served: tuple[Flask, Log, int]) -> None:
    app, log, head = served
    client = app.test_client()
    ann = log.accounts["Ann"]
    html = page(client, f"/account/{ann}?after={head}")
    rating = client.get(f"/ratings/{ann}").get_json()["data"]
    assert rating["games"] == 3 and len(rating["history"]) == 3
    svg = html[html.index("<svg") : html.index("</svg>") + 6]
    assert 'role="img"' in svg and 'aria-labelledby="rating-chart-title rating-chart-desc"' in svg
    assert "style=" not in svg and "<script" not in svg and "on" + "mouse" not in svg
    titles = re.findall(r"<circle [^>]*><title>([^<]*)</title></circle>", svg)
    assert len(titles) == 3
    for n, (title, point) in enumerate(zip(titles, rating["history"], strict=True), start=1):
        assert title.startswith(f"Game {n}: rating {point['rating']} (μ {point['mu']:.2f}")
    assert "3 rated games; the rating went from 0 to" in svg
    linked = re.findall(r'<tr data-game="([0-9a-f-]{36})">', html)
    assert linked == [p["game"] for p in reversed(rating["history"])]
    for game in linked:
        assert f'href="/replay/{game}"' in html
    assert f"rank {rating['rank']} of 5" in html
    eve = app.extensions["opus"].opus.accounts.open("Eve").account
    after = app.extensions["opus"].opus.recorder.max_notification_id()
    fresh = page(client, f"/account/{eve}?after={after}")
    assert "Not rated yet" in fresh and "<svg" not in fresh
    russian = client.get(f"/account/{ann}", headers={"Accept-Language": "ru"})
    assert "История рейтинга" in russian.get_data(as_text=True)


def test_the_api_answers(served: tuple[Flask, Log, int]) -> None:
    app, log, head = served
    client = app.test_client()
    answer = client.get(f"/ratings?limit=2&after={head}")
    assert answer.status_code == 200
    body = answer.get_json()
    assert body["position"] >= head and len(body["data"]["players"]) == 2
    assert body["data"]["model"]["model"] == "PlackettLuce"
    one = client.get(f"/ratings/{log.accounts['Cat']}").get_json()["data"]
    assert one["name"] == "Cat" and one["history"][-1]["mu"] == one["mu"]
    assert client.get(f"/ratings/{log.games['two']}").status_code == 404  # a game is no account
    paths = client.get("/openapi.json").get_json()["paths"]
    assert "/ratings" in paths and "/ratings/{account_id}" in paths


def test_nothing_rated_yet(tmp_path: Path) -> None:
    flask_app = embedded_app(tmp_path, run_projections=True)
    try:
        client = flask_app.test_client()
        html = page(client, "/players")
        assert "No rated game yet." in html
        assert client.get("/ratings").get_json()["data"]["players"] == []
    finally:
        flask_app.extensions["opus"].close()
