"""The organiser's desk (api/web/desk.py) through Flask's test client, on
real SQLite stores with the projections running: a tournament created with
its options from the form, registered (by the desk and by players
themselves, each in their own browser), paired, called, corrected,
penalised and finished through the desk; a registered player's table page
is their seat's; a stale form and a stranger are refused and change
nothing; refusals name their T rule; a lobby game's organiser removes,
starts and withdraws from the table page. (In Chromium:
tests/browser/test_desk_pages.py.)"""

from __future__ import annotations

import html
import random
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient
from marshmallow import fields, validate
from werkzeug.test import TestResponse

from api.tournament_schemas import CreateTournamentSchema
from api.web.desk import CREATE_FIELDS, FormField, form_fields
from api.web.i18n import STRINGS
from api.web.words.desk import WORDS
from domain.application import Opus
from domain.bots import random_bot
from tests.apps import embedded_app
from tests.integration.test_web_pages import live_attr, offered

VERSION = re.compile(r'name="version" value="(\d+)"')
ISSUED = re.compile(r'id="issued-token" class="token" readonly value="([^"]+)"')


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, monkeypatch_module: None) -> Iterator[Flask]:
    folder: Path = tmp_path_factory.mktemp("desk")
    flask_app = embedded_app(folder, run_projections=True)
    yield flask_app
    flask_app.extensions["opus"].close()


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[None]:
    """R3.5's inactivity limit at 0 s: a seat in turn may be withdrawn at once."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPUS_INACTIVITY_SECONDS", "0")
        yield


def opus(app: Flask) -> Opus:
    service: Opus = app.extensions["opus"].opus
    return service


def head(app: Flask) -> int:
    return int(opus(app).recorder.max_notification_id() or 0)


class Browser:
    """One person's browser: its own cookies, its CSRF token."""

    def __init__(self, app: Flask) -> None:
        self.client: FlaskClient = app.test_client()
        page = self.client.get("/").get_data(as_text=True)
        found = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
        assert found
        self.csrf = found.group(1)

    def get(self, path: str, **args: Any) -> TestResponse:
        return self.client.get(path, query_string=args)

    def page(self, path: str, **args: Any) -> str:
        answer = self.get(path, **args)
        assert answer.status_code == 200, answer.get_data(as_text=True)
        return answer.get_data(as_text=True)

    def post(self, path: str, data: dict[str, Any] | None = None) -> TestResponse:
        return self.client.post(path, data={"csrf": self.csrf, **(data or {})})


def text_of(page: str) -> str:
    """A page's words, as a reader gets them (tags out, entities decoded)."""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page)))


def notice(page: str) -> str:
    found = re.search(r'<div id="notice" class="notice" role="alert">(.*?)</div>', page, re.S)
    assert found, "no notice on the page"
    return text_of(found.group(1)).strip()


def after_of(answer: TestResponse) -> int:
    assert answer.status_code == 303, answer.get_data(as_text=True)
    found = re.search(r"after=(\d+)", answer.headers["Location"])
    assert found, answer.headers["Location"]
    return int(found.group(1))


def tournament_doc(browser: Browser, tournament: str, after: int | None = None) -> dict[str, Any]:
    answer = browser.get(f"/tournaments/{tournament}", **({"after": after} if after else {}))
    assert answer.status_code == 200, answer.json
    doc: dict[str, Any] = answer.json["data"]
    return doc


def desk_version(browser: Browser, tournament: str, after: int | None = None) -> int:
    page = browser.page(f"/desk/tournament/{tournament}", **({"after": after} if after else {}))
    versions = set(VERSION.findall(page))
    assert len(versions) == 1, versions  # every form carries the one version the page shows
    return int(versions.pop())


