"""Accounts on the pages, through Flask's test client with the projections
running: a signed-in browser seats, organises and plays with its account;
"my games" lists them with a tournament player's current game one click
away; one account's session never acts for another's seat; the
leaderboard has one row per account."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.web.session import SESSION_COOKIE
from domain.application import Opus
from domain.bots import BOTS
from domain.pipeline import Caller
from tests.apps import embedded_app
from tests.integration.test_web_pages import create, csrf_of, join

MOVE = re.compile(r'name="move" value="([^"]+)"')


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    folder: Path = tmp_path_factory.mktemp("people")
    flask_app = embedded_app(folder, run_projections=True)
    yield flask_app
    flask_app.extensions["opus"].close()


def opus(app: Flask) -> Opus:
    service: Opus = app.extensions["opus"].opus
    return service


def signed_in_client(app: Flask, name: str) -> tuple[FlaskClient, str, UUID]:
    """A browser signed in to a new account: its client, CSRF token, account id."""
    opened = opus(app).accounts.open(name, session_label="test browser")
    assert opened.session is not None
    client = app.test_client()
    client.set_cookie(SESSION_COOKIE, opened.session)
    return client, csrf_of(client), opened.account


def test_a_signed_in_browser_seats_and_organises_with_its_account(app: Flask) -> None:
    ada, ada_csrf, ada_id = signed_in_client(app, "Ada Signed")
    holder = opus(app).accounts.view(ada_id).holder_hash
    game, _ = create(ada, ada_csrf)
    after = join(ada, ada_csrf, game, "")  # the name: the account's
    state = opus(app).state(UUID(game))
    assert state.names == ["Ada Signed"] and state.token_hashes == [holder]
    assert state.organiser_hash == holder
    assert ada.get_cookie(f"opus_seat_{game}") is None  # no token: the account holds it
    assert ada.get_cookie(f"opus_org_{game}") is None
    stranger = app.test_client()
    join(stranger, csrf_of(stranger), game, "Boris")
    started = ada.post(f"/table/{game}/start", data={"csrf": ada_csrf})
    assert started.status_code == 303
    page = ada.get(f"/me?after={after}").get_data(as_text=True)
    assert f'data-game="{game}"' in page and "your seat 1" in page


def test_one_accounts_session_never_acts_for_anothers_seat(app: Flask) -> None:
    ada, ada_csrf, ada_id = signed_in_client(app, "Ada Victim")
    eve, eve_csrf, _ = signed_in_client(app, "Eve Attacker")
    game, _ = create(ada, ada_csrf)
    join(ada, ada_csrf, game, "")
    join(eve, eve_csrf, game, "")
    after = int(
        ada.post(f"/table/{game}/start", data={"csrf": ada_csrf}).headers["Location"].split("=")[-1]
    )
    ada_page = ada.get(f"/table/{game}?after={after}").get_data(as_text=True)
    eve_page = eve.get(f"/table/{game}?after={after}").get_data(as_text=True)
    ada_moves, eve_moves = MOVE.findall(ada_page), MOVE.findall(eve_page)
    state = opus(app).state(UUID(game))
    mover, waiter = (ada, eve) if state.turn == 0 else (eve, ada)
    move = json.loads((ada_moves if state.turn == 0 else eve_moves)[0].replace("&#34;", '"'))
    version = opus(app).version(UUID(game))
    waiter_csrf = eve_csrf if waiter is eve else ada_csrf
    refused = waiter.post(
        f"/table/{game}/move",
        json={"move": move, "version": version},
        headers={"X-CSRF-Token": waiter_csrf, "Accept": "application/json"},
    )
    assert refused.status_code == 403  # the other seat's turn: not this account's to move
    forged = app.test_client()  # a cookie naming Ada's account with a made-up secret
    forged.set_cookie(SESSION_COOKIE, f"{ada_id.hex}_{'A' * 43}")
    forged_csrf = csrf_of(forged)
    denied = forged.post(
        f"/table/{game}/move",
        json={"move": move, "version": version},
        headers={"X-CSRF-Token": forged_csrf, "Accept": "application/json"},
    )
    assert denied.status_code == 403
    assert opus(app).version(UUID(game)) == version  # nothing was played
    assert mover is not None


def test_a_stolen_seat_token_cannot_act_through_an_accounts_session(app: Flask) -> None:
    """Ada's anonymous seat token, copied into Eve's signed-in browser: Eve's
    session acts only as Eve's account, so the page is a spectator's and the
    move is refused; signed out, the token is Ada's seat as ever."""
    ada = app.test_client()
    ada_csrf = csrf_of(ada)
    game, _ = create(ada, ada_csrf)
    join(ada, ada_csrf, game, "Ada Anonymous")
    boris = app.test_client()
    join(boris, csrf_of(boris), game, "Boris")
    started = ada.post(f"/table/{game}/start", data={"csrf": ada_csrf})
    after = int(started.headers["Location"].split("=")[-1])
    stolen = ada.get_cookie(f"opus_seat_{game}")
    assert stolen is not None
    eve, eve_csrf, _ = signed_in_client(app, "Eve Thief")
    eve.set_cookie(f"opus_seat_{game}", stolen.value)
    page = eve.get(f"/table/{game}?after={after}").get_data(as_text=True)
    assert not MOVE.search(page)  # a spectator's page: no move offered
    state = opus(app).state(UUID(game))
    version = opus(app).version(UUID(game))
    ada_page = ada.get(f"/table/{game}?after={after}").get_data(as_text=True)
    offers = MOVE.findall(ada_page) if state.turn == 0 else []
    move = json.loads(offers[0].replace("&#34;", '"')) if offers else {"kind": "pass", "body": {}}
    refused = eve.post(
        f"/table/{game}/move",
        json={"move": move, "version": version},
        headers={"X-CSRF-Token": eve_csrf, "Accept": "application/json"},
    )
    assert refused.status_code == 403
    assert opus(app).version(UUID(game)) == version


