"""The web client in a real browser: Debian's Chromium, driven by Playwright
for Python, against ``opus serve`` on a temporary SQLite store.

Two browser contexts (two people) play a whole 2-player game by clicking
(the first moves by keyboard alone) while a third context watches the
spectator's page: it updates live, with no reload, and at the end the three
pages show the scores of the scoreboard query. Before the end, nothing the
spectator's page holds, receives over HTTP or hears on its event stream
names a card from a hand or the deck. Every page passes axe-core with no
serious or critical violation. Screenshots go to var/screenshots/.

Playwright cannot download its own browser here: it is launched on
``shutil.which("chromium")``. Without Chromium these tests are skipped,
unless ``OPUS_REQUIRE_BROWSER`` is set (as CI sets it), when they fail.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
import requests

from domain.application import Opus
from domain.disclosure import PUBLIC
from tests.e2e.test_full_game_http import OPUS, free_port, stop, wait_until_up
from tests.leaks import Knowledge, card_ids

CHROMIUM = shutil.which("chromium")
if CHROMIUM is None and not os.environ.get("OPUS_REQUIRE_BROWSER"):
    pytest.skip(
        "Chromium is not installed (apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )

from axe_playwright_python.sync_playwright import Axe  # noqa: E402
from playwright.sync_api import (  # noqa: E402
    Browser,
    BrowserContext,
    Page,
    Response,
    sync_playwright,
)
from playwright.sync_api import Error as PlaywrightError  # noqa: E402

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parent.parent.parent
SCREENSHOTS = ROOT / "var" / "screenshots"
VIEWPORT = {"width": 1400, "height": 1000}
CARD = re.compile(r'data-card="(\d+)"')
SERIOUS = ("serious", "critical")
MAX_MOVES = 600


# ---- the server, the store, the browser ---------------------------------------------------


@dataclass
class Server:
    base: str
    store: Opus  # the server's event store, read by the test (hands, deck, events)


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Server]:
    """``opus serve`` on SQLite, with the settings a test module names in
    its ``SERVER_SETTINGS`` (none: the defaults)."""
    folder = tmp_path_factory.mktemp("browser")
    port = free_port()
    env = {
        **os.environ,
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(folder / "events.db"),
        "OPUS_VIEWS_DBNAME": str(folder / "views.db"),
        **getattr(request.module, "SERVER_SETTINGS", {}),
    }
    env.pop("REDIS_URL", None)
    process = subprocess.Popen([OPUS, "serve", "--port", str(port)], cwd=folder, env=env)
    base = f"http://127.0.0.1:{port}"
    store = None
    try:
        wait_until_up(base, process)
        store = Opus(
            env={
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": env["SQLITE_DBNAME"],
            }
        )
        yield Server(base, store)
    finally:
        if store is not None:
            store.close()
        stop(process)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if CHROMIUM is None:
        pytest.fail("OPUS_REQUIRE_BROWSER is set and Chromium is not installed")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield launched
        launched.close()


def screenshot(page: Page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def accessible(page: Page, what: str) -> None:
    """axe-core (from axe-playwright-python): no serious or critical violation."""
    results = Axe().run(page)
    bad = [v for v in results.response["violations"] if v.get("impact") in SERIOUS]
    details = [
        (v["id"], v["impact"], v["help"], [n["target"] for n in v["nodes"]][:5]) for v in bad
    ]
    assert not bad, f"{what}: {details}"


def opened(context: BrowserContext, errors: list[str]) -> Page:
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    page.on(
        "console",
        lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None,
    )
    return page


# ---- what the spectator receives ------------------------------------------------------------


@dataclass
class Watched:
    """Everything the spectator's page received, as it came."""

    responses: list[Response] = field(default_factory=list)
    stream: list[str] = field(default_factory=list)  # each event-stream message's data
    checked_responses: int = 0
    checked_messages: int = 0
    navigations: int = 0


def watch(context: BrowserContext, page: Page) -> Watched:
    watched = Watched()
    page.on("response", lambda response: watched.responses.append(response))
    page.on(
        "framenavigated",
        lambda frame: (
            setattr(watched, "navigations", watched.navigations + 1)
            if frame == page.main_frame
            else None
        ),
    )
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.on("Network.eventSourceMessageReceived", lambda e: watched.stream.append(e["data"]))
    return watched


def hidden_now(store: Opus, game: UUID) -> tuple[set[int], set[int], int]:
    """The cards in a hand or the deck but those the public saw go there
    (Knowledge takes a cabinet card into a hand, R6.1), the cards no
    spectator may know yet (tests/leaks.py: from the events, by the rules),
    and the game's version."""
    with store.reading(game) as (state, version):
        hidden = {c for hand in state.hands for c in hand} | set(state.deck)
    known = Knowledge(list(store.repository.event_store.get(game)))
    return hidden - known.public, known.unknown(PUBLIC), version