def create_tournament(organiser: Browser, name: str, **options: Any) -> tuple[str, int]:
    form = {"name": name, "draw": "five", "guild": "on", **options}
    answer = organiser.post("/desk/tournament/new", form)
    assert answer.status_code == 303, answer.get_data(as_text=True)
    found = re.search(r"/desk/tournament/([0-9a-f-]{36})", answer.headers["Location"])
    assert found
    return found.group(1), after_of(answer)


def desk_post(
    organiser: Browser, tournament: str, action: str, data: dict[str, Any] | None = None
) -> TestResponse:
    """A desk form as the desk shows it now: with its version."""
    version = desk_version(organiser, tournament, head_of(organiser))
    return organiser.post(
        f"/desk/tournament/{tournament}/{action}", {"version": version, **(data or {})}
    )


def head_of(browser: Browser) -> int:
    app = browser.client.application
    return head(app)


def register_at_desk(organiser: Browser, tournament: str, name: str) -> str:
    """A player registered by the organiser: the token the desk shows once."""
    answer = desk_post(organiser, tournament, "register", {"name": name})
    page = answer.get_data(as_text=True)
    assert answer.status_code == 200, page
    tokens = ISSUED.findall(page)
    assert len(tokens) == 1, page
    return tokens[0]


def play_out(app: Flask, game: UUID, seed: int) -> None:
    """The game played to its end by the service's own bots."""
    choose = random_bot(random.Random(seed))
    state = opus(app).state(game)
    for _ in range(2000):
        if state.status != "running":
            return
        opus(app).play(game, choose(state, state.turn))
        state = opus(app).state(game)
    raise AssertionError("the game did not end")


# ---- creating ----------------------------------------------------------------------------------


def schema_names(schema: Any, prefix: str = "") -> set[str]:
    names: set[str] = set()
    for name, field in schema.fields.items():
        if hasattr(field, "schema") and field.__class__.__name__ == "Nested":
            names |= schema_names(field.schema, f"{prefix}{name}.")
        else:
            names.add(f"{prefix}{name}")
    return names


def test_the_create_form_offers_every_option_of_the_apis_schema(app: Flask) -> None:
    page = Browser(app).page("/desk/tournament/new")
    offered_names = set(re.findall(r'<input[^>]* name="([a-z_.]+)"', page))
    assert schema_names(CreateTournamentSchema()) <= offered_names
    # bounds from the schema: the table sizes' 2..5
    assert re.search(r'name="tables.min"[^>]* min="2" max="5"', page)
    for field in CREATE_FIELDS:  # every option has its words in both languages
        for f in (field, *field.parts):  # (in the pages' words, whichever area says them)
            assert isinstance(f, FormField)
            assert all(STRINGS[f.words]) and all(
                STRINGS[f"{f.words}_hint"] if f.kind != "choice" else "x"
            ), f.words


def test_an_option_the_words_do_not_know_yet_is_offered_by_its_name_and_description() -> None:
    class Later(CreateTournamentSchema):  # the API's schema with an option added
        tiebreak = fields.String(
            load_default="seed",
            validate=validate.OneOf(("seed", "age")),
            metadata={"description": "A tie-break to come."},
        )

    made = {f.name: f for f in form_fields(Later())}
    tiebreak = made["tiebreak"]
    assert tiebreak.kind == "choice" and tiebreak.choices == ("seed", "age")
    assert tiebreak.default == "seed"
    assert tiebreak.said("", "en") == "tiebreak"
    assert tiebreak.said("_hint", "en") == "A tie-break to come."
    assert tiebreak.said("_age", "ru") == "age"
    assert made["name"].said("", "ru") == "Название турнира"  # one the words know
    assert made["weight"].description == "T4.2's pairing weight W."
    assert next(iter(made)) == "name"  # the required first


