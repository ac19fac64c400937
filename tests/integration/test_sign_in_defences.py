"""Sign-in as an attacker would drive it (issue 35, item 6), through Flask's
test client on real SQLite stores (and the real Redis for the key's
handover): a post from another origin (another port, a sibling subdomain)
with a good token; a CSRF cookie the attacker set with a token to match;
the ``__Host-`` cookies over https and a planted plain one; signing in
adopts nothing until the person confirms it on the page that lists the
browser's holdings; revoking the key or a passkey signs out every browser
it signed in; the new account key never waits readable in Redis; a
passkey's refusal in plain words, never the library's; and item 7's
planted bug: an add-passkey ceremony asked for as one account and finished
as another in the same browser. (Chromium and a real sibling-origin page:
tests/browser/test_login_csrf_browser.py; streams:
tests/integration/test_stream_revocation.py.)"""

from __future__ import annotations

import base64
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
import redis
from flask import Flask

from api.web.session import SESSION_COOKIE
from tests.conftest import REDIS_URL
from tests.integration.test_account_pages import (
    KEY,
    Authenticator,
    Browser,
    b64,
    browser,
    make_app,
    opus,
    passkey_sign_in,
    passkey_sign_up,
    sign_up_by_key,
    signed_in_as,
    unique,
    view,
)
from tests.redis_keys import drop_prefix

OWN = "http://localhost"  # the test client's origin


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    flask_app = make_app(tmp_path_factory.mktemp("defences"))
    yield flask_app
    flask_app.extensions["opus"].close()


def seat_taken_signed_out(b: Browser, name: str) -> str:
    """A game this browser created and sat at signed out (its organiser and
    seat tokens in its cookies): the game's id."""
    created = b.post("/table/new")
    assert created.status_code == 303, created.get_data(as_text=True)
    game = created.headers["Location"].removeprefix("/table/").partition("?")[0]
    joined = b.post(f"/table/{game}/join", name=name)
    assert joined.status_code == 303, joined.get_data(as_text=True)
    return game


# ---- the origin ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://localhost:8001"},  # another port: same site, another origin
        {"Origin": "http://evil.localhost"},  # a sibling subdomain
        {"Origin": "https://localhost"},  # another scheme
        {"Origin": "null"},  # a sandboxed frame, a data: URL
        {"Referer": "http://localhost:8001/attack.html"},  # no Origin: the Referer's
        {"Sec-Fetch-Site": "same-site"},  # neither: the browser's own word
        {"Origin": OWN, "Sec-Fetch-Site": "same-site"},  # the signals disagree
    ],
)
def test_a_sign_in_posted_from_another_origin_is_refused_with_a_good_token(
    app: Flask, headers: dict[str, str]
) -> None:
    _, key, account = sign_up_by_key(app, unique("Mallory"))
    victim = browser(app)
    sessions = len(view(app, account).sessions)
    answer = victim.client.post(
        "/signin/key", data={"csrf": victim.csrf, "key": key}, headers=headers
    )
    assert answer.status_code == 403, answer.status_code
    assert signed_in_as(victim) is None
    assert len(view(app, account).sessions) == sessions  # nothing done


def test_a_sign_in_posted_from_its_own_origin_passes(app: Flask) -> None:
    name = unique("Olga")
    _, key, _ = sign_up_by_key(app, name)
    for headers in (
        {"Origin": OWN, "Sec-Fetch-Site": "same-origin"},
        {"Origin": "HTTP://LOCALHOST:80"},  # the same origin spelled otherwise
        {"Referer": f"{OWN}/signin"},
        {},  # no browser's signal at all (a script, this client): the token decides
    ):
        b = browser(app)
        answer = b.client.post("/signin/key", data={"csrf": b.csrf, "key": key}, headers=headers)
        assert answer.status_code == 303, (headers, answer.status_code)
        assert signed_in_as(b) == name


# ---- the CSRF token bound to the pre-session ---------------------------------------------------


