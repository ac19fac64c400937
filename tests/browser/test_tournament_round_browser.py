"""A whole tournament round from pages only, as people would play it, in a
real browser (Debian's Chromium through Playwright, against ``opus serve``:
tests/browser/test_web_client.py's server and browser):

- the organiser signs up with a passkey (Chromium's virtual authenticator),
  creates a tournament at the desk (tables of 2, one round) and pairs it;
- four players sign up (two with a passkey, two with the account key
  alone), one of them signs in again in a second browser with the key and
  plays from there; each registers on the tournament's page while signed
  in, so the registration is the account's;
- "My games" leads each to their table in one click; they play both
  games to the end by clicking the moves their pages offer;
- a spectator (signed out) follows the tournament's page: the round
  closes, its seal and standings appear, the organiser finishes it;
- the leaderboard has one row per account, linking its page.

axe-core finds no serious or critical violation on "My games", an
account's page and the leaderboard; screenshots go to var/screenshots/.
WebAuthn needs a domain, so the pages are opened on ``localhost``."""

from __future__ import annotations

import random
import re
from uuid import UUID

import pytest
from playwright.sync_api import Browser, BrowserContext, Page

from tests.browser import test_web_client as web_client
from tests.browser.test_accounts_browser import KEY, with_passkeys
from tests.browser.test_web_client import (
    MAX_MOVES,
    VIEWPORT,
    Server,
    accessible,
    choose,
    live,
    make,
    opened,
    screenshot,
    wait_until,
    wait_version,
)

pytestmark = pytest.mark.browser
server = web_client.server
browser = web_client.browser
WAIT_MS = 20_000


def sign_up(
    browser: Browser, base: str, name: str, errors: list[str], *, passkey: bool, locale: str
) -> tuple[BrowserContext, Page, str]:
    """A new browser that signs up as ``name``: its context, page and account key."""
    context = browser.new_context(locale=locale, viewport=VIEWPORT)
    page = opened(context, errors)
    if passkey:
        with_passkeys(context, page)
    page.goto(f"{base}/signup")
    page.wait_for_selector("#signup-passkey:not([hidden])", timeout=WAIT_MS)
    page.fill("#signup-name", name)
    page.click("#signup-passkey" if passkey else "#signup-key")
    page.wait_for_url(f"{base}/account/key", timeout=WAIT_MS)
    key = page.input_value("#account-key")
    assert KEY.fullmatch(key), key
    return context, page, key


