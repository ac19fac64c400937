"""Login CSRF from a sibling origin, and revocation, in a real browser
(Debian's Chromium through Playwright against ``opus serve``: the server
and browser of tests/browser/test_web_client.py), issue 35, item 6.

The attack as the issue found it: the victim's browser holds a seat and
the organiser's token of a game (taken signed out); a page on another
port of the same host (same site, another origin: it may set cookies the
service reads, since cookies know no port) sets its own ``opus_csrf``
cookie and posts ``/signin/key`` with the attacker's account key and a
token to match. Both of its ways to match are tried: a pair of its own
(the double submit the service used to accept) and a genuine pair the
attacker got from the service with its own client (only the Origin check
stops that one). Neither signs the victim in, and the attacker's account
adopts none of the victim's tokens. Then the person's own sign-in: the
adoption page lists the seat and the game, and adopts only once ticked.
And a key's rotation signs out, at its next request, the other browser
the old key had signed in.
"""

from __future__ import annotations

import html
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from uuid import UUID

import pytest
import requests
from playwright.sync_api import Browser, Page

from tests.browser import test_web_client as web_client
from tests.browser.test_accounts_browser import with_passkeys
from tests.browser.test_web_client import VIEWPORT, Server, accessible, opened, screenshot

pytestmark = pytest.mark.browser
server = web_client.server  # the fixtures: opus serve on a temporary store, Chromium
browser = web_client.browser

KEY = re.compile(r"opus_([0-9a-f]{32})_[A-Za-z0-9_-]{43}")
CSRF = re.compile(r'<meta name="csrf-token" content="([^"]+)">')
WAIT_MS = 15_000


class Sibling:
    """A page on another port of the service's host: whatever HTML it is given."""

    def __init__(self) -> None:
        self.page = ""
        sibling = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = sibling.page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def login_csrf(self, target: str, cookie: str, token: str, key: str) -> None:
        """The attack page: it sets its own CSRF cookie (on the path it posts
        to, so it is sent before the victim's HttpOnly one), then posts the
        sign-in form with the attacker's key, on load, by itself."""
        esc = html.escape
        self.page = f"""<!doctype html><html><body>
<form id="f" method="post" action="{esc(target)}/signin/key">
<input name="csrf" value="{esc(token)}"><input name="key" value="{esc(key)}">
<input name="next" value="/">
</form>
<script>
document.cookie = "opus_csrf={cookie}; path=/signin/key";
document.getElementById("f").submit();
</script></body></html>"""


@pytest.fixture(scope="module")
def sibling() -> Iterator[Sibling]:
    made = Sibling()
    yield made
    made.http.shutdown()


def sign_up(base: str, name: str) -> tuple[requests.Session, str, UUID]:
    """An account made from the service's own sign-up page (as a browser
    posts it): its client, its key, its id."""
    web = requests.Session()
    web.headers["Origin"] = base
    found = CSRF.search(web.get(f"{base}/signup", timeout=10).text)
    assert found
    answer = web.post(f"{base}/signup", data={"name": name, "csrf": found.group(1)}, timeout=10)
    key = KEY.search(answer.text)
    assert answer.status_code == 200 and key, answer.text
    return web, key.group(0), UUID(key.group(1))


def seat_signed_out(page: Page, base: str, name: str) -> str:
    """The person creates a game and sits at it, signed out: the game's id."""
    page.goto(f"{base}/")
    page.click("#create")
    page.wait_for_url(re.compile(r"/table/"), timeout=WAIT_MS)
    game = page.url.split("/table/")[1].split("?")[0]
    page.fill("#name-table", name)
    page.click("form.join button[type=submit]")
    page.wait_for_selector(f"#live .you >> text=You play as {name}", timeout=WAIT_MS)
    return game


def signed_in_name(page: Page) -> str | None:
    link = page.locator("#account-link")
    return link.inner_text() if link.count() else None


@pytest.mark.parametrize("pair", ["its own cookie and token", "a genuine pair of its own"])
def test_a_sibling_origin_page_cannot_sign_the_victim_in_nor_adopt_their_seat(
    server: Server, browser: Browser, sibling: Sibling, pair: str
) -> None:
    base = server.base
    _, attacker_key, attacker = sign_up(base, f"Mallory {pair[:5]}")
    if pair == "its own cookie and token":
        cookie = token = "A" * 43
    else:  # the attacker's own client fetched a page: its cookie and the token made for it
        own = requests.Session()
        found = CSRF.search(own.get(f"{base}/signin", timeout=10).text)
        assert found
        cookie, token = own.cookies["opus_csrf"], found.group(1)
    sibling.login_csrf(base, cookie, token, attacker_key)
    errors: list[str] = []
    context = browser.new_context(locale="en-GB", viewport=VIEWPORT)
    victim = opened(context, errors)
    game = seat_signed_out(victim, base, "Vera")
    hand = victim.inner_text("#live")
    # the victim follows a link to the sibling page, which posts at once
    refused = []
    victim.on(
        "response",
        lambda r: refused.append(r.status) if r.url == f"{base}/signin/key" else None,
    )
    victim.goto(f"{sibling.base}/")
    victim.wait_for_url(f"{base}/**", timeout=WAIT_MS)
    victim.wait_for_load_state("load", timeout=WAIT_MS)
    # the attacker's account adopted nothing of the victim's (signing in adopts
    # nothing), and the post was refused: no session opened
    held = server.store.accounts.view(attacker)
    assert held.adopted == frozenset()
    assert refused == [403], refused
    assert len(held.sessions) == 1  # its own sign-up's
    # the victim is not signed in, and still plays their seat as before
    victim.goto(f"{base}/table/{game}")
    assert signed_in_name(victim) is None
    victim.wait_for_selector("#live .you >> text=You play as Vera", timeout=WAIT_MS)
    assert victim.inner_text("#live") == hand
    context.close()