def test_a_csrf_cookie_the_attacker_set_gets_no_token_it_can_match(app: Flask) -> None:
    """Double submit alone let a page that sets the cookie choose both halves."""
    _, key, account = sign_up_by_key(app, unique("Mallory"))
    victim = app.test_client()
    chosen = "A" * 43
    victim.set_cookie("opus_csrf", chosen)
    answer = victim.post("/signin/key", data={"csrf": chosen, "key": key})
    assert answer.status_code == 403
    assert victim.get_cookie(SESSION_COOKIE) is None
    assert len(view(app, account).sessions) == 1  # the sign-up's own
    # the token the pages hand out is no copy of the cookie, and differs per browser
    b, other = browser(app), browser(app)
    cookie = b.client.get_cookie("opus_csrf")
    assert cookie is not None and cookie.value != b.csrf and b.csrf != other.csrf
    # another browser's token does not match this one's cookie
    assert b.client.post("/signin/key", data={"csrf": other.csrf, "key": key}).status_code == 403


# ---- __Host- cookies over https ------------------------------------------------------------------


def test_over_https_the_session_and_csrf_cookies_are_host_prefixed(app: Flask) -> None:
    _, key, _ = sign_up_by_key(app, unique("Petra"))
    client = app.test_client()
    base = "https://localhost"
    page = client.get("/signin", base_url=base)
    set_cookie = page.headers.getlist("Set-Cookie")
    csrf_cookie = next(c for c in set_cookie if c.startswith("__Host-opus_csrf="))
    assert "Secure" in csrf_cookie and "Path=/" in csrf_cookie and "Domain" not in csrf_cookie
    found = re.search(r'<meta name="csrf-token" content="([^"]+)">', page.get_data(as_text=True))
    assert found
    csrf = found.group(1)
    headers = {"Origin": base}
    signed = client.post(
        "/signin/key", data={"csrf": csrf, "key": key}, base_url=base, headers=headers
    )
    assert signed.status_code == 303
    session_cookie = next(
        c for c in signed.headers.getlist("Set-Cookie") if c.startswith("__Host-opus_session=")
    )
    assert "Secure" in session_cookie and "Path=/" in session_cookie
    assert "Domain" not in session_cookie
    # a plain cookie a sibling planted is not read over https
    planted = app.test_client()
    planted.set_cookie("opus_csrf", "B" * 43)
    planted.set_cookie(SESSION_COOKIE, client.get_cookie("__Host-opus_session").value)
    page = planted.get("/signin", base_url=base).get_data(as_text=True)
    assert 'id="sign-in-link"' in page  # the planted session is no session here
    answer = planted.post(
        "/signin/key", data={"csrf": "B" * 43, "key": key}, base_url=base, headers=headers
    )
    assert answer.status_code == 403


# ---- adoption only once confirmed ---------------------------------------------------------------


def test_signing_in_adopts_nothing_until_the_person_confirms_on_the_page(app: Flask) -> None:
    owner = unique("Rita")
    _, key, account = sign_up_by_key(app, owner)
    b = browser(app)
    game = seat_taken_signed_out(b, "Rita at home")
    # a forged seat cookie for the same game holds nothing: never offered
    b.client.set_cookie(f"opus_seat_{uuid.uuid4()}", "F" * 43)
    answer = b.post("/signin/key", key=key, next=f"/table/{game}")
    assert answer.status_code == 303
    assert answer.headers["Location"].startswith("/account/adopt?next=")
    assert view(app, account).adopted == frozenset()  # signing in adopted nothing
    page = b.page(answer.headers["Location"])
    assert owner in page
    offered = re.findall(r'name="take" value="([^"]+)"', page)
    assert sorted(offered) == sorted([f"seat:{game}", f"organiser:{game}"])
    assert "Your seat “Rita at home” in the game of Rita at home" in page
    # the person ticks the seat alone
    confirmed = b.post("/account/adopt", take=f"seat:{game}", next=f"/table/{game}")
    assert confirmed.status_code == 303 and confirmed.headers["Location"] == f"/table/{game}"
    assert len(view(app, account).adopted) == 1
    # what the form names that this browser does not hold is never adopted
    other = unique("Sofia")
    stranger, _, stranger_id = sign_up_by_key(app, other)
    assert stranger.post("/account/adopt", take=f"seat:{game}").status_code == 303
    assert view(app, stranger_id).adopted == frozenset()


