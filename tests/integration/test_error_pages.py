"""An error the app answers outside the pages (api/errors.py) is the web
client's error page when the request's Accept prefers text/html (a
browser's address bar), and the API's JSON otherwise (curl's ``*/*``, API
clients, no Accept): the same status and headers either way, the JSON's
shape unchanged. Through Flask's test client on real SQLite stores."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest
from flask import Flask
from werkzeug.test import TestResponse

from api.errors import error_body
from api.web.pages import CSP
from tests.apps import embedded_app

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
NOT_BROWSERS = ["*/*", "application/json", "application/json, text/html;q=0.5", None]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    folder: Path = tmp_path_factory.mktemp("errors")
    flask_app = embedded_app(folder, run_projections=False)

    def boom() -> str:
        raise RuntimeError("a bug with a secret in it: s3cr3t")

    flask_app.add_url_rule("/boom", "boom", boom)  # an endpoint that fails: 500
    yield flask_app
    flask_app.extensions["opus"].close()


def get(
    app: Flask, path: str, accept: str | None, method: str = "GET", **headers: str
) -> TestResponse:
    if accept is not None:
        headers["Accept"] = accept
    return app.test_client().open(path, method=method, headers=headers)


def error_page(answer: TestResponse, status: int) -> str:
    """The page's checks: HTML at the status, the pages' security headers,
    the status in its title, nothing inline."""
    assert answer.status_code == status
    assert answer.mimetype == "text/html"
    assert answer.headers["Content-Security-Policy"] == CSP
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert "Accept" in answer.headers["Vary"]
    body = answer.get_data(as_text=True)
    assert f"<title>{status} · Opus</title>" in body
    assert f"({status})</h1>" in body
    assert "<script>" not in body and " style=" not in body
    assert 'href="/rules"' in body  # the pages' header, with its links
    return body


CASES = [
    # (path, method, status, JSON message)
    ("/nope", "GET", 404, "Not Found: nothing matches the given uri"),
    ("/games/not-a-uuid", "GET", 404, "Not Found: nothing matches the given uri"),
    (f"/games/{UUID(int=7)}", "GET", 404, f"no game {UUID(int=7)}"),
    ("/lobby", "DELETE", 405, "Method Not Allowed: specified method is invalid for this resource"),
    ("/table/new", "GET", 405, "Method Not Allowed: specified method is invalid for this resource"),
    ("/boom", "GET", 500, "internal error"),
]


@pytest.mark.parametrize(("path", "method", "status", "message"), CASES)
def test_a_browser_gets_the_error_page(
    app: Flask, path: str, method: str, status: int, message: str
) -> None:
    body = error_page(get(app, path, BROWSER, method), status)
    assert f'<p class="notice" role="alert">{message}</p>' in body
    assert "s3cr3t" not in body


@pytest.mark.parametrize("accept", NOT_BROWSERS)
@pytest.mark.parametrize(("path", "method", "status", "message"), CASES)
def test_an_api_client_gets_the_json_it_always_got(
    app: Flask, path: str, method: str, status: int, message: str, accept: str | None
) -> None:
    answer = get(app, path, accept, method)
    assert answer.status_code == status
    assert answer.mimetype == "application/json"
    assert answer.json == error_body(status, message)
    assert "Content-Security-Policy" not in answer.headers


@pytest.mark.parametrize("accept", [BROWSER, "*/*"])
def test_a_405_names_the_methods_it_takes_either_way(app: Flask, accept: str) -> None:
    answer = get(app, "/lobby", accept, "DELETE")
    assert answer.status_code == 405
    assert set(answer.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS"}


def test_the_error_page_speaks_the_browsers_language(app: Flask) -> None:
    russian = error_page(get(app, "/nope", BROWSER, **{"Accept-Language": "ru"}), 404)
    assert '<html lang="ru">' in russian
    assert "По этому адресу ничего нет." in russian
    english = error_page(get(app, "/nope", BROWSER), 404)
    assert "There is nothing at this address." in english
    failed = error_page(get(app, "/boom", BROWSER), 500)
    assert "The service failed on this request" in failed


def test_the_error_page_sets_no_cookie_and_its_language_switch_comes_back(app: Flask) -> None:
    answer = get(app, "/nope?x=<y>", BROWSER)
    body = error_page(answer, 404)
    assert "Set-Cookie" not in answer.headers
    switch = re.search(r'<a href="(/lang/ru\?next=[^"]+)"', body)
    assert switch and "<y>" not in body
    assert get(app, switch.group(1).replace("&amp;", "&"), BROWSER).status_code == 303


def test_a_rule_refusal_on_the_api_is_a_page_naming_its_rule_linked(app: Flask) -> None:
    client = app.test_client()
    created = client.post("/games", json={})
    game = created.json["game_id"]
    seat = client.post(f"/games/{game}/players", json={"name": "Ada"}).json["token"]
    answer = client.post(  # the game has not started (R2.1)
        f"/games/{game}/pass",
        json={},
        headers={"Authorization": f"Bearer {seat}", "Accept": BROWSER},
    )
    body = error_page(answer, 409)
    as_json = client.post(
        f"/games/{game}/pass", json={}, headers={"Authorization": f"Bearer {seat}"}
    ).json
    rule = as_json["rule"]
    assert rule and rule.startswith("R")
    assert f'Refused by rule <a class="rule-ref" href="/rules#{rule}">{rule}</a>: ' in body
