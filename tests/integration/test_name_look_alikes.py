"""Names that cannot impersonate, through the pages with the projections
running (Flask's test client, real SQLite stores): an account's name that
looks like another account's is refused at sign-up and rename with the
name it looks like, in the page's language, and opens nothing; a person's
seat may not look like another seat or a bot, nor claim a bot's seed.
(The rules themselves: tests/unit/test_names.py.)"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest
from flask import Flask

from api.runtime import services
from api.web.session import SESSION_COOKIE
from domain.accounts.aggregate import AccountName, name_id
from domain.application import Opus
from domain.errors import AccountNotFoundError
from tests.apps import embedded_app
from tests.integration.test_web_pages import create, csrf_of, join

CYRILLIC_A = "\u0410"
CYRILLIC_O = "\u043e"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    folder: Path = tmp_path_factory.mktemp("look_alikes")
    flask_app = embedded_app(folder, run_projections=True)
    yield flask_app
    flask_app.extensions["opus"].close()


def opus(app: Flask) -> Opus:
    service: Opus = app.extensions["opus"].opus
    return service


def account_seen(app: Flask, name: str, timeout: float = 10.0) -> None:
    """Wait (at most ``timeout`` s) until the accounts view lists ``name``."""
    deadline = time.monotonic() + timeout
    with app.app_context():
        while time.monotonic() < deadline:
            if any(doc["name"] == name for doc in services().views.accounts_like(name)):
                return
            time.sleep(0.05)
    raise AssertionError(f"the accounts view did not list {name!r} in {timeout} s")


def name_free(app: Flask, name: str) -> bool:
    try:
        with opus(app).accounts.runner.reading(name_id(name), AccountName) as owner:
            return not owner.account
    except AccountNotFoundError:
        return True


def sign_up(app: Flask, name: str, lang: str = "en") -> tuple[int, str]:
    client = app.test_client()
    client.set_cookie("opus_lang", lang)
    answer = client.post("/signup", data={"csrf": csrf_of(client), "name": name})
    return answer.status_code, answer.get_data(as_text=True)


def test_signing_up_under_a_look_alike_of_an_accounts_name_is_refused(app: Flask) -> None:
    opus(app).accounts.open("Ada Lovelace")
    account_seen(app, "Ada Lovelace")
    impostor = f"{CYRILLIC_A}da Lovelace"
    status, page = sign_up(app, impostor)
    assert status == 409
    assert "looks like “Ada Lovelace”, the name of another account: U+0410 (CYRILLIC" in page
    assert name_free(app, impostor)  # nothing opened
    status, page = sign_up(app, f"Ada L{CYRILLIC_O}velace", lang="ru")
    assert status == 409
    assert "выглядит как «Ada Lovelace» — имя другой учётной записи" in page
    status, _ = sign_up(app, "Ada Lovelace II")
    assert status == 303


def test_renaming_to_a_look_alike_of_another_accounts_name_is_refused(app: Flask) -> None:
    opus(app).accounts.open("Boris Godunov")
    eve = opus(app).accounts.open("Eve", session_label="test browser")
    account_seen(app, "Boris Godunov")
    account_seen(app, "Eve")
    assert eve.session is not None
    client = app.test_client()
    client.set_cookie(SESSION_COOKIE, eve.session)
    csrf = csrf_of(client)
    impostor = f"B{CYRILLIC_O}ris Godunov"
    answer = client.post("/account/name", data={"csrf": csrf, "name": impostor})
    assert answer.status_code == 409
    assert "looks like “Boris Godunov”" in answer.get_data(as_text=True)
    assert opus(app).accounts.view(eve.account).name == "Eve"
    # its own name, in other letters that look the same: no one else's
    answer = client.post("/account/name", data={"csrf": csrf, "name": "Ev\u0435"})
    assert answer.status_code == 303
    assert opus(app).accounts.view(eve.account).name == "Ev\u0435"


def test_a_blank_looking_account_name_is_refused_in_words(app: Flask) -> None:
    status, page = sign_up(app, "Ada\u3164")
    assert status == 422
    assert "U+3164 (HANGUL FILLER)" in page and "shows as nothing or as blank space" in page
    assert "Traceback" not in page


def test_a_person_may_not_seat_as_a_look_alike_or_as_a_bot_on_the_pages(app: Flask) -> None:
    client = app.test_client()
    csrf = csrf_of(client)
    game, _ = create(client, csrf)
    join(client, csrf, game, "Ada")
    for lang, cases in {
        "en": (
            (
                f"{CYRILLIC_A}da",
                f"“{CYRILLIC_A}da” looks like “Ada”, a name already taken here: U+0410",
            ),
            (f"Greedy b{CYRILLIC_O}t", "looks like the name of one of the service&#39;s bots"),
            ("Ada\u200d", "A name may not hold U+200D (ZERO WIDTH JOINER)"),
        ),
        "ru": (
            (f"{CYRILLIC_A}da", f"«{CYRILLIC_A}da» выглядит как «Ada» — это имя здесь уже занято"),
            (f"Greedy b{CYRILLIC_O}t", "выглядит как имя одного из ботов сервиса"),
            ("Ada\u3164", "В имени нельзя использовать U+3164 (HANGUL FILLER)"),
        ),
    }.items():
        stranger = app.test_client()
        stranger.set_cookie("opus_lang", lang)
        stranger_csrf = csrf_of(stranger)
        for name, words in cases:
            form = {"csrf": stranger_csrf, "name": name}
            answer = stranger.post(f"/table/{game}/join", data=form)
            assert answer.status_code == 409, name
            assert words in answer.get_data(as_text=True), (lang, name)
    assert opus(app).state(UUID(game)).names == ["Ada"]


def test_the_api_refuses_a_persons_bot_seat_and_look_alike_registration(app: Flask) -> None:
    api = app.test_client()
    game = api.post("/games", json={}).get_json()["game_id"]
    answer = api.post(
        f"/games/{game}/players", json={"name": "Ada", "contribution": "bot:greedy:00"}
    )
    assert answer.status_code == 409
    assert "a seed contribution reading 'bot:' is a bot's" in answer.get_json()["message"]
    cup = api.post("/tournaments", json={"name": "Cup"}).get_json()["tournament_id"]
    assert api.post(f"/tournaments/{cup}/players", json={"name": "Ada"}).status_code == 201
    answer = api.post(f"/tournaments/{cup}/players", json={"name": f"{CYRILLIC_A}da"})
    assert answer.status_code == 409
    assert "looks like 'Ada', a name registered in this tournament" in answer.get_json()["message"]
    assert opus(app).state(UUID(game)).names == []  # the refused seat recorded nothing
