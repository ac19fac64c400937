"""The account pages through Flask's test client, on real SQLite stores:
sign-up with the account key alone and with a passkey (a software
authenticator: an EC P-256 key making "none" attestations and assertions
as a browser's would), the key shown once, sign-in on a second browser,
sessions listed and signed out, renames, key rotation, CSRF on every
account post, forged sessions, single-use and expiring challenges bound
to their purpose and browser, the origin checked, and the sign-in rate
limit. (The real ceremony in Chromium: tests/browser/test_accounts_browser.py.)"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import secrets
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

import cbor2
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from flask import Flask
from flask.testing import FlaskClient

from api.app import create_app
from api.web.session import SESSION_COOKIE
from domain.accounts.commands import AccountView, digest
from domain.application import Opus
from infra.settings import EMBEDDED_DEFAULTS

KEY = re.compile(r"opus_[0-9a-f]{32}_[A-Za-z0-9_-]{43}")
ORIGIN = "http://localhost"  # the test client's
RP_ID = "localhost"


def make_app(folder: Path, **settings: str) -> Flask:
    return create_app(
        {
            **EMBEDDED_DEFAULTS,
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(folder / "events.db"),
            "OPUS_VIEWS_DBNAME": str(folder / "views.db"),
            "REDIS_URL": None,
            "OPUS_RUN_PROJECTIONS": "0",
            "OPUS_SIGN_IN_RATE_LIMIT": "10000/60",
            **settings,
        }
    )


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    flask_app = make_app(tmp_path_factory.mktemp("accounts"))
    yield flask_app
    flask_app.extensions["opus"].close()


def opus(app: Flask) -> Opus:
    service: Opus = app.extensions["opus"].opus
    return service


def unique(name: str) -> str:
    return f"{name} {uuid.uuid4().hex[:6]}"


# ---- a browser --------------------------------------------------------------------------------


@dataclass
class Browser:
    client: FlaskClient
    csrf: str = ""

    def page(self, path: str) -> str:
        return str(self.client.get(path).get_data(as_text=True))

    def post(self, path: str, **form: str) -> Any:
        return self.client.post(path, data={"csrf": self.csrf, **form})

    def post_json(self, path: str, body: Mapping[str, Any]) -> Any:
        return self.client.post(
            path,
            json=body,
            headers={"X-CSRF-Token": self.csrf, "Accept": "application/json"},
        )

    @property
    def session(self) -> str | None:
        cookie = self.client.get_cookie(SESSION_COOKIE)
        return cookie.value if cookie is not None else None


def browser(app: Flask) -> Browser:
    """A new browser with its CSRF token (from a page's <meta>)."""
    client = app.test_client()
    page = client.get("/signin").get_data(as_text=True)
    found = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
    assert found
    return Browser(client, found.group(1))


def sign_up_by_key(app: Flask, name: str) -> tuple[Browser, str, UUID]:
    """A browser that signed up without a passkey: it, the key it was shown, the account id."""
    ada = browser(app)
    answer = ada.post("/signup", name=name)
    assert answer.status_code == 303, answer.get_data(as_text=True)
    assert answer.headers["Location"] == "/account/key"
    found = KEY.search(ada.page("/account/key"))
    assert found, "the key page shows the key"
    key = found.group(0)
    return ada, key, UUID(key.split("_")[1])


def view(app: Flask, account: UUID) -> AccountView:
    return opus(app).accounts.view(account)


def signed_in_as(b: Browser) -> str | None:
    """The name the header shows, or None when it offers to sign in."""
    page = b.page("/signin")
    found = re.search(r'id="account-link"><bdi>([^<]*)</bdi>', page)
    if found:
        return html.unescape(found.group(1))
    assert 'id="sign-in-link"' in page
    return None


# ---- a software authenticator -----------------------------------------------------------------


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Authenticator:
    """A passkey as a platform authenticator keeps one: an EC P-256 key, a
    credential id, the user handle it was made for, a signature counter."""

    origin: str = ORIGIN
    rp_id: str = RP_ID
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    credential_id: bytes = field(default_factory=lambda: secrets.token_bytes(16))
    user_handle: str = ""
    sign_count: int = 0

    def cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return bytes(
            cbor2.dumps(
                {
                    1: 2,  # kty: EC2
                    3: -7,  # alg: ES256
                    -1: 1,  # crv: P-256
                    -2: numbers.x.to_bytes(32, "big"),
                    -3: numbers.y.to_bytes(32, "big"),
                }
            )
        )

    def client_data(self, kind: str, challenge: str) -> bytes:
        data = {"type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": False}
        return json.dumps(data).encode()

    def rp_hash(self) -> bytes:
        return hashlib.sha256(self.rp_id.encode()).digest()

    def create(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """navigator.credentials.create's answer to the options, as JSON."""
        assert options["authenticatorSelection"]["residentKey"] == "required"
        self.user_handle = options["user"]["id"]
        attested = (
            bytes(16)  # AAGUID
            + len(self.credential_id).to_bytes(2, "big")
            + self.credential_id
            + self.cose_key()
        )
        flags = 0x01 | 0x04 | 0x40  # user present, verified, attested credential data
        auth_data = self.rp_hash() + bytes([flags]) + self.sign_count.to_bytes(4, "big") + attested
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        return {
            "id": b64(self.credential_id),
            "rawId": b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(self.client_data("webauthn.create", options["challenge"])),
                "attestationObject": b64(attestation),
                "transports": ["internal"],
            },
        }

    def get(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """navigator.credentials.get's answer to the options, as JSON."""
        assert options["allowCredentials"] == []  # discoverable: the passkey names its account
        self.sign_count += 1
        client_data = self.client_data("webauthn.get", options["challenge"])
        auth_data = self.rp_hash() + bytes([0x01 | 0x04]) + self.sign_count.to_bytes(4, "big")
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = self.key.sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64(self.credential_id),
            "rawId": b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client_data),
                "authenticatorData": b64(auth_data),
                "signature": b64(signature),
                "userHandle": self.user_handle,
            },
        }


