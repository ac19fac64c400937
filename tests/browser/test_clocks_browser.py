"""Clocks on the table page (RULES.md §11; issue 37, item 5), in Chromium
against ``opus serve`` (the clock scheduler in its threads): a 60+2 game
shows both seats' clocks, the one whose turn it is counting down from the
server's deadline and the other still; after a move the turn's clock moves
on and the mover's shows what it kept plus the increment. A 10 s game left
alone: its last seconds are announced, and the seat that runs out is
withdrawn on every open page, told in the log."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.browser.test_table_reconnect_browser import Service, bearer, game_of, wait_for
from tests.moves_http import kind_of, move_request

CHROMIUM = shutil.which("chromium")
if CHROMIUM is None and not os.environ.get("OPUS_REQUIRE_BROWSER"):
    pytest.skip("Chromium is not installed", allow_module_level=True)

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

pytestmark = pytest.mark.browser
SECOND = 1_000_000


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    running = Service(tmp_path_factory.mktemp("clocks-browser"))
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield launched
        launched.close()


def timed_game(base: str, clock: dict[str, Any]) -> tuple[str, list[str]]:
    return game_of(base, {"clock": clock})


def end_turn(base: str, game: str, token: str) -> None:
    """A main action of the seat holding ``token`` (no spell: the turn passes)."""
    legal = requests.get(f"{base}/games/{game}/legal-moves", headers=bearer(token), timeout=10)
    assert legal.status_code == 200, legal.text
    chosen = next(m for m in legal.json()["moves"] if kind_of(m) != "cast")
    kind, body = move_request(chosen)
    moved = requests.post(
        f"{base}/games/{game}/{kind}", json=body, headers=bearer(token), timeout=10
    )
    assert moved.status_code in (200, 201), moved.text


def left(page: Page) -> list[int]:
    found: Any = page.eval_on_selector_all(
        "#clocks li", "items => items.map(item => Number(item.dataset.left))"
    )
    return [int(v) for v in found]


def test_a_60_plus_2_game_shows_both_clocks_the_turns_counting(
    service: Service, browser: Browser
) -> None:
    game, tokens = timed_game(service.base, {"initial": 60, "increment": 2})
    page = browser.new_page()
    page.goto(f"{service.base}/table/{game}")
    wait_for(lambda: len(left(page)) == 2, 15, "no clocks shown")
    first = left(page)
    assert first[1] == 60 * SECOND and 50 * SECOND < first[0] <= 60 * SECOND
    assert "Seat 1:" in page.locator("#clocks li").nth(0).inner_text()
    time.sleep(1.5)
    later = left(page)
    assert later[0] < first[0] - SECOND // 2  # seat 1's counts down
    assert later[1] == 60 * SECOND  # seat 2's waits
    end_turn(service.base, game, tokens[0])
    wait_for(lambda: left(page)[1] < 60 * SECOND - SECOND // 4, 15, "seat 2's clock never ran")
    kept = left(page)[0]
    assert 55 * SECOND < kept <= 60 * SECOND  # what it kept, plus 2, at most 60
    assert page.locator('#clocks li[aria-current="true"]').inner_text().startswith("Seat 2:")
    page.close()


def test_the_seat_that_runs_out_is_withdrawn_on_every_open_page(
    service: Service, browser: Browser
) -> None:
    game, _ = timed_game(service.base, {"initial": 10, "grace": 5})
    pages = [browser.new_context().new_page() for _ in range(2)]
    for page in pages:
        page.goto(f"{service.base}/table/{game}")
        wait_for(lambda page=page: len(left(page)) == 2, 15, "no clocks shown")
    status = pages[0].locator("#clocks [role=status]")
    wait_for(lambda: "less than 10 seconds" in status.inner_text(), 15, "no warning")
    for page in pages:
        wait_for(
            lambda page=page: "out of time" in page.locator("#log").inner_text(),
            30,
            "the seat's timeout never reached an open page",
        )
        wait_for(
            lambda page=page: "withdrawn" in page.locator("#clocks li").nth(0).inner_text(),
            15,
            "the withdrawn seat's clock is still shown running",
        )
    for page in pages:
        page.close()