def test_a_tournament_players_current_game_is_one_click_away(app: Flask) -> None:
    organiser = "o" * 64
    service = opus(app)
    tournament = service.tournaments.create("Spring Cup", caller=Caller(organiser)).aggregate_id
    players = [signed_in_client(app, f"Player {i}") for i in range(4)]
    for _, _, account_id in players:
        holder = service.accounts.view(account_id).holder_hash
        service.tournaments.register(tournament, f"P-{account_id.hex[:6]}", caller=Caller(holder))
    paired = service.tournaments.pair(tournament, caller=Caller(organiser))
    client, _, account_id = players[0]
    page = client.get(f"/me?after={paired.position}").get_data(as_text=True)
    found = re.search(r'class="play-now" href="/table/([0-9a-f-]+)"', page)
    assert found, page
    table = client.get(f"/table/{found.group(1)}").get_data(as_text=True)
    assert MOVE.search(table) or "waiting" in table.lower() or "turn" in table.lower()
    holder = service.accounts.view(account_id).holder_hash
    assert holder in service.state(UUID(found.group(1))).token_hashes
    standings = client.get(f"/tournament/{tournament}").get_data(as_text=True)
    for _, _, registered in players:  # each registration links its account's page
        assert f'href="/account/{registered}"' in standings


def test_the_leaderboard_page_has_one_row_per_account(app: Flask) -> None:
    service = opus(app)
    one = service.accounts.open("Grace Twice")
    holder = service.accounts.view(one.account).holder_hash
    position = 0
    for seed, seat_name in ((11, "Amazing"), (12, "Hopper")):  # two games, two seat names
        game = service.create_game(secret=seed.to_bytes(32, "big"))
        service.join(game, seat_name, caller=Caller(holder))
        service.join(game, "Grace", caller=Caller(f"{seed}".rjust(64, "f")))
        service.start(game)
        choose = BOTS["random"](random.Random(seed))
        while (state := service.state(game)).status == "running":
            outcome = service.play(game, choose(state, state.turn))
            position = outcome.position or position
    page = app.test_client().get(f"/players?after={position}").get_data(as_text=True)
    rows = re.findall(r'<tr data-player="([^"]+)">', page)
    assert rows.count(str(one.account)) == 1
    assert f'href="/account/{one.account}">Grace Twice</a>' in page
    assert page.count("Grace <small>") == 2  # two token players who called themselves Grace
    assert holder not in page


def test_me_asks_a_signed_out_browser_to_sign_in(app: Flask) -> None:
    answer = app.test_client().get("/me")
    assert answer.status_code == 303 and answer.headers["Location"].startswith("/signin")


def test_the_lobby_knows_a_game_by_invitation_and_a_signed_in_browsers_seats(app: Flask) -> None:
    ada, ada_csrf, _ = signed_in_client(app, "Ada Lobby")
    game, _ = create(ada, ada_csrf, admission="invitation")
    after = join(ada, ada_csrf, game, "")
    stranger = app.test_client()
    lobby = stranger.get(f"/?after={after}").get_data(as_text=True)
    item = lobby[lobby.index(f'data-game="{game}"') :].split("</li>")[0]
    assert "by invitation" in item and 'name="name"' not in item  # no join form
    mine = ada.get(f"/?after={after}").get_data(as_text=True)
    item = mine[mine.index(f'data-game="{game}"') :].split("</li>")[0]
    assert "You hold a seat in this game already." in item


def test_signing_up_keeps_the_seats_this_browser_took_signed_out(app: Flask) -> None:
    """A seat and a game taken signed out: the account this browser then
    opens adopts their tokens once the person confirms them on the
    adoption page, so signed in it still plays and starts."""
    browser = app.test_client()
    csrf = csrf_of(browser)
    game, _ = create(browser, csrf)
    join(browser, csrf, game, "Hana Before")
    other = app.test_client()
    join(other, csrf_of(other), game, "Ivo")
    signed = browser.post("/signup", data={"csrf": csrf, "name": "Hana Account"})
    assert signed.status_code == 303, signed.get_data(as_text=True)
    assert browser.get_cookie(SESSION_COOKIE) is not None
    take = [f"seat:{game}", f"organiser:{game}"]
    adopted = browser.post("/account/adopt", data={"csrf": csrf, "take": take})
    assert adopted.status_code == 303, adopted.get_data(as_text=True)
    started = browser.post(f"/table/{game}/start", data={"csrf": csrf})
    assert started.status_code == 303, started.get_data(as_text=True)
    after = int(started.headers["Location"].split("=")[-1])
    page = browser.get(f"/table/{game}?after={after}").get_data(as_text=True)
    assert "You play as Hana Before" in page


def test_a_forged_organiser_cookie_shows_no_desk_and_no_controls(app: Flask) -> None:
    service = opus(app)
    tournament = service.tournaments.create("Forged Cup", caller=Caller("o" * 64)).aggregate_id
    game = service.create_game(caller=Caller("p" * 64))
    forger = app.test_client()
    forger.set_cookie(f"opus_org_{tournament}", "F" * 43)
    forger.set_cookie(f"opus_org_{game}", "F" * 43)
    desk = forger.get(f"/desk/tournament/{tournament}")
    assert desk.status_code == 403
    csrf = csrf_of(forger)
    sybil = forger.post(
        f"/desk/tournament/{tournament}/register",
        data={"csrf": csrf, "name": "Sybil", "version": "1"},
    )
    assert sybil.status_code == 403
    table = forger.get(f"/table/{game}").get_data(as_text=True)
    assert "remove-seat" not in table and "Start the game" not in table