def passkey_sign_up(b: Browser, name: str, device: Authenticator) -> Any:
    options = b.post_json("/signup/options", {"name": name})
    assert options.status_code == 200, options.get_data(as_text=True)
    return b.post_json("/signup/finish", {"credential": device.create(options.json)})


def passkey_sign_in(b: Browser, device: Authenticator, next_path: str = "/") -> Any:
    options = b.post_json("/signin/options", {})
    assert options.status_code == 200, options.get_data(as_text=True)
    return b.post_json(
        "/signin/finish", {"credential": device.get(options.json), "next": next_path}
    )


# ---- sign-up with the key alone; the key once; a second browser; sessions ---------------------


def test_sign_up_without_a_passkey_shows_the_key_once_and_keeps_a_server_side_session(
    app: Flask,
) -> None:
    name = unique("Ada")
    ada = browser(app)
    answer = ada.post("/signup", name=name)
    assert answer.status_code == 303 and answer.headers["Location"] == "/account/key"
    cookie = next(h for h in answer.headers.getlist("Set-Cookie") if h.startswith(SESSION_COOKIE))
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
    session = ada.session
    assert session is not None and session not in answer.headers["Location"]
    first = ada.page("/account/key")
    key = KEY.search(first)
    assert key, "the key is shown"
    assert session not in first
    account = UUID(key.group(0).split("_")[1])
    # shown once: the next view, or any other page, never shows it again
    again = ada.page("/account/key")
    assert not KEY.search(again) and "no key to show" in again
    assert not KEY.search(ada.page("/account"))
    # the server keeps only hashes: the session opened with the account, "via" the key
    held = view(app, account)
    assert held.name == name
    assert [(h, via) for h, _, via, _ in held.sessions] == [(digest(session), "key")]
    assert signed_in_as(ada) == name
    # the key works as the API's bearer token for the account too
    assert opus(app).accounts.by_key(key.group(0)) is not None


