"""Games against the service's bots through the web pages, on real SQLite
stores with the projections running (api/web/bot_pages.py,
infra/bot_driver.py).

One person sits down against three bots from the lobby's form in one post
and plays each of their turns with a move the page offers, through
``/table/<id>/move``; the bots answer through the service's driver; the
game ends, and the table page marks each of the bots' moves in the move
log with its kind, and none of the person's. Two apps on one store (two
API workers), each with its driver and each told of every change, apply
each of the bots' moves once. A lobby game's organiser adds a bot from the
table page. A signed-in browser plays with its account. A service
restarted while a bot's turn was waiting plays it. Every wait has a deadline.
"""

from __future__ import annotations

import html
import json
import random
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from domain.application import Opus
from domain.audit import verify_game
from domain.bot_seats import bots_at
from domain.pipeline import Caller
from infra.bot_driver import BotDriver, command_id
from infra.eventlog import game_export
from infra.settings import EMBEDDED_DEFAULTS

MOVE = re.compile(r'name="move" value="([^"]+)"')
LOG_ITEM = re.compile(r'<li id="log-(\d+)" data-version="\d+"[^>]*>(.*?)</li>', re.S)
BADGE = re.compile(r'class="bot-badge" data-bot="(\w+)"')
MOVES = ("CardDiscarded", "RecipeAssembled", "RecipePlaced", "SpellCast", "TurnEnded")
DEADLINE = 120.0  # seconds a whole game may take


def bot_app(folder: Path, *, run_projections: bool = True, bots: bool = True) -> Flask:
    return create_app(
        {
            **EMBEDDED_DEFAULTS,
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(folder / "events.db"),
            "OPUS_VIEWS_DBNAME": str(folder / "views.db"),
            "REDIS_URL": None,
            "OPUS_RUN_PROJECTIONS": "1" if run_projections else "0",
            "OPUS_BOTS": "1" if bots else "0",
            "OPUS_BOT_DELAY_SECONDS": "0",
            "OPUS_RATE_LIMIT": "0",
        }
    )


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    flask_app = bot_app(tmp_path_factory.mktemp("bots"))
    yield flask_app
    flask_app.extensions["opus"].close()


def opus_of(app: Flask) -> Opus:
    service: Opus = app.extensions["opus"].opus
    return service


def driver_of(app: Flask) -> BotDriver:
    """The app's bot driver: the listener it added to its application."""
    for listener in opus_of(app).listeners:
        owner = getattr(listener, "__self__", None)
        if isinstance(owner, BotDriver):
            return owner
    raise AssertionError("the app runs no bot driver")


def wait_for(check: Callable[[], bool], timeout: float = DEADLINE) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not so after {timeout} s")
        time.sleep(0.01)


def csrf_of(client: FlaskClient) -> str:
    page = client.get("/").get_data(as_text=True)
    found = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
    assert found
    return found.group(1)


def live_attr(page: str, name: str) -> str:
    found = re.search(rf'id="live"[^>]* data-{name}="([^"]*)"', page)
    assert found, name
    return found.group(1)


def offered(page: str) -> list[dict[str, Any]]:
    return [json.loads(html.unescape(value)) for value in MOVE.findall(page)]


def play_against_bots(client: FlaskClient, csrf: str, **form: str) -> tuple[UUID, int]:
    """The lobby's form posted: the game's id and the position its start reached."""
    answer = client.post("/table/bots", data={"csrf": csrf, **form})
    assert answer.status_code == 303, answer.get_data(as_text=True)
    path, _, after = answer.headers["Location"].partition("?after=")
    return UUID(path.removeprefix("/table/")), int(after)


def ended(opus: Opus, game_id: UUID) -> bool:
    with opus.reading(game_id) as (state, _):
        return state.status == "ended"


def turn_of(opus: Opus, game_id: UUID) -> tuple[str, int]:
    with opus.reading(game_id) as (state, _):
        return state.status, state.turn


def play_through_the_page(
    client: FlaskClient, csrf: str, opus: Opus, game_id: UUID, seat: int, seed: int
) -> int:
    """Each of the seat's turns, a main action its page offers, posted as
    the page's script posts it, until the game ends; the moves made."""
    rng = random.Random(seed)
    made = 0
    while True:
        wait_for(lambda: turn_of(opus, game_id)[0] == "ended" or turn_of(opus, game_id)[1] == seat)
        if ended(opus, game_id):
            return made
        head = opus.recorder.max_notification_id() or 0
        page = client.get(f"/table/{game_id}/view?after={head}").get_data(as_text=True)
        assert live_attr(page, "my-turn") == "true"
        moves = offered(page)
        mains = [m for m in moves if m["kind"] != "cast"] or moves
        answer = client.post(
            f"/table/{game_id}/move",
            json={"move": rng.choice(mains), "version": int(live_attr(page, "version"))},
            headers={"X-CSRF-Token": csrf, "Accept": "application/json"},
        )
        assert answer.status_code == 200, answer.json
        made += 1