def test_a_tournament_round_is_played_from_pages_only(server: Server, browser: Browser) -> None:
    base = server.base.replace("://127.0.0.1:", "://localhost:")
    store = server.store
    errors: list[str] = []

    # the organiser: a passkey account, a tournament from the desk
    _, organiser, _ = sign_up(browser, base, "Olga Organiser", errors, passkey=True, locale="en-GB")
    organiser.goto(f"{base}/")
    organiser.click("#new-tournament")
    organiser.wait_for_url(re.compile(r"/desk/tournament/new$"), timeout=WAIT_MS)
    organiser.fill("#f-name", "Round from pages")
    organiser.fill("#f-tables-min", "2")
    organiser.fill("#f-tables-preferred", "2")
    organiser.fill("#f-tables-max", "2")
    organiser.fill("#f-rounds", "1")
    organiser.click("#create-tournament")
    organiser.wait_for_url(re.compile(r"/desk/tournament/[0-9a-f-]{36}"), timeout=WAIT_MS)
    tournament = organiser.url.split("/desk/tournament/")[1].split("?")[0]

    # four players: accounts, each registering while signed in
    names = ["Ada Passkey", "Boris Passkey", "Cleo Key", "Dora Key"]
    players: list[Page] = []
    for n, name in enumerate(names):
        _, page, key = sign_up(
            browser, base, name, errors, passkey=n < 2, locale="ru-RU" if n == 1 else "en-GB"
        )
        if n == 3:  # Dora plays from a second browser, signed in with her key
            second = opened(browser.new_context(locale="en-GB", viewport=VIEWPORT), errors)
            second.goto(f"{base}/signin")
            second.fill("#signin-key", key)
            second.click("#signin-key-submit")
            second.wait_for_selector("#account-link", timeout=WAIT_MS)
            assert second.inner_text("#account-link") == name
            page = second
        page.goto(f"{base}/tournament/{tournament}")
        page.fill("#self-name", name)
        page.click("#self-register")
        page.wait_for_selector("text=/registered as|зарегистрированы как/", timeout=WAIT_MS)
        players.append(page)

    # a spectator, signed out, on the tournament's page
    watcher = opened(browser.new_context(locale="en-GB", viewport=VIEWPORT), errors)

    # the organiser pairs the round: two tables of two
    organiser.goto(f"{base}/desk/tournament/{tournament}")
    assert organiser.locator("text=Players (4)").count() == 1
    organiser.click("#pair")
    organiser.wait_for_selector("#done >> text=The round is paired", timeout=WAIT_MS)

    # each player: "My games" -> their table in one click
    games: dict[str, dict[int, Page]] = {}
    for page in players:
        page.goto(f"{base}/me")
        page.wait_for_selector(".play-now", timeout=WAIT_MS)
        page.click(".play-now")
        page.wait_for_url(re.compile(r"/table/[0-9a-f-]{36}"), timeout=WAIT_MS)
        game = page.url.split("/table/")[1].split("?")[0]
        page.wait_for_selector("#live", timeout=WAIT_MS)
        seat = int(live(page, "seat"))  # the page is the seat's: its account's
        assert store.state(UUID(game)).names[seat] == names[players.index(page)]
        games.setdefault(game, {})[seat] = page
    assert len(games) == 2 and all(len(seats) == 2 for seats in games.values())
    me = players[0]
    accessible(me, "my games")
    me.goto(f"{base}/me")
    screenshot(me, "people-my-games")
    accessible(me, "my games, a round in play")
    for page in players:  # back to their tables
        game = next(g for g, seats in games.items() if page in seats.values())
        page.goto(f"{base}/table/{game}")

    # they play both games to the end by clicking
    rng = random.Random(2026)
    for game, seats in games.items():
        moves = 0
        while True:
            with store.reading(UUID(game)) as (state, version):
                status, turn = state.status, state.turn
            wait_version(list(seats.values()), version)
            if status == "ended":
                break
            mover = seats[turn]
            assert live(mover, "myTurn") == "true"
            make(mover, choose(mover, rng), keyboard=False)
            wait_until(lambda v=version, g=game: store.version(UUID(g)) > v, seconds=30)
            moves += 1
            assert moves < MAX_MOVES, "the game did not end"

    # the spectator sees the round closed and sealed, then the organiser finishes
    watcher.goto(f"{base}/tournament/{tournament}")
    watcher.wait_for_selector("details.seal", timeout=WAIT_MS)  # the round closed, sealed
    assert watcher.locator("main li >> text=Result").count() == 2  # both tables have theirs
    organiser.goto(f"{base}/desk/tournament/{tournament}")
    organiser.check('input[name="sure"]')
    organiser.click("#finish")
    organiser.wait_for_selector("#done:not(:empty)", timeout=WAIT_MS)
    watcher.goto(f"{base}/tournament/{tournament}")
    watcher.wait_for_selector("text=Status: finished", timeout=WAIT_MS)
    page_text = watcher.inner_text("main")
    for name in names:
        assert name in page_text
    screenshot(watcher, "people-tournament-finished")

    # the leaderboard: one row per account, each linking its account's page
    watcher.goto(f"{base}/players")
    rows = watcher.locator("tr[data-player]")
    linked = [watcher.locator(f'tr[data-player] a:text-is("{name}")').count() for name in names]
    assert linked == [1, 1, 1, 1], (linked, rows.count())
    accessible(watcher, "the leaderboard")
    screenshot(watcher, "people-leaderboard")
    watcher.click(f'tr[data-player] a:text-is("{names[0]}")')
    watcher.wait_for_url(re.compile(r"/account/[0-9a-f-]{36}"), timeout=WAIT_MS)
    accessible(watcher, "an account's page")
    screenshot(watcher, "people-account")
    assert not errors, errors