def test_the_key_signs_in_a_second_browser_and_the_account_page_signs_sessions_out(
    app: Flask,
) -> None:
    name = unique("Boris")
    first, key, account = sign_up_by_key(app, name)
    second = browser(app)
    assert signed_in_as(second) is None
    answer = second.post("/signin/key", key=key, next="/account")
    assert answer.status_code == 303 and answer.headers["Location"] == "/account"
    assert signed_in_as(second) == name
    # both sessions listed, each browser marked on its own page
    page = first.page("/account")
    hashes = re.findall(r'name="session" value="([0-9a-f]{64})"', page)
    assert sorted(hashes) == sorted([digest(first.session or ""), digest(second.session or "")])
    assert page.count("this browser") == 1
    assert "with the account key" in page
    # the first signs the second out: its very next request is signed out
    other = digest(second.session or "")
    out = first.post("/account/sessions/signout", session=other)
    assert out.status_code == 303 and out.headers["Location"] == "/account"
    assert [h for h, *_ in view(app, account).sessions] == [digest(first.session or "")]
    assert signed_in_as(second) is None
    refused = second.client.get("/account")
    assert refused.status_code == 303 and refused.headers["Location"].startswith("/signin")
    assert second.post("/account/name", name=unique("Hijack")).status_code == 401
    assert view(app, account).name == name
    assert signed_in_as(first) == name


def test_sign_out_closes_the_session_on_the_server_and_clears_the_cookie(app: Flask) -> None:
    ada, _, account = sign_up_by_key(app, unique("Cleo"))
    session = ada.session
    assert session is not None
    out = ada.post("/signout")
    assert out.status_code == 303
    assert any(h.startswith(f"{SESSION_COOKIE}=;") for h in out.headers.getlist("Set-Cookie")), (
        "the cookie is cleared"
    )
    assert view(app, account).sessions == []
    # the old cookie value, sent again, is signed out
    replay = browser(app)
    replay.client.set_cookie(SESSION_COOKIE, session)
    assert signed_in_as(replay) is None


def test_a_session_cookie_acts_for_its_own_account_only(app: Flask) -> None:
    ada, _, ada_id = sign_up_by_key(app, unique("Dora"))
    _, _, boris_id = sign_up_by_key(app, unique("Egor"))
    ada_secret = (ada.session or "").split("_", 1)[1]
    forgeries = [
        f"{boris_id.hex}_{secrets.token_urlsafe(32)}",  # another account's id, a made-up secret
        f"{boris_id.hex}_{ada_secret}",  # another account's id with a real secret of Ada's
        f"{UUID(int=5).hex}_{ada_secret}",  # no such account
        "not-a-session",
    ]
    for forged in forgeries:
        forger = browser(app)
        forger.client.set_cookie(SESSION_COOKIE, forged)
        assert signed_in_as(forger) is None, forged
        assert forger.client.get("/account").status_code == 303
        before = view(app, boris_id)
        assert forger.post("/account/name", name=unique("Forged")).status_code == 401
        assert forger.post("/account/key/rotate", sure="on").status_code == 401
        assert view(app, boris_id) == before
    assert view(app, ada_id).name.startswith("Dora")


# ---- names, keys ------------------------------------------------------------------------------


def test_a_rename_to_a_name_another_account_holds_is_refused_saying_why(app: Flask) -> None:
    taken = unique("Fyodor")
    sign_up_by_key(app, taken)
    gleb, _, gleb_id = sign_up_by_key(app, unique("Gleb"))
    old = view(app, gleb_id).name
    for same in (taken.upper(), taken.lower(), f" {taken} "):
        refused = gleb.post("/account/name", name=same)
        assert refused.status_code == 409
        page = refused.get_data(as_text=True)
        assert "is taken by another account" in page and "T2.1" in page
        assert 'id="account-name"' in page, "the account page again, with why"
        assert view(app, gleb_id).name == old
    new = unique("Gleb the Second")
    assert gleb.post("/account/name", name=new).status_code == 303
    assert view(app, gleb_id).name == new
    assert signed_in_as(gleb) == new
    # and a sign-up under a taken name is refused, with or without a passkey
    refused = browser(app).post("/signup", name=taken.swapcase())
    assert refused.status_code == 409 and "is taken by another account" in refused.get_data(
        as_text=True
    )
    options = browser(app).post_json("/signup/options", {"name": new.upper()})
    assert options.status_code == 409 and "is taken" in options.json["message"]


