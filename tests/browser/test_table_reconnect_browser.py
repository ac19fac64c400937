"""A table page that never goes silent (issue 37, item 6), in Chromium: the
service under an open table page is stopped and started again on the same
store; meanwhile the page says it is not live; once the service is back the
page takes up the stream by itself, with no reload, and its move log then
holds every version of the game once: no gap, no duplicate."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.moves_http import move_request
from tests.served import Served

CHROMIUM = shutil.which("chromium")
if CHROMIUM is None and not os.environ.get("OPUS_REQUIRE_BROWSER"):
    pytest.skip("Chromium is not installed", allow_module_level=True)

from playwright.sync_api import Page, sync_playwright  # noqa: E402

pytestmark = pytest.mark.browser
ORGANISER = "r" * 43


class Service(Served):
    """``opus serve`` on one SQLite store, stopped and started on one port."""

    def __init__(self, folder: Path) -> None:
        env = {
            **os.environ,
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(folder / "events.db"),
            "OPUS_VIEWS_DBNAME": str(folder / "views.db"),
            "OPUS_BOTS": "0",
        }
        env.pop("REDIS_URL", None)
        super().__init__(folder, env)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    running = Service(tmp_path)
    running.start()
    try:
        yield running
    finally:
        running.stop()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def game_of(base: str, body: dict[str, Any] | None = None) -> tuple[str, list[str]]:
    """A started two-seat game (``body``: the create's, a clock say); its
    id and the seats' tokens."""
    made = requests.post(f"{base}/games", json=body or {}, headers=bearer(ORGANISER), timeout=10)
    assert made.status_code == 201, made.text
    game = made.json()["game_id"]
    tokens = []
    for n in (1, 2):
        joined = requests.post(f"{base}/games/{game}/players", json={"name": f"P{n}"}, timeout=10)
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    started = requests.post(f"{base}/games/{game}/start", headers=bearer(ORGANISER), timeout=10)
    assert started.status_code == 200, started.text
    return game, tokens


def move(base: str, game: str, tokens: list[str]) -> int:
    """One legal move of whoever's turn it is; the game's version after it."""
    for token in tokens:
        legal = requests.get(f"{base}/games/{game}/legal-moves", headers=bearer(token), timeout=10)
        if legal.status_code == 200 and legal.json()["moves"]:
            kind, body = move_request(legal.json()["moves"][0])
            moved = requests.post(
                f"{base}/games/{game}/{kind}", json=body, headers=bearer(token), timeout=10
            )
            assert moved.status_code in (200, 201), moved.text
            return int(moved.json()["version"])
    raise AssertionError("no seat has a move")


def versions(page: Page) -> list[int]:
    found: Any = page.eval_on_selector_all(
        "#log > li", "items => items.map(item => Number(item.dataset.version))"
    )
    return [int(v) for v in found]


def wait_for(check: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_the_table_page_resumes_by_itself_after_the_service_restarts(service: Service) -> None:
    game, tokens = game_of(service.base)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            page = browser.new_page()
            page.goto(f"{service.base}/table/{game}")
            status = page.locator("#stream-status")
            version = move(service.base, game, tokens)
            wait_for(lambda: max(versions(page)) >= version, 15, "the first move not shown")
            assert status.is_hidden()
            service.stop()
            wait_for(status.is_visible, 15, "the page still looks live with its service down")
            assert "connection" in status.inner_text()
            service.start()
            for _ in range(3):
                version = move(service.base, game, tokens)
            wait_for(
                lambda: bool(versions(page)) and max(versions(page)) >= version,
                30,
                "the moves made after the restart never reached the page",
            )
            wait_for(status.is_hidden, 15, "the page still says it is not live")
            shown = versions(page)
            assert len(shown) == len(set(shown)), f"a version shown twice: {shown}"
            assert shown == list(range(shown[0], shown[-1] + 1)), f"a gap: {shown}"
        finally:
            browser.close()