def test_the_adoption_page_speaks_russian_too(app: Flask) -> None:
    _, key, _ = sign_up_by_key(app, unique("Tamara"))
    b = browser(app)
    seat_taken_signed_out(b, "Тамара")
    b.client.get("/lang/ru")
    target = b.post("/signin/key", key=key).headers["Location"]
    page = b.page(target)
    assert "Ваше место «Тамара»" in page and "Добавить отмеченные" in page


# ---- revocation ends the sessions a credential opened --------------------------------------------


def test_rotating_the_key_signs_out_every_browser_the_key_signed_in(app: Flask) -> None:
    name = unique("Ulyana")
    owner, key, account = sign_up_by_key(app, name)
    thief = browser(app)
    assert thief.post("/signin/key", key=key).status_code == 303
    assert signed_in_as(thief) == name
    rotated = owner.post("/account/key/rotate", sure="on")
    assert rotated.status_code == 303
    assert signed_in_as(thief) is None  # the key's session ended with it
    assert thief.post("/account/name", name=unique("Hijack")).status_code == 401
    # the browser that rotated stays signed in, and is shown the new key once
    assert signed_in_as(owner) == name
    new_key = KEY.search(owner.page("/account/key"))
    assert new_key and new_key.group(0) != key
    assert [via for _, _, via, _ in view(app, account).sessions] == ["key"]


def test_removing_a_passkey_signs_out_every_browser_it_signed_in(app: Flask) -> None:
    name = unique("Valentina")
    device = Authenticator()
    first = browser(app)
    assert passkey_sign_up(first, name, device).status_code == 200
    account = UUID(bytes=base64.urlsafe_b64decode(device.user_handle + "=="))
    second = browser(app)
    assert passkey_sign_in(second, device).status_code == 200
    by_key = browser(app)
    key = KEY.search(first.page("/account/key"))
    assert key
    assert by_key.post("/signin/key", key=key.group(0)).status_code == 303
    credential = b64(device.credential_id)
    removed = by_key.post("/account/passkeys/remove", credential=credential)
    assert removed.status_code == 303
    # both browsers the passkey signed in (the sign-up's and the sign-in's) are out
    assert signed_in_as(first) is None and signed_in_as(second) is None
    assert signed_in_as(by_key) == name
    assert [via for _, _, via, _ in view(app, account).sessions] == ["key"]


# ---- the new account key never waits readable --------------------------------------------------


@pytest.fixture
def redis_app(tmp_path: Path) -> Iterator[tuple[Flask, str]]:
    prefix = f"opus-test:keys:{uuid.uuid4().hex[:8]}:"
    flask_app = make_app(tmp_path, REDIS_URL=REDIS_URL, OPUS_REDIS_PREFIX=prefix)
    yield flask_app, prefix
    flask_app.extensions["opus"].close()
    drop_prefix(REDIS_URL, prefix)


def redis_holds(prefix: str, needle: str) -> bool:
    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(match=f"{prefix}*"):
        kind = client.type(key)
        value: Any = client.get(key) if kind == b"string" else client.dump(key)
        if value is not None and needle.encode() in bytes(value):
            return True
    return False