def test_a_rotated_key_is_shown_once_and_the_old_one_no_longer_signs_in(app: Flask) -> None:
    ada, old_key, account = sign_up_by_key(app, unique("Hana"))
    unsure = ada.post("/account/key/rotate")
    assert unsure.status_code == 422
    assert opus(app).accounts.by_key(old_key) is not None, "nothing rotated without the tick"
    rotated = ada.post("/account/key/rotate", sure="on")
    assert rotated.status_code == 303 and rotated.headers["Location"] == "/account/key"
    shown = KEY.search(ada.page("/account/key"))
    assert shown and shown.group(0) != old_key
    new_key = shown.group(0)
    assert not KEY.search(ada.page("/account/key"))
    # the old key no longer signs in, the new one does
    late = browser(app)
    refused = late.post("/signin/key", key=old_key)
    assert refused.status_code == 401
    assert "rotated, or mistyped" in refused.get_data(as_text=True)
    assert signed_in_as(late) is None
    assert late.post("/signin/key", key=new_key).status_code == 303
    assert signed_in_as(late) == view(app, account).name
    # not a key at all
    bad = browser(app).post("/signin/key", key="opus_123")
    assert bad.status_code == 401 and "not an account key" in bad.get_data(as_text=True)


def test_sign_in_goes_to_a_local_next_only(app: Flask) -> None:
    _, key, _ = sign_up_by_key(app, unique("Ilya"))
    for target, expected in (
        ("/account", "/account"),
        ("//evil.example/x", "/"),
        ("https://evil.example/", "/"),
        ("/signin?next=/account", "/"),
    ):
        answer = browser(app).post("/signin/key", key=key, next=target)
        assert answer.status_code == 303 and answer.headers["Location"] == expected, target


# ---- CSRF -------------------------------------------------------------------------------------


def test_every_account_post_without_the_csrf_token_is_refused_and_changes_nothing(
    app: Flask,
) -> None:
    ada, key, account = sign_up_by_key(app, unique("Jana"))
    assert ada.post_json("/account/passkeys/options", {}).status_code == 200
    other, _, _ = sign_up_by_key(app, unique("Kirill"))
    before = view(app, account)
    head = opus(app).recorder.max_notification_id()
    session = digest(ada.session or "")
    forms: list[tuple[str, dict[str, str]]] = [
        ("/signup", {"name": unique("Lev")}),
        ("/signin/key", {"key": key}),
        ("/signout", {}),
        ("/account/name", {"name": unique("Mila")}),
        ("/account/key/rotate", {"sure": "on"}),
        ("/account/passkeys/remove", {"credential": "x"}),
        ("/account/sessions/signout", {"session": session}),
        ("/account/adopt", {"take": f"seat:{uuid.uuid4()}"}),
    ]
    for path, form in forms:
        for csrf in ("", "wrong-token-" + "x" * 40, other.csrf):
            answer = ada.client.post(path, data={"csrf": csrf, **form} if csrf else form)
            assert answer.status_code == 403, (path, csrf, answer.status_code)
    json_posts = [
        ("/signup/options", {"name": unique("Nina")}),
        ("/signup/finish", {"credential": {}}),
        ("/signin/options", {}),
        ("/signin/finish", {"credential": {}}),
        ("/account/passkeys/options", {}),
        ("/account/passkeys/finish", {"credential": {}}),
    ]
    for path, body in json_posts:
        answer = ada.client.post(path, json=body, headers={"Accept": "application/json"})
        assert answer.status_code == 403, path
        assert answer.json["code"] == 403
    # a cross-site or same-site (another origin) request is refused even with the token
    for headers in (
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "http://localhost:8001"},
        {"Sec-Fetch-Site": "same-site"},
    ):
        other_origin = ada.client.post(
            "/account/name", data={"csrf": ada.csrf, "name": unique("Oleg")}, headers=headers
        )
        assert other_origin.status_code == 403, headers
    assert view(app, account) == before
    assert opus(app).recorder.max_notification_id() == head, "nothing recorded"
    assert opus(app).accounts.by_key(key) is not None
    assert signed_in_as(ada) == before.name


