"""A game against the service's bots in a real browser (Debian's Chromium,
Playwright), against ``opus serve`` (tests/browser/test_web_client.py's
server and browser) with its bots at a quicker pace than the default 0.6 s
a move (tests/unit/test_bot_driver.py holds a bot to its pause): the page
is the same at any pace, and a game of three bots spent a minute waiting.

From the lobby, one click on "Play against bots" (every field has its
default: three greedy bots) opens the table with the game running; the
person plays each of their turns by clicking a move the page offers, the
bots answer on their own, and the game ends. The page's live move log
marks each of the bots' moves with its kind, and none of the person's;
the lobby's form and the table pass axe-core with no serious or critical
violation. Screenshots go to var/screenshots/.
"""

from __future__ import annotations

import random
import time
from uuid import UUID

import pytest
from playwright.sync_api import Browser

from tests.browser.test_web_client import (
    VIEWPORT,
    Server,
    accessible,
    browser,
    choose,
    make,
    opened,
    screenshot,
    server,
    wait_version,
)

__all__ = ["browser", "server"]  # the fixtures, shared with the web client's tests

pytestmark = pytest.mark.browser
MOVES = ("CardDiscarded", "RecipeAssembled", "RecipePlaced", "SpellCast", "TurnEnded")
BOT_TURN_SECONDS = 60.0  # the bots' turns between two of the person's, at most
MAX_MOVES = 200  # the person's, in a game of four
SERVER_SETTINGS = {"OPUS_BOT_DELAY_SECONDS": "0.1"}  # the server's bots' pause


def turn_and_status(server: Server, game: UUID) -> tuple[str, int, int]:
    with server.store.reading(game) as (state, version):
        return state.status, state.turn, version


def wait_for_my_turn(server: Server, game: UUID) -> tuple[str, int]:
    """Until it is seat 0's turn or the game has ended: the status and the version."""
    deadline = time.monotonic() + BOT_TURN_SECONDS
    while True:
        status, turn, version = turn_and_status(server, game)
        if status == "ended" or (status == "running" and turn == 0):
            return status, version
        assert time.monotonic() < deadline, "the bots did not answer"
        time.sleep(0.05)


def test_a_person_plays_three_bots_from_the_lobby_by_clicking(
    server: Server, browser: Browser
) -> None:
    errors: list[str] = []
    context = browser.new_context(locale="en-GB", viewport=VIEWPORT)
    page = opened(context, errors)
    page.goto(f"{server.base}/")
    form = page.locator("form.bots-form")
    assert form.locator("#bots-name").input_value() == "Player"
    assert form.locator("#bots-count").input_value() == "3"
    assert form.locator("#bots-kind").input_value() == "greedy"
    accessible(page, "the lobby with its form against bots")
    screenshot(page, "lobby-bots")

    clicks = 0
    page.click("#play-bots")  # every field at its default
    clicks += 1
    page.wait_for_selector('#live[data-status="running"]')
    assert clicks <= 2
    game = UUID(page.url.split("/table/")[1].split("?")[0])
    assert page.inner_text("#live .you").startswith("You play as Player")
    names = page.eval_on_selector_all(".players article h3", "els => els.map(e => e.textContent)")
    assert [n.split(" (")[0] for n in names] == [
        "Player",
        "Greedy bot",
        "Greedy bot 2",
        "Greedy bot 3",
    ]
    assert page.locator(".players .bot-badge").count() == 3

    rng = random.Random(4242)
    moves = 0
    while True:
        status, version = wait_for_my_turn(server, game)
        wait_version([page], version)
        if status == "ended":
            break
        assert page.eval_on_selector("#live", "e => e.dataset.myTurn") == "true"
        make(page, choose(page, rng), keyboard=False)
        deadline = time.monotonic() + 20
        while turn_and_status(server, game)[2] == version:
            assert time.monotonic() < deadline, "the move was not made"
            time.sleep(0.02)
        moves += 1
        assert moves < MAX_MOVES, "the game did not end"
        if moves == 8:
            status, version = wait_for_my_turn(server, game)
            wait_version([page], version)
            accessible(page, "a table against bots")
            screenshot(page, "table-bots")
    page.wait_for_selector('#live[data-status="ended"]')
    assert moves > 5
    accessible(page, "a table against bots, the game over")
    screenshot(page, "table-bots-ended")

    # the live log: each of the bots' moves marked with its kind, none of the person's
    events = [e for e in server.store.events.get(game) if type(e).__name__ in MOVES]
    page.wait_for_function(
        "n => document.querySelectorAll('#log li').length >= n",
        arg=max(e.originator_version for e in events),
        timeout=20_000,
    )
    marks = dict(
        page.eval_on_selector_all(
            "#log li",
            "els => els.map(e => [Number(e.dataset.version), "
            "(e.querySelector('.bot-badge') || {dataset: {}}).dataset.bot || null])",
        )
    )
    for event in events:
        expected = None if event.player == 0 else "greedy"
        assert marks[event.originator_version] == expected, (event, marks[event.originator_version])
    assert errors == []