def test_a_tournament_is_created_with_the_options_the_form_gives(app: Flask) -> None:
    organiser = Browser(app)
    tournament, after = create_tournament(
        organiser,
        "Autumn <Open>",
        draw="one",
        guild="",  # unchecked: not sent
        stage_points=["1", "2", "3", "4", "5", "6", "7"],
        **{"tables.min": "3", "tables.preferred": "3", "tables.max": "4"},
        weight="5",
        late_until="2",
        time_limit="900",
        rounds="2",
        beacon="drand round 12345",
    )
    doc = tournament_doc(organiser, tournament, after)
    assert doc["name"] == "Autumn <Open>"
    assert doc["rules"] == {"draw": "one", "guild": False, "stage_points": [1, 2, 3, 4, 5, 6, 7]}
    assert doc["tables"] == {"min": 3, "preferred": 3, "max": 4}
    assert (doc["weight"], doc["late_until"], doc["time_limit"], doc["rounds"]) == (5, 2, 900, 2)
    assert doc["beacon"] == "drand round 12345"
    page = organiser.page(f"/desk/tournament/{tournament}", after=after)
    assert "Autumn &lt;Open&gt;" in page and "<Open>" not in page
    assert 'name="beacon"' in page  # round 1 needs the beacon's value (T1.3)
    # the organiser's cookie: HttpOnly, SameSite=Strict, as a game creator's
    cookie = organiser.client.get_cookie(f"opus_org_{tournament}")
    assert cookie is not None and cookie.http_only and cookie.same_site == "Strict"
    # the public page links this browser to the desk, and no other
    assert f'href="/desk/tournament/{tournament}"' in organiser.page(f"/tournament/{tournament}")
    assert f'href="/desk/tournament/{tournament}"' not in Browser(app).page(
        f"/tournament/{tournament}"
    )


def test_an_invalid_option_is_refused_naming_it_and_the_form_keeps_what_was_typed(
    app: Flask,
) -> None:
    organiser = Browser(app)
    before = head(app)
    answer = organiser.post(
        "/desk/tournament/new", {"name": "Kept name", "draw": "five", "weight": "many"}
    )
    page = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert "weight" in notice(page) and "Not a valid integer" in notice(page)
    assert 'value="Kept name"' in page and 'value="many"' in page
    assert head(app) == before  # nothing recorded
    # a value the domain refuses: its rule (T1.1: min ≤ preferred)
    answer = organiser.post(
        "/desk/tournament/new", {"name": "Backwards", "tables.min": "5", "tables.preferred": "3"}
    )
    assert answer.status_code == 409
    assert notice(answer.get_data(as_text=True)).startswith("Refused by rule T1.1:")
    assert head(app) == before


# ---- a whole tournament through the desk -----------------------------------------------------


