"""The rules pages, the first-game guide and the error page in a real
browser (Debian's Chromium, as tests/browser/test_web_client.py drives it:
its server, browser and helpers): each in English and Russian passes
axe-core with no serious or critical violation and keeps the
Content-Security-Policy (no console error); ``/rules#R3.1`` lands on R3.1;
a rule id in a refusal the script shows links to its rule, and following
it lands there. Screenshots go to var/screenshots/."""

from __future__ import annotations

import json
import re
from uuid import UUID

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.test_web_client import (
    VIEWPORT,
    Server,
    accessible,
    browser,
    opened,
    screenshot,
    server,
)

pytestmark = pytest.mark.browser
__all__ = ["browser", "server"]  # the fixtures, shared with tests/browser/test_web_client.py
LOCALES = {"en": "en-GB", "ru": "ru-RU"}


def in_view(page: Page, anchor: str) -> None:
    target = page.locator(f'[id="{anchor}"]')
    expect(target).to_be_visible()
    expect(target).to_be_in_viewport()


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_the_rules_pages_and_the_guide_in_each_language(
    server: Server, browser: Browser, lang: str
) -> None:
    errors: list[str] = []
    context = browser.new_context(locale=LOCALES[lang], viewport=VIEWPORT)
    page = opened(context, errors)
    for path, name in (
        ("/rules", "rules"),
        ("/rules/tournament", "rules-tournament"),
        ("/guide", "guide"),
    ):
        page.goto(f"{server.base}{path}")
        assert page.locator("html").get_attribute("lang") == lang
        accessible(page, f"{path} ({lang})")
        screenshot(page, f"{name}-{lang}")
    # an anchor per rule: the link lands on it
    page.goto(f"{server.base}/rules#R3.1")
    in_view(page, "R3.1")
    assert page.locator('[id="R3.1"]').inner_text().startswith("R3.1 Draw phase")
    screenshot(page, f"rules-R3.1-{lang}")
    page.goto(f"{server.base}/rules/tournament#T4.2")
    in_view(page, "T4.2")
    # the Guild's text: the Russian original on the Russian page
    page.goto(f"{server.base}/rules#S5")
    in_view(page, "S5")
    s5 = page.locator('[id="S5"]').inner_text()
    assert ("Игрок может помещать" in s5) == (lang == "ru")
    # the guide's rule links go to the rule
    page.goto(f"{server.base}/guide")
    page.locator('a.rule-ref[href="/rules#R4.4"]').first.click()
    page.wait_for_url(re.compile(r"/rules#R4\.4$"))
    in_view(page, "R4.4")
    # reachable from every page's header
    page.goto(f"{server.base}/")
    page.locator("header .site-nav a[href='/guide']").click()
    page.wait_for_url(re.compile(r"/guide$"))
    assert not errors, errors  # a CSP violation or a script error is a console error
    context.close()


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_an_address_nothing_serves_is_a_page_in_the_browser(
    server: Server, browser: Browser, lang: str
) -> None:
    context = browser.new_context(locale=LOCALES[lang], viewport=VIEWPORT)
    page = context.new_page()
    answer = page.goto(f"{server.base}/games/not-a-uuid")
    assert answer is not None and answer.status == 404
    assert answer.headers["content-type"].startswith("text/html")
    expect(page.locator("h1")).to_contain_text("404")
    accessible(page, f"the 404 page ({lang})")
    screenshot(page, f"error-404-{lang}")
    context.close()


def test_a_refusals_rule_links_to_the_rule(server: Server, browser: Browser) -> None:
    """The script shows a refusal (a move the engine refuses, R4.1: a card
    not in the hand) in words with its rule id as a link to the rule."""
    base, store = server.base, server.store
    errors: list[str] = []
    ada_context = browser.new_context(locale="en-GB", viewport=VIEWPORT)
    boris_context = browser.new_context(locale="en-GB", viewport=VIEWPORT)
    ada, boris = opened(ada_context, errors), opened(boris_context, errors)
    ada.goto(f"{base}/")
    ada.click("#create")
    ada.wait_for_url(re.compile(r"/table/"))
    game = ada.url.split("/table/")[1].split("?")[0]
    ada.fill("#name-table", "Ada")
    ada.click("form.join button[type=submit]")
    ada.wait_for_selector("#live .you >> text=You play as Ada")
    boris.goto(f"{base}/table/{game}")
    boris.fill("#name-table", "Boris")
    boris.click("form.join button[type=submit]")
    boris.wait_for_selector("#live .you >> text=You play as Boris")
    ada.wait_for_selector("#start:not([disabled])")
    ada.click("#start")
    ada.wait_for_selector('#live[data-status="running"][data-my-turn="true"]')
    # a discard of a card of Boris's hand, as if Ada's page offered it
    state = store.state(UUID(game))
    theirs = state.hands[1][0]
    pick = ada.locator("#live button.pick").first
    pick.click()
    button = ada.locator("#live .card-moves:not([hidden]) button.move").first
    move = json.dumps({"kind": "discard", "body": {"card": theirs}})
    button.evaluate("(b, v) => { b.value = v; }", move)
    button.click()
    link = ada.locator("#notice a.rule-ref")
    expect(link).to_have_text("R4.1")
    assert ada.locator("#notice").inner_text().startswith("Refused by rule R4.1: ")
    screenshot(ada, "refusal-rule-link")
    link.click()
    ada.wait_for_url(re.compile(r"/rules#R4\.1$"))
    in_view(ada, "R4.1")
    assert not [e for e in errors if "409" not in e], errors  # the refused POST's console line
    ada_context.close()
    boris_context.close()