# ---- passkeys ---------------------------------------------------------------------------------


def test_a_passkey_signs_up_then_signs_in_by_itself(app: Flask) -> None:
    name = unique("Pavel")
    device = Authenticator()
    ada = browser(app)
    finished = passkey_sign_up(ada, name, device)
    assert finished.status_code == 200, finished.get_data(as_text=True)
    assert finished.json == {"next": "/account/key"}
    account = UUID(bytes=base64.urlsafe_b64decode(device.user_handle + "=="))
    held = view(app, account)
    assert held.name == name
    assert [c for c, _, _ in held.passkeys] == [b64(device.credential_id)]
    assert [via for _, _, via, _ in held.sessions] == ["passkey"]
    key = KEY.search(ada.page("/account/key"))
    assert key and key.group(0).startswith(f"opus_{account.hex}_")
    assert not KEY.search(ada.page("/account/key"))
    # signed out, then in again with the passkey alone (no name: its user handle names it)
    assert ada.post("/signout").status_code == 303
    assert signed_in_as(ada) is None
    signed = passkey_sign_in(ada, device, "/account")
    assert signed.status_code == 200, signed.get_data(as_text=True)
    assert signed.json == {"next": "/account"}
    assert signed_in_as(ada) == name
    page = ada.page("/account")
    assert "with a passkey" in page and b64(device.credential_id) in page
    # the counter the authenticator reported is the one held now
    held_now = opus(app).accounts.passkey(account, b64(device.credential_id))
    assert held_now is not None and held_now[1] == device.sign_count == 1
    # a second browser signs in with it too
    other = browser(app)
    assert passkey_sign_in(other, device).status_code == 200
    assert len(view(app, account).sessions) == 2


def test_a_challenge_is_used_once(app: Flask) -> None:
    device = Authenticator()
    ada = browser(app)
    name = unique("Raisa")
    options = ada.post_json("/signup/options", {"name": name}).json
    credential = device.create(options)
    assert ada.post_json("/signup/finish", {"credential": credential}).status_code == 200
    again = ada.post_json("/signup/finish", {"credential": credential})
    assert again.status_code == 400 and "expired or was used" in again.json["message"]
    # an assertion replayed: its challenge is gone (and its counter would not have moved)
    sign_in = ada.post_json("/signin/options", {}).json
    assertion = device.get(sign_in)
    assert ada.post_json("/signin/finish", {"credential": assertion}).status_code == 200
    replayed = ada.post_json("/signin/finish", {"credential": assertion})
    assert replayed.status_code == 400 and "expired or was used" in replayed.json["message"]


def test_a_challenge_is_bound_to_its_purpose_and_its_browser(app: Flask) -> None:
    device = Authenticator()
    ada, other = browser(app), browser(app)
    # sign-up options finished by another browser
    options = ada.post_json("/signup/options", {"name": unique("Semyon")}).json
    stolen = other.post_json("/signup/finish", {"credential": device.create(options)})
    assert stolen.status_code == 400 and "expired or was used" in stolen.json["message"]
    # a sign-in challenge used to sign up
    sign_in = ada.post_json("/signin/options", {}).json
    wrong = ada.post_json(
        "/signup/finish",
        {"credential": device.create({**options, "challenge": sign_in["challenge"]})},
    )
    assert wrong.status_code == 400
    # an add-passkey challenge of one account finished by another account's browser
    owner, _, owner_id = sign_up_by_key(app, unique("Taisia"))
    thief, _, thief_id = sign_up_by_key(app, unique("Uliana"))
    add = owner.post_json("/account/passkeys/options", {}).json
    assert add["user"]["id"] == b64(owner_id.bytes)
    taken = thief.post_json("/account/passkeys/finish", {"credential": Authenticator().create(add)})
    assert taken.status_code == 400
    assert view(app, owner_id).passkeys == [] and view(app, thief_id).passkeys == []