def test_a_tournament_run_from_the_desk_from_registration_to_finish(app: Flask) -> None:
    organiser = Browser(app)
    tournament, after = create_tournament(
        organiser, "Spring Cup", **{"tables.preferred": "4", "tables.max": "4"}, time_limit="600"
    )
    desk = organiser.page(f"/desk/tournament/{tournament}", after=after, done="created")
    assert "The tournament is created." in desk
    assert "register themselves" in text_of(desk)  # players are told they may

    # two players register themselves, each in their own browser
    ada, boris = Browser(app), Browser(app)
    for browser, name in ((ada, "Ada"), (boris, "Boris")):
        page = browser.page(f"/tournament/{tournament}")
        assert 'action="/tournament/' in page and 'id="self-register"' in page
        answer = browser.post(f"/tournament/{tournament}/register", {"name": name})
        mine = browser.page(f"/tournament/{tournament}", after=after_of(answer))
        assert f"You are registered as {name}" in text_of(mine)
        cookie = browser.client.get_cookie(f"opus_reg_{tournament}")
        assert cookie is not None and cookie.http_only and cookie.same_site == "Strict"
    # a second registration from the same browser is refused
    again = ada.post(f"/tournament/{tournament}/register", {"name": "Ada again"})
    assert again.status_code == 409
    assert "already" in notice(again.get_data(as_text=True))

    # three by the desk: each token shown once, to hand over
    tokens = {name: register_at_desk(organiser, tournament, name) for name in ("Cleo", "Dora")}
    register_at_desk(organiser, tournament, "Eve")
    assert not ISSUED.search(organiser.page(f"/desk/tournament/{tournament}"))  # once
    cleo, dora = Browser(app), Browser(app)
    for browser, name in ((cleo, "Cleo"), (dora, "Dora")):
        wrong = browser.post(
            f"/tournament/{tournament}/claim", {"token": secrets.token_urlsafe(32)}
        )
        assert wrong.status_code == 403
        claimed = browser.post(f"/tournament/{tournament}/claim", {"token": tokens[name]})
        assert claimed.status_code == 303
        assert f"You are registered as {name}" in text_of(browser.page(f"/tournament/{tournament}"))

    # the organiser drops Eve (T2.2), then pairs round 1: one table of four
    dropped = desk_post(organiser, tournament, "drop", {"player": "5"})
    doc = tournament_doc(organiser, tournament, after_of(dropped))
    assert [p["dropped"] for p in doc["players"]] == [False, False, False, False, True]
    paired = desk_post(organiser, tournament, "pair")
    doc = tournament_doc(organiser, tournament, after_of(paired))
    assert doc["status"] == "playing"
    (table,) = doc["rounds_paired"][0]["tables"]
    game = table["game"]
    assert sorted(table["players"]) == [1, 2, 3, 4]

    # each player's tournament page leads to their game, whose page is their seat's
    players = {"Ada": ada, "Boris": boris, "Cleo": cleo, "Dora": dora}
    for name, browser in players.items():
        page = browser.page(f"/tournament/{tournament}", after=after_of(paired))
        assert "Your current game:" in text_of(page)
        assert f'href="/table/{game}">play</a>' in page
        seat = table["names"].index(name)
        mine = browser.page(f"/table/{game}", after=after_of(paired))
        assert f"You play as {name} (seat {seat + 1})." in text_of(mine)
        assert live_attr(mine, "seat") == str(seat)
    stranger = Browser(app).page(f"/table/{game}")
    assert live_attr(stranger, "seat") == ""
    # the player in turn moves from their own page (their registration token's seat)
    view = ada.page(f"/table/{game}/view")
    turn_name = table["names"][int(live_attr(view, "turn"))]
    mover = players[turn_name]
    page = mover.page(f"/table/{game}/view")
    moved = mover.client.post(
        f"/table/{game}/move",
        json={"move": offered(page)[0], "version": int(live_attr(page, "version"))},
        headers={"X-CSRF-Token": mover.csrf, "Accept": "application/json"},
    )
    assert moved.status_code == 200, moved.json

    # T8.1: no seat has withdrawn and the round's time is not up: refused, with its rule
    early = desk_post(organiser, tournament, f"games/{game}/call", {"by": "Judge"})
    assert early.status_code == 409
    assert notice(early.get_data(as_text=True)).startswith("Refused by rule T8.1:")

    # Dora drops out herself (T2.2): her seat is withdrawn, and the game may be called
    out = dora.post(f"/tournament/{tournament}/drop-out", {"sure": "on"})
    doc = tournament_doc(organiser, tournament, after_of(out))
    assert doc["players"][3]["dropped"] is True
    assert "(dropped)" in dora.page(f"/tournament/{tournament}", after=after_of(out))
    called = desk_post(organiser, tournament, f"games/{game}/call", {"by": "Judge"})
    assert called.status_code == 303, called.get_data(as_text=True)
    events = opus(app).repository.event_store.get(UUID(game))
    assert any(e.__class__.__name__ == "GameCalled" for e in events)
    play_out(app, UUID(game), seed=4)
    doc = tournament_doc(organiser, tournament, head(app))
    result = doc["rounds_paired"][0]["tables"][0]["result"]
    assert result is not None and doc["rounds_paired"][0]["closed"]

    # T7.1: the places corrected (seat order), with the reason
    places = result["places"][1:] + result["places"][:1]
    corrected = desk_post(
        organiser,
        tournament,
        "correct",
        {"game": game, "places": [str(p) for p in places], "reason": "scoring slip", "by": "Judge"},
    )
    doc = tournament_doc(organiser, tournament, after_of(corrected))
    assert doc["rounds_paired"][0]["tables"][0]["result"]["places"] == places
    assert doc["corrections"][-1]["reason"] == "scoring slip"

    # T7.2: a penalty on Ada
    penalised = desk_post(
        organiser, tournament, "penalise", {"player": "1", "points": "1/2", "reason": "late"}
    )
    assert penalised.status_code == 303
    standings = organiser.get(
        f"/tournaments/{tournament}/standings", after=after_of(penalised)
    ).json["data"]
    ada_row = next(row for row in standings["rows"] if row["name"] == "Ada")
    assert ada_row["penalties"] == "1/2"

    # T9.3: finished
    finished = desk_post(organiser, tournament, "finish", {"sure": "on"})
    doc = tournament_doc(organiser, tournament, after_of(finished))
    assert doc["status"] == "finished" and doc["secret"]
    final = organiser.page(f"/desk/tournament/{tournament}", after=after_of(finished))
    assert 'id="pair"' not in final and 'id="finish"' not in final