def test_the_new_key_waits_in_redis_sealed_and_only_its_browser_opens_it(
    redis_app: tuple[Flask, str],
) -> None:
    app, prefix = redis_app
    ada = browser(app)
    answer = ada.post("/signup", name="Ada")
    assert answer.status_code == 303
    account = opus(app).accounts.by_session(ada.session or "")
    assert account is not None
    # waiting in Redis for its page view: no key readable there, and the
    # holder of the session alone (without the browser's code) gets nothing
    assert not redis_holds(prefix, f"opus_{account.id.hex}_")
    records = list(redis.Redis.from_url(REDIS_URL).scan_iter(match=f"{prefix}once:key:*"))
    assert len(records) == 1
    stolen = app.test_client()
    stolen.set_cookie(SESSION_COOKIE, ada.session or "")
    page = stolen.get("/account/key").get_data(as_text=True)
    assert not KEY.search(page) and "no key to show" in page
    # taken by that view: the browser that signed up finds it gone too, so the
    # key was handed over to no one (rotate it, the page says)
    assert not KEY.search(ada.page("/account/key"))
    # a sign-up whose browser opens its own page sees the key
    boris = browser(app)
    assert boris.post("/signup", name="Boris").status_code == 303
    key = KEY.search(boris.page("/account/key"))
    assert key and opus(app).accounts.by_key(key.group(0)) is not None
    assert not redis_holds(prefix, key.group(0))


# ---- plain words, never the library's text -------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_malformed_passkey_answer_is_refused_in_plain_words(app: Flask, lang: str) -> None:
    b = browser(app)
    b.client.get(f"/lang/{lang}")
    options = b.post_json("/signup/options", {"name": unique("Wanda")}).json
    credential = Authenticator().create(options)
    credential["response"]["attestationObject"] = base64.urlsafe_b64encode(b"\xff" * 9).decode()
    refused = b.post_json("/signup/finish", {"credential": credential})
    assert refused.status_code == 400
    message = refused.json["message"]
    for library in ("attestationObject", "__cause__", "malformed", "CBOR", "See "):
        assert library not in message, message
    if lang == "ru":
        assert "ответ браузера не удалось прочитать" in message
    else:
        assert "your browser's answer could not be read" in message
    # a signature that is not the passkey's: named as such, in words
    device = Authenticator()
    owner = browser(app)
    assert passkey_sign_up(owner, unique("Xenia"), device).status_code == 200
    impostor = Authenticator(credential_id=device.credential_id, user_handle=device.user_handle)
    c = browser(app)
    c.client.get(f"/lang/{lang}")
    wrong = passkey_sign_in(c, impostor)
    assert wrong.status_code == 400
    assert "Could not verify" not in wrong.json["message"]


# ---- item 7: the add-passkey challenge belongs to the account that asked -------------------------


def test_an_add_passkey_ceremony_asked_as_one_account_cannot_finish_as_another(
    app: Flask,
) -> None:
    """Options asked for as A; the same browser signs in as B; the finish
    gives neither account a passkey made for A's ceremony."""
    _, a_key, a_id = sign_up_by_key(app, unique("Alla"))
    _, b_key, b_id = sign_up_by_key(app, unique("Bella"))
    b = browser(app)
    # the same browser: signed in as A, asks for the options
    assert b.post("/signin/key", key=a_key).status_code == 303
    options = b.post_json("/account/passkeys/options", {})
    assert options.status_code == 200
    assert options.json["user"]["id"] == b64(a_id.bytes)
    # then signs in as B (its CSRF cookie, the challenge's browser, unchanged)
    assert b.post("/signin/key", key=b_key).status_code == 303
    assert opus(app).accounts.by_session(b.session or "") == view(app, b_id)
    finished = b.post_json(
        "/account/passkeys/finish", {"credential": Authenticator().create(options.json)}
    )
    assert finished.status_code == 400
    assert view(app, b_id).passkeys == [] and view(app, a_id).passkeys == []