def bot_commands(opus: Opus, game_id: UUID) -> dict[str, list[Any]]:
    """The game's events by the bot command that made them."""
    found: dict[str, list[Any]] = {}
    for event in opus.events.get(game_id):
        command = getattr(event, "command", "")
        if command.startswith("bot."):
            found.setdefault(command, []).append(event)
    return found


def check_bot_commands(opus: Opus, game_id: UUID, kinds: dict[int, str]) -> int:
    """Each bot command is one move of its seat's kind, on the version it
    decided on, its events together; the game verifies. The commands."""
    commands = bot_commands(opus, game_id)
    for command, events in commands.items():
        first = events[0]
        assert command == command_id(kinds[first.player], game_id, first.originator_version - 1)
        versions = [e.originator_version for e in events]
        assert versions == list(range(versions[0], versions[0] + len(versions)))
    verdict = verify_game(game_export(opus, game_id))
    assert verdict.ok and verdict.status == "ended", verdict.line()
    return len(commands)


# ---- the tests ---------------------------------------------------------------------------------


def test_the_lobby_offers_a_game_against_bots_with_every_field_filled(app: Flask) -> None:
    page = app.test_client().get("/").get_data(as_text=True)
    form = page[page.index('action="/table/bots"') :]
    form = form[: form.index("</form>")]
    assert 'id="play-bots"' in form
    assert re.search(r'name="name"[^>]*value="Player"', form)
    assert re.search(r'<option value="3" selected>', form)
    assert re.search(r'<option value="greedy" selected>', form)


@pytest.mark.parametrize(
    ("form", "status"),
    [
        ({"name": "Ada", "count": "0"}, 422),
        ({"name": "Ada", "count": "6"}, 422),  # R2.1: six players at most, the person one
        ({"name": "Ada", "count": "3", "kind": "clever"}, 422),
        ({"name": "   ", "count": "3"}, 409),  # R2.1 refuses the name, as a join does
    ],
)
def test_the_form_against_bots_refuses_what_cannot_be_played(
    app: Flask, form: dict[str, str], status: int
) -> None:
    client = app.test_client()
    before = opus_of(app).recorder.max_notification_id()
    answer = client.post("/table/bots", data={"csrf": csrf_of(client), **form})
    assert answer.status_code == status, answer.get_data(as_text=True)
    assert opus_of(app).recorder.max_notification_id() == before  # no game was made


def test_a_person_plays_three_bots_from_the_lobby_to_the_end(app: Flask) -> None:
    client = app.test_client()
    csrf = csrf_of(client)
    game_id, position = play_against_bots(client, csrf, name="Ada", count="3", kind="greedy")
    opus = opus_of(app)
    first = client.get(f"/table/{game_id}?after={position}").get_data(as_text=True)
    assert live_attr(first, "status") == "running" and live_attr(first, "seat") == "0"
    with opus.reading(game_id) as (state, _):
        assert state.names == ["Ada", "Greedy bot", "Greedy bot 2", "Greedy bot 3"]
    assert bots_at(opus, game_id) == {1: "greedy", 2: "greedy", 3: "greedy"}

    made = play_through_the_page(client, csrf, opus, game_id, 0, seed=1)
    assert made > 5
    assert check_bot_commands(opus, game_id, bots_at(opus, game_id)) > 3 * made // 2

    # the table marks each of the bots' moves with its kind, and none of the person's
    head = opus.recorder.max_notification_id() or 0
    page = client.get(f"/table/{game_id}?after={head}").get_data(as_text=True)
    items = {int(v): body for v, body in LOG_ITEM.findall(page)}
    marked = 0
    for event in opus.events.get(game_id):
        if type(event).__name__ not in MOVES:
            continue
        kinds = BADGE.findall(items[event.originator_version])
        if event.player == 0:
            assert kinds == [], items[event.originator_version]
        else:
            assert kinds == ["greedy"], items[event.originator_version]
            marked += 1
    assert marked > 3 * made // 2
    # and its players' seats
    players = page[page.index('id="players-h"') :]
    players = players[: players.index("</section>")]
    assert BADGE.findall(players) == ["greedy"] * 3
    # the live log's fragment too
    fragment = client.get(f"/table/{game_id}/log?since=0").get_data(as_text=True)
    assert len(BADGE.findall(fragment)) == marked


