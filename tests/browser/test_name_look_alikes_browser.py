"""A look-alike name refused in a real browser (Debian's Chromium through
Playwright, against ``opus serve``: tests/browser/test_web_client.py's
server and browser): "Ada Browser" signs up; a second browser that types
"Аda Browser" (a Cyrillic А) is told, on the sign-up page, which name it
looks like, in English by the form and in Russian by the passkey button's
script (Chromium's virtual authenticator), and no account is opened."""

from __future__ import annotations

import time
from uuid import UUID

import pytest
from playwright.sync_api import Browser

from domain.accounts.aggregate import AccountName, name_id
from domain.errors import AccountNotFoundError
from tests.browser import test_web_client as web_client
from tests.browser.test_accounts_browser import KEY, with_passkeys
from tests.browser.test_web_client import VIEWPORT, Server, opened, screenshot

pytestmark = pytest.mark.browser
server = web_client.server  # the fixtures: opus serve on a temporary store, Chromium
browser = web_client.browser

WAIT_MS = 15_000
IMPOSTOR = "\u0410da Browser"  # a Cyrillic А


def test_a_look_alike_name_is_refused_on_the_sign_up_page(server: Server, browser: Browser) -> None:
    base = server.base.replace("://127.0.0.1:", "://localhost:")
    errors: list[str] = []
    first = browser.new_context(locale="en-GB", viewport=VIEWPORT)
    ada = opened(first, errors)
    ada.goto(f"{base}/signup")
    ada.fill("#signup-name", "Ada Browser")
    ada.click("#signup-key")
    ada.wait_for_url(f"{base}/account/key", timeout=WAIT_MS)
    found = KEY.fullmatch(ada.input_value("#account-key"))
    assert found
    # the accounts view has the account once its public page shows it (the projections run apart)
    deadline = time.monotonic() + WAIT_MS / 1000
    while True:
        shown = ada.goto(f"{base}/account/{UUID(found.group(1))}")
        if shown is not None and shown.status == 200 and "Ada Browser" in ada.content():
            break
        assert time.monotonic() < deadline, "the account's page never showed it"
        time.sleep(0.1)

    # the form (no passkey), in English
    eve = opened(browser.new_context(locale="en-GB", viewport=VIEWPORT), errors)
    eve.goto(f"{base}/signup")
    eve.fill("#signup-name", IMPOSTOR)
    eve.click("#signup-key")
    eve.wait_for_selector("#notice:has-text('looks like')", timeout=WAIT_MS)
    notice = eve.inner_text("#notice")
    assert f"The name “{IMPOSTOR}” looks like “Ada Browser”" in notice
    assert "U+0410 (CYRILLIC CAPITAL LETTER A) in it can be taken for other characters" in notice
    screenshot(eve, "signup-look-alike")

    # the passkey button's script, in Russian
    context = browser.new_context(locale="ru-RU", viewport=VIEWPORT)
    boris = opened(context, errors)
    with_passkeys(context, boris)
    boris.goto(f"{base}/signup")
    boris.wait_for_selector("#signup-passkey:not([hidden])", timeout=WAIT_MS)
    boris.fill("#signup-name", IMPOSTOR)
    boris.click("#signup-passkey")
    boris.wait_for_selector("#notice:has-text('выглядит как')", timeout=WAIT_MS)
    assert "«Ada Browser» — имя другой учётной записи" in boris.inner_text("#notice")
    screenshot(boris, "signup-look-alike-ru")

    try:
        with server.store.accounts.runner.reading(name_id(IMPOSTOR), AccountName) as owner:
            assert not owner.account
    except AccountNotFoundError:
        pass  # never taken: nothing was opened
    assert not [e for e in errors if "409" not in e], errors
