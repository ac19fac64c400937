"""The organiser's desk in a real browser (Debian's Chromium through
Playwright, against ``opus serve``: tests/browser/test_web_client.py's
server and browser): a tournament created from the lobby's link, players
registered at the desk and by themselves in their own browsers, a round
paired by clicking, a player led from the tournament's page to their seat;
a lobby game's organiser removing a seat. Each new page passes axe-core
with no serious or critical violation; screenshots go to var/screenshots/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page

from tests.browser import test_web_client as web_client
from tests.browser.test_web_client import VIEWPORT, Server, accessible, opened, screenshot

pytestmark = pytest.mark.browser
server = web_client.server  # the fixtures: opus serve on a temporary store, Chromium
browser = web_client.browser


def register_self(page: Page, base: str, tournament: str, name: str) -> None:
    page.goto(f"{base}/tournament/{tournament}")
    page.fill("#self-name", name)
    page.click("#self-register")
    page.wait_for_selector(f"text=You are registered as {name}")


def test_a_tournament_is_created_registered_and_paired_at_the_desk(
    server: Server, browser: Browser
) -> None:
    base = server.base
    errors: list[str] = []
    organiser = opened(browser.new_context(locale="en-GB", viewport=VIEWPORT), errors)

    # the lobby leads to the create form, drawn from the API's schema
    organiser.goto(f"{base}/")
    organiser.click("#new-tournament")
    organiser.wait_for_url(re.compile(r"/desk/tournament/new$"))
    accessible(organiser, "the new tournament's form")
    screenshot(organiser, "desk-new")
    organiser.fill("#f-name", "Spring <Cup>")
    organiser.fill("#f-tables-preferred", "3")
    organiser.fill("#f-tables-max", "4")
    organiser.fill("#f-rounds", "2")
    organiser.check('input[name="draw"][value="one"]')
    organiser.click("#create-tournament")
    organiser.wait_for_url(re.compile(r"/desk/tournament/[0-9a-f-]{36}"))
    tournament = organiser.url.split("/desk/tournament/")[1].split("?")[0]
    assert "The tournament is created." in organiser.inner_text("#done")
    assert organiser.inner_text("h1") == "Organiser's desk: Spring <Cup>"

    # two players registered at the desk: each token shown once
    for name in ("Cleo", "Dora"):
        organiser.fill("#register-name", name)
        organiser.click("#register")
        organiser.wait_for_selector(f"#issued-h >> text={name}")
        token = organiser.input_value("#issued-token")
        assert len(token) >= 43
    accessible(organiser, "the desk with a token to hand over")
    screenshot(organiser, "desk-registered")

    # two players register themselves, each in their own browser
    ada = opened(browser.new_context(locale="en-GB", viewport=VIEWPORT), errors)
    boris = opened(browser.new_context(locale="ru-RU", viewport=VIEWPORT), errors)
    ada.goto(f"{base}/tournament/{tournament}")
    accessible(ada, "a tournament's page with its registration form")
    register_self(ada, base, tournament, "Ada")
    boris.goto(f"{base}/tournament/{tournament}")
    boris.fill("#self-name", "Борис")
    boris.click("#self-register")
    boris.wait_for_selector("text=Вы зарегистрированы как Борис")

    # the organiser pairs round 1 by clicking: tables of 3/4, the games started
    organiser.goto(f"{base}/desk/tournament/{tournament}")
    assert organiser.locator("text=Players (4)").count() == 1
    organiser.click("#pair")
    organiser.wait_for_selector("#done >> text=The round is paired")
    assert organiser.locator("button.call").count() == 1  # one table of four
    accessible(organiser, "the desk with a round in play")
    screenshot(organiser, "desk-paired")

    # Ada is led from the tournament's page to her own seat
    ada.goto(f"{base}/tournament/{tournament}")
    accessible(ada, "a registered player's tournament page")
    ada.click(".your-game a")
    ada.wait_for_url(re.compile(r"/table/"))
    ada.wait_for_selector("#live .you >> text=You play as Ada")
    screenshot(ada, "desk-player-table")

    # the public page shows the desk's link to the organiser only
    organiser.goto(f"{base}/tournament/{tournament}")
    assert organiser.locator("a.desk-link").count() == 1
    assert ada.locator("a.desk-link").count() == 0
    assert not errors, errors


def test_a_lobby_games_organiser_removes_a_seat_from_the_table(
    server: Server, browser: Browser
) -> None:
    base = server.base
    errors: list[str] = []
    organiser = opened(browser.new_context(locale="en-GB", viewport=VIEWPORT), errors)
    organiser.goto(f"{base}/")
    organiser.click("#create")
    organiser.wait_for_url(re.compile(r"/table/"))
    game = organiser.url.split("/table/")[1].split("?")[0]
    for name in ("Ada", "Boris", "Cleo"):
        player = opened(browser.new_context(locale="en-GB", viewport=VIEWPORT), errors)
        player.goto(f"{base}/table/{game}")
        player.fill("#name-table", name)
        player.click("form.join button[type=submit]")
        player.wait_for_selector(f"#live .you >> text=You play as {name}")
        assert player.locator(".organiser").count() == 0
    organiser.goto(f"{base}/table/{game}")
    accessible(organiser, "a lobby game's organiser controls")
    screenshot(organiser, "table-organiser")
    organiser.click('button[aria-label="Remove Boris (seat 2)"]')
    organiser.wait_for_selector('button[aria-label="Remove Cleo (seat 2)"]')
    assert organiser.locator(".seated li").all_inner_texts() == ["Ada", "Cleo"]
    assert not errors, errors


def test_a_game_by_invitation_is_joined_through_its_link(server: Server, browser: Browser) -> None:
    base = server.base
    errors: list[str] = []
    organiser = opened(browser.new_context(locale="en-GB", viewport=VIEWPORT), errors)
    organiser.goto(f"{base}/")
    organiser.check('input[name="admission"][value="invitation"]')
    organiser.click("#create")
    organiser.wait_for_url(re.compile(r"/table/"))
    link = organiser.input_value("#invitation-link")
    assert "?invite=" in link
    accessible(organiser, "a game by invitation's organiser controls")
    screenshot(organiser, "table-invitation")

    stranger = opened(browser.new_context(locale="en-GB", viewport=VIEWPORT), errors)
    stranger.goto(organiser.url.split("?")[0])
    assert stranger.locator(".by-invitation").count() == 1
    assert stranger.locator("form.join").count() == 0
    accessible(stranger, "a game by invitation, without its link")

    invited = opened(browser.new_context(locale="ru-RU", viewport=VIEWPORT), errors)
    invited.goto(link)
    invited.fill("#name-table", "Борис")
    invited.click("form.join button[type=submit]")
    invited.wait_for_selector("#live .you >> text=Вы играете за Борис")
    organiser.wait_for_selector("#live .seated >> text=Борис")  # live, no reload
    assert not errors, errors
