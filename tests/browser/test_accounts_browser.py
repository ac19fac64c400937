"""Accounts in a real browser (Debian's Chromium through Playwright, against
``opus serve``: tests/browser/test_web_client.py's server and browser),
with Chromium's virtual authenticator (CDP's WebAuthn domain) standing in
for a device's passkeys: sign up with a passkey, the account key shown
once, sign out, sign in with the passkey alone (discoverable: no name
typed); a second browser signs in with the account key; the account page
lists both sessions and signs the other out. axe-core finds no serious or
critical violation on /signup, /signin, /account and /account/key;
screenshots go to var/screenshots/.

WebAuthn needs a secure context and a relying party id that is a domain:
``http://localhost`` is both, ``127.0.0.1`` is no domain, so the pages are
opened on ``localhost``."""

from __future__ import annotations

import base64
import re
from uuid import UUID

import pytest
from playwright.sync_api import Browser, BrowserContext, CDPSession, Page

from tests.browser import test_web_client as web_client
from tests.browser.test_web_client import VIEWPORT, Server, accessible, opened, screenshot

pytestmark = pytest.mark.browser
server = web_client.server  # the fixtures: opus serve on a temporary store, Chromium
browser = web_client.browser

KEY = re.compile(r"opus_([0-9a-f]{32})_[A-Za-z0-9_-]{43}")
WAIT_MS = 15_000


def with_passkeys(context: BrowserContext, page: Page) -> tuple[CDPSession, str]:
    """A virtual platform authenticator for the page: resident keys, user
    verification that succeeds (a fingerprint always accepted)."""
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    added = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
            }
        },
    )
    return cdp, str(added["authenticatorId"])


def header_name(page: Page) -> str | None:
    link = page.locator("#account-link")
    return link.inner_text() if link.count() else None


def test_passkey_sign_up_key_once_sign_in_and_sessions(server: Server, browser: Browser) -> None:
    base = server.base.replace("://127.0.0.1:", "://localhost:")
    errors: list[str] = []
    context = browser.new_context(locale="en-GB", viewport=VIEWPORT)
    ada = opened(context, errors)
    cdp, authenticator = with_passkeys(context, ada)

    # sign up with a passkey: the header's link, a name, the button
    ada.goto(f"{base}/")
    ada.click("#sign-up-link")
    ada.wait_for_url(f"{base}/signup", timeout=WAIT_MS)
    ada.wait_for_selector("#signup-passkey:not([hidden])", timeout=WAIT_MS)
    accessible(ada, "/signup")
    screenshot(ada, "account-signup")
    ada.fill("#signup-name", "Ada Passkey")
    ada.click("#signup-passkey")
    ada.wait_for_url(f"{base}/account/key", timeout=WAIT_MS)
    key = ada.input_value("#account-key")
    found = KEY.fullmatch(key)
    assert found, key
    account = UUID(found.group(1))
    assert ada.is_visible("#copy-key")
    accessible(ada, "/account/key")
    screenshot(ada, "account-key")
    assert header_name(ada) == "Ada Passkey"

    # the passkey is discoverable, its user handle the account id's bytes
    credentials = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})
    [credential] = credentials["credentials"]
    assert credential["isResidentCredential"] is True
    assert credential["rpId"] == "localhost"
    assert base64.b64decode(credential["userHandle"]) == account.bytes

    # shown once: reloaded, the page has no key
    ada.reload()
    assert ada.locator("#account-key").count() == 0
    assert "no key to show" in ada.inner_text("main")
    assert key not in ada.content()

    # sign out from the header, then in again with the passkey alone
    ada.click("#sign-out")
    ada.wait_for_selector("#sign-in-link", timeout=WAIT_MS)
    assert header_name(ada) is None
    ada.goto(f"{base}/signin?next=/account")
    ada.wait_for_selector("#signin-passkey:not([hidden])", timeout=WAIT_MS)
    accessible(ada, "/signin")
    screenshot(ada, "account-signin")
    ada.click("#signin-passkey")
    ada.wait_for_url(f"{base}/account", timeout=WAIT_MS)
    assert header_name(ada) == "Ada Passkey"
    assert "with a passkey" in ada.inner_text("#sessions")
    [used] = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert used["signCount"] >= 1

    # a second browser, without a passkey, signs in with the account key
    other_context = browser.new_context(locale="ru-RU", viewport=VIEWPORT)
    boris = opened(other_context, errors)
    boris.goto(f"{base}/signin")
    boris.fill("#signin-key", key)
    boris.click("#signin-key-submit")
    boris.wait_for_selector("#account-link", timeout=WAIT_MS)
    assert header_name(boris) == "Ada Passkey"

    # the account page lists both sessions, this browser's marked; it signs the other out
    ada.goto(f"{base}/account")
    sessions = ada.locator("#sessions > li")
    assert sessions.count() == 2
    assert ada.locator("#sessions > li.mine").count() == 1
    assert "with the account key" in ada.inner_text("#sessions > li:not(.mine)")
    accessible(ada, "/account")
    screenshot(ada, "account")
    ada.click("#sessions > li:not(.mine) button")
    ada.wait_for_function(
        "() => document.querySelectorAll('#sessions > li').length === 1", timeout=WAIT_MS
    )
    assert ada.locator("#sessions > li.mine").count() == 1

    # the other browser's next request is signed out
    boris.goto(f"{base}/account")
    boris.wait_for_url(re.compile(r"/signin\?next="), timeout=WAIT_MS)
    assert header_name(boris) is None
    assert errors == []
    other_context.close()
    context.close()


def test_signed_out_pages_pass_axe_in_russian(server: Server, browser: Browser) -> None:
    base = server.base.replace("://127.0.0.1:", "://localhost:")
    errors: list[str] = []
    context = browser.new_context(locale="ru-RU", viewport=VIEWPORT)
    page = opened(context, errors)
    for path, name in (("/signup", "account-signup-ru"), ("/signin", "account-signin-ru")):
        page.goto(f"{base}{path}")
        page.wait_for_selector("button[data-passkey]:not([hidden])", timeout=WAIT_MS)
        assert page.locator("html").get_attribute("lang") == "ru"
        accessible(page, path)
        screenshot(page, name)
    assert errors == []
    context.close()