def test_every_process_on_one_redis_makes_and_checks_the_same_tokens(tmp_path: Path) -> None:
    """Two workers of the service (two apps on one Redis prefix and one
    store): the page secret is shared, so a token one page got from one
    worker is good at the other; another service's (another prefix) is not."""
    prefix = f"opus-test:secret:{uuid.uuid4().hex[:8]}:"
    apps = [
        make_app(tmp_path, REDIS_URL=REDIS_URL, OPUS_REDIS_PREFIX=p)
        for p in (prefix, prefix, f"{prefix}other:")
    ]
    try:
        first = browser(apps[0])
        cookie = first.client.get_cookie("opus_csrf")
        assert cookie is not None
        for other, good in ((apps[1], True), (apps[2], False)):
            client = other.test_client()
            client.set_cookie("opus_csrf", cookie.value)
            answer = client.post("/signup", data={"csrf": first.csrf, "name": unique("Ivo")})
            assert (answer.status_code == 303) is good, answer.status_code
    finally:
        for each in apps:
            each.extensions["opus"].close()
        drop_prefix(REDIS_URL, prefix)


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_session_or_passkey_gone_already_is_said_in_words(app: Flask, lang: str) -> None:
    ada, _, _ = sign_up_by_key(app, unique("Yulia"))
    ada.client.get(f"/lang/{lang}")
    gone = ada.post("/account/sessions/signout", session="0" * 64)
    removed = ada.post("/account/passkeys/remove", credential="no-such-passkey")
    for answer in (gone, removed):
        assert answer.status_code == 422
        page = answer.get_data(as_text=True)
        assert "no such" not in page and "this account has" not in page  # the domain's English
    words = (
        ("уже вышел", "уже удалён") if lang == "ru" else ("signed out already", "removed already")
    )
    assert words[0] in gone.get_data(as_text=True)
    assert words[1] in removed.get_data(as_text=True)


def test_behind_a_proxy_that_ends_tls_the_origin_setting_decides(tmp_path: Path) -> None:
    """The proxy speaks http to the service (``OPUS_ORIGIN`` says the
    browser's https origin): the cookies are ``__Host-`` and Secure all the
    same, a post from that origin passes, one from another port does not."""
    proxied = make_app(tmp_path, OPUS_ORIGIN="https://opus.example")
    try:
        _, key, _ = sign_up_by_key(proxied, unique("Zhanna"))
        client = proxied.test_client()
        base = "http://opus.example"  # as the proxy asks
        page = client.get("/signin", base_url=base)
        cookie = next(
            c for c in page.headers.getlist("Set-Cookie") if c.startswith("__Host-opus_csrf=")
        )
        assert "Secure" in cookie
        found = re.search(
            r'<meta name="csrf-token" content="([^"]+)">', page.get_data(as_text=True)
        )
        assert found
        form = {"csrf": found.group(1), "key": key}
        sibling = {"Origin": "https://opus.example:8443"}
        assert (
            client.post("/signin/key", data=form, base_url=base, headers=sibling).status_code == 403
        )
        own = {"Origin": "https://opus.example"}
        signed = client.post("/signin/key", data=form, base_url=base, headers=own)
        assert signed.status_code == 303
        assert any(
            c.startswith("__Host-opus_session=") for c in signed.headers.getlist("Set-Cookie")
        )
    finally:
        proxied.extensions["opus"].close()


def test_the_compose_proxy_passes_the_host_with_the_port_the_browser_used() -> None:
    """docker-compose.yml's nginx hands the API the Host the browser sent
    (``$http_host``, its port included), as the Origin check compares it;
    ``$host`` drops the port, and every page post would be refused."""
    compose = (Path(__file__).resolve().parents[2] / "docker-compose.yml").read_text()
    api = compose[compose.index("proxy_pass http://api;") :].split("}")[0]
    assert "proxy_set_header Host $$http_host;" in api


def test_a_cookie_that_holds_nothing_diverts_no_sign_in(app: Flask) -> None:
    _, key, account = sign_up_by_key(app, unique("Anfisa"))
    b = browser(app)
    b.client.set_cookie(f"opus_seat_{uuid.uuid4()}", "F" * 43)  # stale, or forged
    answer = b.post("/signin/key", key=key, next="/account")
    assert answer.status_code == 303 and answer.headers["Location"] == "/account"
    assert view(app, account).adopted == frozenset()