def check_spectator(page: Page, watched: Watched, hidden: set[int], unknown: set[int]) -> int:
    """The spectator's DOM, each response it has received so far and each
    stream message hold no hidden card; the number of cards its DOM shows."""
    forbidden = hidden | unknown
    shown = {
        int(c)
        for c in page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)")
    }
    assert not shown & forbidden, f"the spectator's DOM shows {sorted(shown & forbidden)}"
    html = page.content()
    assert not {int(c) for c in CARD.findall(html)} & forbidden
    for response in watched.responses[watched.checked_responses :]:
        if "text/event-stream" in response.headers.get("content-type", ""):
            continue
        try:
            body = response.body().decode("utf-8", "replace")
        except Exception:  # a response without a body (a redirect, a 204)
            continue
        leaked = {int(c) for c in CARD.findall(body)} & forbidden
        if response.headers.get("content-type", "").startswith("application/json"):
            leaked |= card_ids(json.loads(body)) & forbidden
        assert not leaked, f"{response.url} holds {sorted(leaked)}"
    watched.checked_responses = len(watched.responses)
    for data in watched.stream[watched.checked_messages :]:
        line = json.loads(data)
        if "checkpoint" in line:  # a receipt's signed checkpoint: sizes and hashes, no field
            assert set(line) == {"checkpoint", "aggregate_id", "version"}
            continue
        leaked = card_ids(line["payload"]) & forbidden
        assert not leaked, f"stream message {line['version']} {line['type']} holds {sorted(leaked)}"
    watched.checked_messages = len(watched.stream)
    return len(shown)


# ---- playing by clicking --------------------------------------------------------------------


def live(page: Page, name: str) -> str:
    return str(page.eval_on_selector("#live", f"e => e.dataset.{name}"))


def wait_version(pages: list[Page], version: int) -> None:
    for page in pages:
        page.wait_for_function(
            "v => { const l = document.getElementById('live'); "
            "return l && Number(l.dataset.version) === v; }",
            arg=version,
            timeout=20_000,
        )


def choose(page: Page, rng: random.Random) -> Any:
    """A move the page offers, preferring those that score: its button."""
    buttons = page.query_selector_all("#live button.move")
    assert buttons, "the seat in turn is offered no move"
    kinds = {b: b.get_attribute("data-kind") for b in buttons}
    by_kind: dict[str, list[Any]] = {}
    for button, kind in kinds.items():
        by_kind.setdefault(str(kind), []).append(button)
    if by_kind.get("cast") and rng.random() < 0.15:
        return rng.choice(by_kind["cast"])
    for kind in ("place", "assemble", "discard", "pass"):
        if by_kind.get(kind) and (kind in ("discard", "pass") or rng.random() < 0.8):
            return rng.choice(by_kind[kind])
    return rng.choice(buttons)


def make(page: Page, button: Any, *, keyboard: bool) -> None:
    """Play the move of ``button``: open its card's panel, then press it.
    The button is found again by its move (its ``value``) at each step: the
    live region may be drawn anew meanwhile (a message after the version the
    page waited for), which detaches the element first chosen and closes
    its panel; then the move is made again from the new drawing, up to
    ``MAKE_ATTEMPTS`` times."""
    value = button.get_attribute("value")
    move = page.locator(f"#live button.move[value={json.dumps(value)}]").first
    for attempt in range(1, MAKE_ATTEMPTS + 1):
        try:
            _make(page, move, keyboard=keyboard)
            return
        except PlaywrightError as e:
            if attempt == MAKE_ATTEMPTS:
                raise
            print(f"the move's button was drawn anew ({e.message.splitlines()[0]}); again")


MAKE_ATTEMPTS = 3
STEP_MS = 5_000  # each step's wait for its element, before the move is made again


def _make(page: Page, move: Any, *, keyboard: bool) -> None:
    panel = move.evaluate("b => b.closest('.card-moves')?.id ?? null", timeout=STEP_MS)
    if panel is not None:
        pick = page.locator(f"#pick-{panel.removeprefix('moves-')}")
        if keyboard:
            pick.focus(timeout=STEP_MS)
            page.keyboard.press("Enter")  # opens the panel, focusing its first move
            for _ in range(40):
                if move.evaluate("b => document.activeElement === b", timeout=STEP_MS):
                    break
                page.keyboard.press("Tab")
            else:
                raise AssertionError("the move could not be reached with Tab")
            page.keyboard.press("Enter")
            return
        pick.click(timeout=STEP_MS)
        assert pick.get_attribute("aria-expanded", timeout=STEP_MS) == "true"
    if keyboard:
        move.focus(timeout=STEP_MS)
        page.keyboard.press("Enter")
    else:
        move.click(timeout=STEP_MS)