def test_two_apps_on_one_store_apply_each_bot_move_once(tmp_path: Path) -> None:
    first = bot_app(tmp_path)
    second = bot_app(tmp_path, run_projections=False)
    try:
        one, two = driver_of(first), driver_of(second)
        # each driver is told of every change, whichever app made it: both look each time
        opus_of(first).listeners.append(two.notice)
        opus_of(second).listeners.append(one.notice)
        client = first.test_client()
        csrf = csrf_of(client)
        game_id, _ = play_against_bots(client, csrf, name="Ada", count="3", kind="mixed")
        kinds = bots_at(opus_of(second), game_id)
        assert kinds == {1: "shrewd", 2: "greedy", 3: "random"}
        made = play_through_the_page(client, csrf, opus_of(first), game_id, 0, seed=2)
        assert made > 5
        commands = check_bot_commands(opus_of(second), game_id, kinds)
        # every bot move applied by one driver or the other, none twice
        assert one.played + two.played == commands
        assert one.played > 0 and two.played > 0
    finally:
        second.extensions["opus"].close()
        first.extensions["opus"].close()


def test_a_lobby_games_organiser_adds_a_bot_from_the_table(app: Flask) -> None:
    organiser, stranger = app.test_client(), app.test_client()
    csrf = csrf_of(organiser)
    created = organiser.post("/table/new", data={"csrf": csrf, "draw": "five", "guild": "on"})
    game = created.headers["Location"].removeprefix("/table/").partition("?")[0]
    page = organiser.get(f"/table/{game}").get_data(as_text=True)
    assert f'action="/table/{game}/bots"' in page
    assert f'action="/table/{game}/bots"' not in stranger.get(f"/table/{game}").get_data(
        as_text=True
    )
    refused = stranger.post(
        f"/table/{game}/bots", data={"csrf": csrf_of(stranger), "kind": "greedy"}
    )
    assert refused.status_code == 403
    for kind in ("shrewd", "random"):
        added = organiser.post(f"/table/{game}/bots", data={"csrf": csrf, "kind": kind})
        assert added.status_code == 303, added.get_data(as_text=True)
    assert bots_at(opus_of(app), UUID(game)) == {0: "shrewd", 1: "random"}
    after = added.headers["Location"].partition("?after=")[2]
    seating = organiser.get(f"/table/{game}?after={after}").get_data(as_text=True)
    seated = seating[seating.index('class="seated"') :]
    seated = seated[: seated.index("</ol>")]
    assert "Shrewd bot" in seated and BADGE.findall(seated) == ["shrewd", "random"]
    unknown = organiser.post(f"/table/{game}/bots", data={"csrf": csrf, "kind": "clever"})
    assert unknown.status_code == 422


def test_a_signed_in_browser_plays_bots_with_its_account(app: Flask) -> None:
    client = app.test_client()
    csrf = csrf_of(client)
    signed_up = client.post("/signup", data={"csrf": csrf, "name": "Vera Bots"})
    assert signed_up.status_code == 303, signed_up.get_data(as_text=True)
    lobby = client.get("/").get_data(as_text=True)
    assert re.search(r'id="bots-name"[^>]*value="Vera Bots"', lobby)
    answer = client.post(
        "/table/bots", data={"csrf": csrf, "name": "Vera Bots", "count": "1", "kind": "shrewd"}
    )
    assert answer.status_code == 303
    # no seat or organiser token: the account's holder hash holds both
    assert not [c for c in answer.headers.getlist("Set-Cookie") if c.startswith("opus_")]
    game_id = UUID(answer.headers["Location"].removeprefix("/table/").partition("?")[0])
    opus = opus_of(app)
    account = opus.accounts.by_session(client.get_cookie("opus_session").value)
    assert account is not None
    with opus.reading(game_id) as (state, _):
        assert state.token_hashes[0] == account.holder_hash == state.organiser_hash
        assert state.names == ["Vera Bots", "Shrewd bot"] and state.status == "running"
    page = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert live_attr(page, "seat") == "0"


def test_a_restarted_service_plays_the_bot_turn_left_waiting(tmp_path: Path) -> None:
    before = bot_app(tmp_path, bots=False)  # a service whose bots do not play
    try:
        client = before.test_client()
        csrf = csrf_of(client)
        game_id, _ = play_against_bots(client, csrf, name="Ada", count="2", kind="random")
        opus = opus_of(before)
        legal = opus.legal_moves_of(game_id, opus.state(game_id).token_hashes[0])
        move = next(m for m in legal.moves if m.name != "cast")
        opus.play(game_id, move, caller=Caller(opus.state(game_id).token_hashes[0]))
        time.sleep(0.3)
        assert turn_of(opus, game_id) == ("running", 1)  # the bot's turn waits
    finally:
        before.extensions["opus"].close()
    after = bot_app(tmp_path)  # restarted: its first sweep finds the game
    try:
        opus = opus_of(after)
        wait_for(lambda: turn_of(opus, game_id) == ("running", 0), timeout=30)
        assert driver_of(after).played >= 2  # a turn each (and any spell before it)
    finally:
        after.extensions["opus"].close()