def test_the_person_adopts_their_seat_only_once_ticked_on_the_page_that_lists_it(
    server: Server, browser: Browser
) -> None:
    base = server.base
    _, key, account = sign_up(base, "Zlata")
    errors: list[str] = []
    context = browser.new_context(locale="en-GB", viewport=VIEWPORT)
    page = opened(context, errors)
    game = seat_signed_out(page, base, "Zlata at home")
    page.goto(f"{base}/signin?next=/table/{game}")
    page.fill("#signin-key", key)
    page.click("#signin-key-submit")
    page.wait_for_url(re.compile(r"/account/adopt\?next="), timeout=WAIT_MS)
    assert server.store.accounts.view(account).adopted == frozenset()
    assert "Zlata" in page.inner_text("#adopt-account")
    items = page.locator("#holdings > li")
    assert items.count() == 2  # the seat, and the game it organises
    assert "Your seat “Zlata at home”" in page.inner_text("#holdings")
    accessible(page, "/account/adopt")
    screenshot(page, "account-adopt")
    page.check(f'input[name="take"][value="seat:{game}"]')
    page.check(f'input[name="take"][value="organiser:{game}"]')
    page.click("#adopt-submit")
    page.wait_for_url(f"{base}/table/{game}", timeout=WAIT_MS)
    assert len(server.store.accounts.view(account).adopted) == 2
    assert signed_in_name(page) == "Zlata"
    page.wait_for_selector("#live .you >> text=You play as Zlata at home", timeout=WAIT_MS)
    assert errors == []
    context.close()


def test_a_key_rotation_signs_out_the_browser_the_old_key_signed_in(
    server: Server, browser: Browser
) -> None:
    base = server.base
    errors: list[str] = []
    owner_context = browser.new_context(locale="en-GB", viewport=VIEWPORT)
    other_context = browser.new_context(locale="ru-RU", viewport=VIEWPORT)
    owner, other = opened(owner_context, errors), opened(other_context, errors)
    owner.goto(f"{base}/signup")
    owner.fill("#signup-name", "Yelena")
    owner.click("#signup-key")
    owner.wait_for_url(f"{base}/account/key", timeout=WAIT_MS)
    key = owner.input_value("#account-key")
    other.goto(f"{base}/signin")
    other.fill("#signin-key", key)
    other.click("#signin-key-submit")
    other.wait_for_selector("#account-link", timeout=WAIT_MS)
    # the owner rotates the key on the account page
    owner.goto(f"{base}/account")
    owner.check('input[name="sure"]')
    owner.click("#rotate-key")
    owner.wait_for_url(f"{base}/account/key", timeout=WAIT_MS)
    new_key = owner.input_value("#account-key")
    assert KEY.fullmatch(new_key) and new_key != key
    assert signed_in_name(owner) == "Yelena"
    # the other browser, signed in with the old key, is signed out at its next request
    other.goto(f"{base}/account")
    other.wait_for_url(re.compile(r"/signin\?next="), timeout=WAIT_MS)
    assert signed_in_name(other) is None
    assert errors == []
    owner_context.close()
    other_context.close()


def test_a_passkey_refused_by_the_device_is_told_in_the_pages_words(
    server: Server, browser: Browser
) -> None:
    """Adding a second passkey on a device that holds the account's one:
    Chromium refuses (InvalidStateError, in its own English); the page says
    why in its own words and language, never the browser's text."""
    base = server.base.replace("://127.0.0.1:", "://localhost:")  # WebAuthn needs a domain
    errors: list[str] = []
    context = browser.new_context(locale="ru-RU", viewport=VIEWPORT)
    page = opened(context, errors)
    with_passkeys(context, page)
    page.goto(f"{base}/signup")
    page.wait_for_selector("#signup-passkey:not([hidden])", timeout=WAIT_MS)
    page.fill("#signup-name", "Ксения")
    page.click("#signup-passkey")
    page.wait_for_url(f"{base}/account/key", timeout=WAIT_MS)
    page.goto(f"{base}/account")
    page.wait_for_selector("#add-passkey:not([hidden])", timeout=WAIT_MS)
    page.click("#add-passkey")
    page.wait_for_function(
        "() => document.getElementById('notice').textContent.length > 0", timeout=WAIT_MS
    )
    notice = page.inner_text("#notice")
    assert "на этом устройстве уже есть ключ доступа этой учётной записи" in notice, notice
    for library in ("InvalidStateError", "credential", "authenticator", "See"):
        assert library not in notice, notice
    context.close()