def test_the_origin_and_relying_party_are_checked(app: Flask) -> None:
    name = unique("Vera")
    for device in (
        Authenticator(origin="http://evil.example"),
        Authenticator(rp_id="evil.example"),
    ):
        b = browser(app)
        options = b.post_json("/signup/options", {"name": name}).json
        credential = device.create(options)
        refused = b.post_json("/signup/finish", {"credential": credential})
        assert refused.status_code == 400, refused.json
        assert "does not hold" in refused.json["message"]
        assert b.session is None
    # nobody holds the name: nothing was opened
    assert browser(app).post_json("/signup/options", {"name": name}).status_code == 200
    # a sign-in whose signature is not the passkey's own
    ada = browser(app)
    device = Authenticator()
    assert passkey_sign_up(ada, unique("Vlad"), device).status_code == 200
    impostor = Authenticator(credential_id=device.credential_id, user_handle=device.user_handle)
    refused = passkey_sign_in(browser(app), impostor)
    assert refused.status_code == 400 and "signature" in refused.json["message"]
    # a passkey no account holds
    unknown = Authenticator(user_handle=b64(uuid.uuid4().bytes))
    assert passkey_sign_in(browser(app), unknown).status_code == 401


def test_a_name_taken_between_options_and_finish_is_refused_at_finish(app: Flask) -> None:
    name = unique("Yana")
    ada = browser(app)
    options = ada.post_json("/signup/options", {"name": name}).json
    sign_up_by_key(app, name.upper())  # another takes it meanwhile
    finished = ada.post_json("/signup/finish", {"credential": Authenticator().create(options)})
    assert finished.status_code == 409 and "is taken by another account" in finished.json["message"]
    assert ada.session is None


def test_a_passkey_added_on_the_account_page_signs_in_and_stops_once_removed(app: Flask) -> None:
    ada, _, account = sign_up_by_key(app, unique("Zoya"))
    device = Authenticator()
    options = ada.post_json("/account/passkeys/options", {})
    assert options.status_code == 200
    assert options.json["user"]["id"] == b64(account.bytes)
    added = ada.post_json("/account/passkeys/finish", {"credential": device.create(options.json)})
    assert added.status_code == 200 and added.json == {"next": "/account"}
    credential = b64(device.credential_id)
    assert [c for c, _, _ in view(app, account).passkeys] == [credential]
    # the same passkey is excluded from being added again
    again = ada.post_json("/account/passkeys/options", {}).json
    assert [c["id"] for c in again["excludeCredentials"]] == [credential]
    other = browser(app)
    assert passkey_sign_in(other, device).status_code == 200
    assert signed_in_as(other) == view(app, account).name
    removed = ada.post("/account/passkeys/remove", credential=credential)
    assert removed.status_code == 303
    assert view(app, account).passkeys == []
    assert passkey_sign_in(browser(app), device).status_code == 401
    # a signed-out browser cannot ask to add one
    assert browser(app).post_json("/account/passkeys/options", {}).status_code == 401


# ---- expiry and the rate limit (apps of their own) --------------------------------------------