# ---- If-Match: a stale desk ---------------------------------------------------------------------


def test_a_form_from_a_stale_desk_is_refused_changes_nothing_and_shows_the_desk_now(
    app: Flask,
) -> None:
    organiser = Browser(app)
    tournament, _ = create_tournament(organiser, "Two tabs")
    for name in ("Ada", "Boris", "Cleo"):
        register_at_desk(organiser, tournament, name)
    old_tab = desk_version(organiser, tournament, head(app))
    register_at_desk(organiser, tournament, "Dora")  # the other tab
    before = tournament_doc(organiser, tournament, head(app))
    stale = organiser.post(f"/desk/tournament/{tournament}/pair", {"version": old_tab})
    page = stale.get_data(as_text=True)
    assert stale.status_code == 409
    assert "the tournament had changed" in notice(page)
    now = tournament_doc(organiser, tournament, head(app))
    assert now == before and not now["rounds_paired"]
    assert set(VERSION.findall(page)) == {str(now["version"])}  # the desk as it is now
    assert "Dora" in page
    # the same drop from the stale page too
    stale_drop = organiser.post(
        f"/desk/tournament/{tournament}/drop", {"version": old_tab, "player": "1"}
    )
    assert stale_drop.status_code == 409
    assert tournament_doc(organiser, tournament, head(app)) == before
    # and without a version at all
    bare = organiser.post(f"/desk/tournament/{tournament}/pair")
    assert bare.status_code == 422
    assert tournament_doc(organiser, tournament, head(app)) == before


# ---- who may ---------------------------------------------------------------------------------


def test_a_stranger_a_forged_token_and_a_player_are_refused_by_the_desk_and_change_nothing(
    app: Flask,
) -> None:
    organiser = Browser(app)
    tournament, _ = create_tournament(organiser, "Closed desk")
    for name in ("Ada", "Boris", "Cleo"):
        register_at_desk(organiser, tournament, name)
    stranger = Browser(app)
    assert stranger.get(f"/desk/tournament/{tournament}").status_code == 403
    forger = Browser(app)
    forger.client.set_cookie(f"opus_org_{tournament}", secrets.token_urlsafe(32))
    player = Browser(app)
    dora = register_at_desk(organiser, tournament, "Dora")
    player.client.set_cookie(f"opus_reg_{tournament}", dora)
    before = tournament_doc(organiser, tournament, head(app))
    version = before["version"]
    for browser in (stranger, forger, player):
        for action, data in (
            ("pair", {}),
            ("drop", {"player": "1"}),
            ("penalise", {"player": "1", "points": "1/1", "reason": "x"}),
            ("finish", {}),
        ):
            answer = browser.post(
                f"/desk/tournament/{tournament}/{action}", {"version": version, **data}
            )
            assert answer.status_code == 403, (action, answer.get_data(as_text=True))
            assert 'name="version"' not in answer.get_data(as_text=True)  # no desk shown
    assert tournament_doc(organiser, tournament, head(app)) == before
    # the player may drop themselves, and only themselves, from the public page
    assert player.post(f"/tournament/{tournament}/drop-out").status_code == 303
    assert stranger.post(f"/tournament/{tournament}/drop-out").status_code == 403
    doc = tournament_doc(organiser, tournament, head(app))
    assert [p["dropped"] for p in doc["players"]] == [False, False, False, True]


