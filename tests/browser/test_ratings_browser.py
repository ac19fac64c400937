"""Ratings in a real browser (Debian's Chromium through Playwright, against
``opus serve``: tests/browser/test_web_client.py's server and browser):
games between accounts written to the server's store, the leaderboard by
rating and an account's page with its rating history drawn as SVG; the
chart is shown with a point per rated game, no script or style breaks the
page's Content-Security-Policy, and axe-core finds no serious or critical
violation on either page, in English and in Russian. Screenshots go to
var/screenshots/."""

from __future__ import annotations

import time

import pytest
import requests
from playwright.sync_api import Browser

from tests.browser import test_web_client as web_client
from tests.browser.test_web_client import VIEWPORT, Server, accessible, opened, screenshot
from tests.integration.test_ratings_view import fill

pytestmark = pytest.mark.browser
server = web_client.server  # the fixtures: opus serve on a temporary store, Chromium
browser = web_client.browser

WAIT_SECONDS = 30.0


def projected(base: str, position: int) -> None:
    """Wait (bounded) until the server's ratings view has reached ``position``."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        answer = requests.get(f"{base}/ratings", timeout=5)
        if answer.status_code == 200 and (answer.json()["position"] or 0) >= position:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"the ratings view did not reach position {position}")
        time.sleep(0.1)


def test_the_rating_history_chart_and_the_leaderboard(server: Server, browser: Browser) -> None:
    log = fill(server.store)
    projected(server.base, server.store.recorder.max_notification_id() or 0)
    errors: list[str] = []
    for lang in ("en", "ru"):
        context = browser.new_context(viewport=VIEWPORT, locale=lang)
        context.add_cookies([{"name": "opus_lang", "value": lang, "url": server.base}])
        page = opened(context, errors)
        page.goto(f"{server.base}/account/{log.accounts['Ann']}")
        chart = page.locator("svg.rating-chart")
        chart.wait_for(timeout=15_000)
        assert chart.is_visible()
        assert chart.locator("circle").count() == 3  # a point per rated game
        assert chart.get_attribute("role") == "img"
        box = chart.bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 100
        assert page.locator("tr[data-game]").count() == 3
        title = chart.locator("circle").first.locator("title").text_content() or ""
        assert ("μ " in title and "σ " in title) and ("Game 1" in title or "Партия 1" in title)
        page.locator("details summary").first.click()
        assert page.locator("tr[data-game] a").first.is_visible()
        accessible(page, f"the account page with its rating chart ({lang})")
        screenshot(page, f"rating-account-{lang}")
        page.goto(f"{server.base}/players")
        page.locator("table.ratings").wait_for(timeout=15_000)
        assert page.locator("table.ratings tbody tr").count() == 5
        assert page.locator("table.seat-effects tbody tr").count() == 9
        accessible(page, f"the leaderboard by rating ({lang})")
        screenshot(page, f"rating-players-{lang}")
        context.close()
    assert not errors, errors  # no CSP violation, no script error