def test_a_challenge_expires(tmp_path: Path) -> None:
    short = make_app(tmp_path, OPUS_CHALLENGE_SECONDS="0.3")
    try:
        ada = browser(short)
        options = ada.post_json("/signup/options", {"name": "Ada"}).json
        assert options["timeout"] == 1000  # the browser's bound, never below a second
        time.sleep(0.5)
        late = ada.post_json("/signup/finish", {"credential": Authenticator().create(options)})
        assert late.status_code == 400 and "expired" in late.json["message"]
        # a key waiting to be shown expires too
        assert ada.post("/signup", name="Ada").status_code == 303
        time.sleep(0.5)
        assert not KEY.search(ada.page("/account/key"))
    finally:
        short.extensions["opus"].close()


def test_sign_in_and_sign_up_posts_are_rate_limited_per_client(tmp_path: Path) -> None:
    limited = make_app(tmp_path, OPUS_SIGN_IN_RATE_LIMIT="3/60")
    try:
        b = browser(limited)
        assert b.post("/signin/key", key="opus_x").status_code == 401
        assert b.post_json("/signin/options", {}).status_code == 200
        assert b.post("/signup", name="Ada").status_code == 303
        refused = b.post("/signin/key", key="opus_x")
        assert refused.status_code == 429
        assert 1 <= int(refused.headers["Retry-After"]) <= 60
        assert "Too many sign-in attempts" in refused.get_data(as_text=True)
        script = b.post_json("/signup/options", {"name": "Boris"})
        assert script.status_code == 429 and "Retry-After" in script.headers
        assert "Too many" in script.json["message"]
        # another address is counted apart; the rest of the site is not limited by it
        other = limited.test_client()
        page = other.get("/signin", environ_base={"REMOTE_ADDR": "10.1.2.3"})
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.get_data(as_text=True))
        assert csrf
        elsewhere = other.post(
            "/signin/key",
            data={"csrf": csrf.group(1), "key": "opus_x"},
            environ_base={"REMOTE_ADDR": "10.1.2.3"},
        )
        assert elsewhere.status_code == 401
        assert b.client.get("/account").status_code == 200
        assert b.post("/account/name", name="Ada Two").status_code == 303
    finally:
        limited.extensions["opus"].close()


# ---- the pages --------------------------------------------------------------------------------


def test_the_header_and_the_pages_in_both_languages(app: Flask) -> None:
    visitor = browser(app)
    for lang in ("en", "ru"):
        visitor.client.set_cookie("opus_lang", lang)
        for path in ("/signup", "/signin", "/account/key"):
            page = visitor.client.get(path)
            assert page.status_code == 200
            body = page.get_data(as_text=True)
            assert 'id="sign-in-link"' in body and 'id="sign-up-link"' in body
            assert not re.search(r"<script(?![^>]*\bsrc=)", body), path
            assert "passkeys.js" in body or path == "/account/key"
    visitor.client.set_cookie("opus_lang", "ru")
    assert "Создать с ключом доступа" in visitor.page("/signup")
    name = unique("<b>Ada</b>")
    ada, _, _ = sign_up_by_key(app, name)
    page = ada.page("/account")
    assert html.escape(name) in page and name not in page, "names are escaped"
    assert 'id="sign-out"' in page and 'action="/signout"' in page
    # the header's sign-out form carries the CSRF token
    header = page.split("</header>")[0]
    assert f'value="{ada.csrf}"' in header


def test_at_an_ip_address_the_pages_offer_no_passkey_and_name_localhost(app: Flask) -> None:
    client = app.test_client()
    at_ip = client.get("/signin?next=/account", base_url="http://127.0.0.1:8000")
    page = at_ip.get_data(as_text=True)
    assert 'id="signin-passkey"' not in page and "not at an IP address" in page
    assert 'href="http://localhost:8000/signin?next=/account"' in page
    signup = client.get("/signup", base_url="http://10.0.0.7").get_data(as_text=True)
    assert 'id="signup-passkey"' not in signup and "not at an IP address" in signup
    assert 'id="passkeys-at"' not in signup  # another machine's address: no localhost to offer
    named = client.get("/signup").get_data(as_text=True)  # http://localhost
    assert 'id="signup-passkey"' in named and "not at an IP address" not in named