def test_a_desk_form_without_the_csrf_token_does_nothing(app: Flask) -> None:
    organiser = Browser(app)
    tournament, _ = create_tournament(organiser, "No CSRF")
    version = desk_version(organiser, tournament, head(app))
    before = head(app)
    answer = organiser.client.post(
        f"/desk/tournament/{tournament}/register", data={"version": version, "name": "Ada"}
    )
    assert answer.status_code == 403
    assert head(app) == before


# ---- refusals, with their T rules --------------------------------------------------------------


def test_each_refusal_is_shown_on_the_desk_with_its_t_rule(app: Flask) -> None:
    organiser = Browser(app)
    tournament, _ = create_tournament(organiser, "Rules")
    register_at_desk(organiser, tournament, "Ada")
    refusals = [
        ("register", {"name": "ＡＤＡ"}, "T2.1"),  # the same name key (NFKC, case folded)
        ("pair", {}, "T2.4"),  # fewer than the smallest table
        ("penalise", {"player": "1", "points": "1/3", "reason": "x"}, "T7.2"),
        ("drop", {"player": "9"}, "T2.2"),
        ("correct", {"game": str(UUID(int=7)), "places": ["1", "2"], "reason": "x"}, "T7.1"),
    ]
    for action, data, rule in refusals:
        before = tournament_doc(organiser, tournament, head(app))
        answer = desk_post(organiser, tournament, action, data)
        page = answer.get_data(as_text=True)
        assert answer.status_code == 409, (action, page)
        assert notice(page).startswith(f"Refused by rule {rule}:"), (action, notice(page))
        assert 'id="pair"' in page  # the desk, again
        assert tournament_doc(organiser, tournament, head(app)) == before
    # in Russian too
    organiser.client.set_cookie("opus_lang", "ru")
    answer = desk_post(organiser, tournament, "pair")
    assert notice(answer.get_data(as_text=True)).startswith("Отказ по правилу T2.4:")
    # a field the API's schema refuses: 422, naming it
    answer = desk_post(organiser, tournament, "penalise", {"player": "1", "points": "0.5"})
    assert answer.status_code == 422
    assert "points" in notice(answer.get_data(as_text=True))


def test_every_desk_word_is_said_in_both_languages(app: Flask) -> None:
    for key, (english, russian) in WORDS.items():
        assert english.strip() and russian.strip(), key
        assert STRINGS[key] == (english, russian)
        assert set(re.findall(r"\{\w+\}", english)) == set(re.findall(r"\{\w+\}", russian)), key
    organiser = Browser(app)
    organiser.client.set_cookie("opus_lang", "ru")
    tournament, after = create_tournament(organiser, "Кубок")
    page = organiser.page(f"/desk/tournament/{tournament}", after=after)
    assert "Стол организатора" in page and "Составить следующий тур" in page


# ---- a lobby game's organiser --------------------------------------------------------------------


def lobby_game(organiser: Browser, names: list[str], app: Flask) -> str:
    created = organiser.post("/table/new", {"draw": "five", "guild": "on"})
    assert created.status_code == 303
    game = created.headers["Location"].removeprefix("/table/").partition("?")[0]
    for name in names:
        joined = Browser(app).post(f"/table/{game}/join", {"name": name})
        assert joined.status_code == 303, joined.get_data(as_text=True)
    return game