def assembly_offered(store: Opus, game: UUID) -> bool:
    return any(m.name == "assemble" for m in store.legal_moves(game, 0))


def wait_until(predicate: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


# ---- the tests ----------------------------------------------------------------------------------


def test_two_browsers_play_a_whole_game_while_a_third_watches_live(
    server: Server, browser: Browser, tmp_path: Path
) -> None:
    base, store = server.base, server.store
    errors: list[str] = []
    ada_context = browser.new_context(locale="en-GB", viewport=VIEWPORT)
    boris_context = browser.new_context(locale="ru-RU", viewport=VIEWPORT)
    watcher_context = browser.new_context(locale="en-GB", viewport=VIEWPORT)
    ada, boris = opened(ada_context, errors), opened(boris_context, errors)
    watcher = opened(watcher_context, errors)

    # The lobby: Ada creates a game and takes a seat at its table.
    ada.goto(f"{base}/")
    accessible(ada, "the lobby")
    ada.click("#create")
    ada.wait_for_url(re.compile(r"/table/"))
    game = ada.url.split("/table/")[1].split("?")[0]
    ada.fill("#name-table", "Ada")
    ada.fill("#contribution-table", "Ada's part of the seed")
    ada.click("form.join button[type=submit]")
    ada.wait_for_selector("#live .you >> text=You play as Ada")
    # Boris joins from the lobby, in Russian.
    boris.goto(f"{base}/")
    assert boris.locator("html").get_attribute("lang") == "ru"
    boris.fill(f'li[data-game="{game}"] input[name="name"]', "Борис")
    boris.click(f'li[data-game="{game}"] button[type=submit]')
    boris.wait_for_url(re.compile(rf"/table/{game}"))
    assert "Вы играете за Борис" in boris.inner_text("#live .you")
    watcher.goto(f"{base}/")
    screenshot(watcher, "lobby")
    accessible(watcher, "the lobby with an open game")

    # The spectator opens the table and is never reloaded from now on.
    watched = watch(watcher_context, watcher)
    watcher.goto(f"{base}/table/{game}")
    watcher.evaluate("window.opusNoReload = 'still here'")
    navigations = watched.navigations
    # Ada, the organiser, sees Boris arrive live, then starts the game.
    ada.wait_for_selector("#start:not([disabled])")
    ada.click("#start")
    pages = [ada, boris]
    for page in (ada, boris, watcher):
        page.wait_for_selector('#live[data-status="running"]')
    assert watcher.eval_on_selector("#live", "e => e.dataset.seat") == ""
    assert watcher.query_selector(".hand") is None and watcher.query_selector("button.move") is None

    rng = random.Random(20260)
    moves = 0
    shown_cards = 0
    pictured = False
    while True:
        hidden, unknown, version = hidden_now(store, UUID(game))
        wait_version([ada, boris, watcher], version)
        if live(watcher, "status") == "ended":
            break
        shown_cards = max(shown_cards, check_spectator(watcher, watched, hidden, unknown))
        turn = int(live(watcher, "turn"))
        mover = pages[turn]
        assert live(mover, "myTurn") == "true" and live(pages[1 - turn], "myTurn") == "false"
        assert pages[1 - turn].query_selector("#live button.move") is None
        make(mover, choose(mover, rng), keyboard=moves < 4)
        wait_until(lambda v=version: store.version(UUID(game)) > v)
        moves += 1
        assert moves < MAX_MOVES, "the game did not end"
        if (
            moves >= 24
            and not pictured
            and store.state(UUID(game)).turn == 0
            and (moves >= 80 or assembly_offered(store, UUID(game)))
        ):
            pictured = True
            hidden, unknown, version = hidden_now(store, UUID(game))
            wait_version([ada, boris, watcher], version)
            accessible(ada, "a seat's table")
            accessible(boris, "a seat's table, in Russian")
            accessible(watcher, "the spectator's table")
            screenshot(boris, "table-mid-game-ru")
            screenshot(watcher, "spectator")
            # a card's moves, opened by keyboard: an assembly's when there is one
            offer = ada.query_selector('.card-moves button.move[data-kind="assemble"]')
            offer = offer or ada.query_selector(".card-moves button.move")
            if offer is not None:
                panel = offer.evaluate("b => b.closest('.card-moves').id")
                pick = ada.locator(f"#pick-{panel.removeprefix('moves-')}")
                pick.focus()
                ada.keyboard.press("Enter")
                assert pick.get_attribute("aria-expanded") == "true"
                accessible(ada, "a seat's table with a card's moves open")
                screenshot(ada, "table-mid-game")
                ada.keyboard.press("Escape")
                assert pick.get_attribute("aria-expanded") == "false"
            else:
                screenshot(ada, "table-mid-game")
    assert shown_cards > 0 and moves > 10 and pictured

    # The end: the three pages show the scoreboard query's scores, the
    # spectator's page was never reloaded.
    board = requests.get(f"{base}/games/{game}/scoreboard", timeout=10).json()["data"]
    expected = [player["points"] for player in board["players"]]
    for page in (ada, boris, watcher):
        page.wait_for_selector('#live[data-status="ended"]')
        shown = page.eval_on_selector_all(
            "#live [data-score-seat]", "els => els.map(e => Number(e.textContent))"
        )
        assert shown == expected, (page.url, shown, expected)
    assert watcher.evaluate("window.opusNoReload") == "still here"
    assert watched.navigations == navigations
    assert watched.stream, "the spectator heard the game on its event stream"
    assert any("/view?after=" in r.url for r in watched.responses), "it fetched its table live"
    winners = watcher.inner_text("#live .ended")
    assert "won" in winners
    # the log shows what the end revealed (R9.3): every drawn card
    watcher.wait_for_function(
        "() => document.querySelector('#log').textContent.includes('drew ') && "
        "!Array.from(document.querySelectorAll('#log li'))"
        ".some(li => /drew \\d+ cards?$/.test(li.textContent.trim()))"
    )

    # The replay: a slider and keys, each score linking to the step that earned it.
    watcher.goto(f"{base}/replay/{game}")
    total = int(watcher.get_attribute("#step", "max") or 0)
    assert total == store.version(UUID(game))
    final = watcher.eval_on_selector_all(
        "#replay-step [data-score-seat]", "els => els.map(e => Number(e.textContent))"
    )
    assert final == expected
    screenshot(watcher, "replay")
    accessible(watcher, "the replay")
    slider = watcher.locator("#step")
    slider.focus()
    watcher.keyboard.press("Home")
    watcher.wait_for_selector('#replay-step[data-step="1"]')
    for _ in range(5):
        watcher.keyboard.press("ArrowRight")
    watcher.wait_for_selector('#replay-step[data-step="6"]')
    assert "step=6" in watcher.url
    watcher.keyboard.press("End")
    watcher.wait_for_selector(f'#replay-step[data-step="{total}"]')
    watcher.locator("#step-h").focus()
    watcher.keyboard.press("ArrowLeft")  # the page's own keys, off the slider
    watcher.wait_for_selector(f'#replay-step[data-step="{total - 1}"]')
    for summary in watcher.locator("#replay-step details.score summary").all():
        summary.click()  # each score's provenance panel, open
    award = watcher.locator("#replay-step .score .provenance a").first
    cause = int(award.get_attribute("data-step") or 0)
    award.click()
    watcher.wait_for_selector(f'#replay-step[data-step="{cause}"]')
    assert watcher.locator(f"#replay-step #log-{cause}.current").count() == 1

    # A downloaded export replays the same way.
    export = tmp_path / f"game-{game}.ndjson"
    export.write_bytes(requests.get(f"{base}/games/{game}/export", timeout=10).content)
    watcher.goto(f"{base}/replay/{game}?step={total}")
    stored = watcher.inner_html("#replay-step")
    watcher.goto(f"{base}/replay")
    accessible(watcher, "the export upload")
    watcher.set_input_files("#export", str(export))
    watcher.click("#upload-form button[type=submit]")
    watcher.wait_for_selector("#replay-step")
    assert watcher.inner_html("#replay-step") == stored
    watcher.locator("#step").focus()
    watcher.keyboard.press("Home")
    watcher.wait_for_selector('#replay-step[data-step="1"]')
    assert not errors, errors
    for context in (ada_context, boris_context, watcher_context):
        context.close()


def test_the_tournament_page_in_the_browser(server: Server, browser: Browser) -> None:
    base = server.base
    http = requests.Session()
    created = http.post(f"{base}/tournaments", json={"name": "Весенний кубок"}, timeout=10).json()
    tournament, organiser = created["tournament_id"], created["organiser_token"]
    for name in ("Ada", "Boris", "Cleo", "Dora", "Emil"):
        http.post(f"{base}/tournaments/{tournament}/players", json={"name": name}, timeout=10)
    paired = http.post(
        f"{base}/tournaments/{tournament}/rounds",
        json={},
        headers={"Authorization": f"Bearer {organiser}"},
        timeout=10,
    ).json()
    context = browser.new_context(locale="ru-RU", viewport=VIEWPORT)
    errors: list[str] = []
    page = opened(context, errors)
    page.goto(f"{base}/tournament/{tournament}?after={paired['position']}")
    assert "Весенний кубок" in page.inner_text("h1")
    tables = page.locator(".round-tables a[href^='/table/']")
    assert tables.count() >= 1
    screenshot(page, "tournament")
    accessible(page, "a tournament")
    tables.first.click()
    page.wait_for_selector('#live[data-status="running"]')
    accessible(page, "a tournament's table, watched")
    assert not errors, errors
    context.close()