def table_doc(browser: Browser, game: str, app: Flask) -> dict[str, Any]:
    answer = browser.get(f"/games/{game}", after=head(app))
    assert answer.status_code == 200, answer.json
    doc: dict[str, Any] = answer.json["data"]
    return doc


def test_a_lobby_games_organiser_removes_a_seat_starts_and_withdraws_from_the_table(
    app: Flask,
) -> None:
    organiser = Browser(app)
    game = lobby_game(organiser, ["Ada", "Boris", "Cleo"], app)
    page = organiser.page(f"/table/{game}", after=head(app))
    assert "Remove Boris (seat 2)" in page
    version = re.search(
        r'name="version" value="(\d+)">\s*<input type="hidden" name="seat" value="2"', page
    )
    assert version
    # a stranger may not
    stranger = Browser(app)
    assert "Organiser&#39;s controls" not in stranger.page(f"/table/{game}")
    refused = stranger.post(f"/table/{game}/remove-seat", {"seat": "2", "version": version[1]})
    assert refused.status_code == 403
    # seat 2 (Boris) removed: the seats after it move down
    removed = organiser.post(f"/table/{game}/remove-seat", {"seat": "2", "version": version[1]})
    assert removed.status_code == 303, removed.get_data(as_text=True)
    assert table_doc(organiser, game, app)["players"] == ["Ada", "Cleo"]
    # the same form again is stale (seat 2 is Cleo's now): refused, nothing removed
    again = organiser.post(f"/table/{game}/remove-seat", {"seat": "2", "version": version[1]})
    assert again.status_code == 409
    assert "moved on" in notice(again.get_data(as_text=True))
    assert table_doc(organiser, game, app)["players"] == ["Ada", "Cleo"]
    # start (the table's own start button)
    assert organiser.post(f"/table/{game}/start").status_code == 303
    doc = table_doc(organiser, game, app)
    assert doc["status"] == "running"
    page = organiser.page(f"/table/{game}", after=head(app))
    assert "Withdraw Ada (seat 1)" in page and "remove-seat" not in page
    # R3.5: only the seat whose turn it is
    idle = doc["turn"]
    other = 1 - idle
    wrong = organiser.post(f"/table/{game}/withdraw", {"seat": str(other + 1)})
    assert wrong.status_code == 409
    assert notice(wrong.get_data(as_text=True)).startswith("Refused by rule R3.5:")
    assert stranger.post(f"/table/{game}/withdraw", {"seat": str(idle + 1)}).status_code == 403
    done = organiser.post(f"/table/{game}/withdraw", {"seat": str(idle + 1)})
    assert done.status_code == 303, done.get_data(as_text=True)
    assert idle in table_doc(organiser, game, app)["withdrawn"]
    assert organiser.post(f"/table/{game}/withdraw", {"seat": "7"}).status_code == 422


def test_a_tournament_game_shows_no_lobby_organiser_controls(app: Flask) -> None:
    organiser = Browser(app)
    tournament, _ = create_tournament(organiser, "No controls")
    for name in ("Ada", "Boris", "Cleo"):
        register_at_desk(organiser, tournament, name)
    paired = desk_post(organiser, tournament, "pair")
    doc = tournament_doc(organiser, tournament, after_of(paired))
    game = doc["rounds_paired"][0]["tables"][0]["game"]
    page = organiser.page(f"/table/{game}", after=after_of(paired))
    assert "remove-seat" not in page and "withdraw-seat" not in page


# ---- a lobby game by invitation ------------------------------------------------------------------

LINK = re.compile(r'id="invitation-link" class="token" readonly value="([^"]+)"')


def invitation_game(organiser: Browser, app: Flask) -> tuple[str, str]:
    """A game created from the lobby's form, by invitation: its id and the
    code of the link its organiser's table page shows."""
    created = organiser.post(
        "/table/new", {"draw": "five", "guild": "on", "admission": "invitation"}
    )
    assert created.status_code == 303, created.get_data(as_text=True)
    game = created.headers["Location"].removeprefix("/table/").partition("?")[0]
    found = LINK.search(organiser.page(f"/table/{game}", after=after_of(created)))
    assert found, "the organiser is shown no invitation link"
    link = urlsplit(html.unescape(found.group(1)))
    assert link.path == f"/table/{game}"
    (code,) = parse_qs(link.query)["invite"]
    return game, code


def test_a_game_by_invitation_is_joined_with_its_link_and_not_without(app: Flask) -> None:
    organiser = Browser(app)
    game, code = invitation_game(organiser, app)
    join_form = f'action="/table/{game}/join"'

    # a stranger: told it is by invitation, no join form; a join without the code refused
    stranger = Browser(app)
    page = stranger.page(f"/table/{game}")
    assert "This game is by invitation" in text_of(page) and join_form not in page
    assert not LINK.search(page)
    forger = Browser(app)  # an organiser cookie of its own making shows no link
    forger.client.set_cookie(f"opus_org_{game}", secrets.token_urlsafe(32))
    assert not LINK.search(forger.page(f"/table/{game}"))
    assert code not in forger.page(f"/table/{game}")
    for form in ({"name": "Mallory"}, {"name": "Mallory", "invite": "A" * len(code)}):
        refused = stranger.post(f"/table/{game}/join", form)
        assert refused.status_code == 403
        assert "by invitation" in notice(refused.get_data(as_text=True))
    wrong = stranger.page(f"/table/{game}", invite="A" * len(code))
    assert join_form not in wrong
    assert table_doc(stranger, game, app)["players"] == []

    # the API's join follows the same setting
    api = organiser.client.post(f"/games/{game}/players", json={"name": "Mallory"})
    assert api.status_code == 403, api.json
    assert table_doc(stranger, game, app)["players"] == []

    # the link: a join form carrying the code, kept by the live part too, and a seat
    invited = Browser(app)
    page = invited.page(f"/table/{game}", invite=code)
    assert join_form in page and f'name="invite" value="{code}"' in page
    view = invited.page(f"/table/{game}/view")  # as the table's script fetches it
    assert f'name="invite" value="{code}"' in view
    joined = invited.post(f"/table/{game}/join", {"name": "Ada", "invite": code})
    assert joined.status_code == 303, joined.get_data(as_text=True)
    # the organiser takes a seat from their own table page, whose form carries the code
    own = organiser.page(f"/table/{game}")
    assert f'name="invite" value="{code}"' in own
    seated = organiser.post(f"/table/{game}/join", {"name": "Boris", "invite": code})
    assert seated.status_code == 303
    api = Browser(app).client.post(
        f"/games/{game}/players", json={"name": "Cleo", "invitation": code}
    )
    assert api.status_code == 201, api.json
    assert table_doc(stranger, game, app)["players"] == ["Ada", "Boris", "Cleo"]


def test_an_open_game_has_no_invitation_link_and_anyone_joins(app: Flask) -> None:
    organiser = Browser(app)
    created = organiser.post("/table/new", {"draw": "five", "guild": "on", "admission": "open"})
    game = created.headers["Location"].removeprefix("/table/").partition("?")[0]
    assert not LINK.search(organiser.page(f"/table/{game}", after=after_of(created)))
    stranger = Browser(app)
    assert f'action="/table/{game}/join"' in stranger.page(f"/table/{game}")
    assert stranger.post(f"/table/{game}/join", {"name": "Ada"}).status_code == 303
    # the lobby's form offers the choice
    lobby = stranger.page("/")
    assert 'name="admission" value="open" checked' in lobby
    assert 'name="admission" value="invitation"' in lobby
