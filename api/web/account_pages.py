"""The web client's pages for accounts: sign-up, sign-in, the account page.

Its routes join the pages blueprint (api/web/pages.py); its words are
api/web/words/accounts.py, its script api/web/static/passkeys.js. The
accounts themselves are ``Opus.accounts`` (domain/accounts).

- ``GET /signup``: a name, then "create with a passkey" (the script: ``POST
  /signup/options`` with the name, ``navigator.credentials.create``, ``POST
  /signup/finish`` with the credential) or, on a device without one, with
  the account key alone (``POST /signup``). Either way the account opens
  with a session for this browser, and ``GET /account/key`` shows its
  account key once.
- ``GET /signin``: "sign in with a passkey" (``POST /signin/options``,
  ``navigator.credentials.get`` with no credential listed: a passkey is
  discoverable and names its account by its user handle, the account id's
  16 bytes; ``POST /signin/finish``), or with the account key (``POST
  /signin/key``). ``POST /signout`` closes this browser's session.
- ``GET /account``: the signed-in account: rename (``POST /account/name``),
  its passkeys (add: ``POST /account/passkeys/options`` and ``…/finish``;
  ``…/remove``), its key (``POST /account/key/rotate``, then the new key
  shown once), its sessions (``POST /account/sessions/signout``).

WebAuthn (py_webauthn): the relying party is the request's host (without
its port) and origin unless ``OPUS_RP_ID``/``OPUS_ORIGIN`` say (behind a
proxy). Each ceremony's challenge is single-use and expires
(infra/challenges.py): it is bound to its purpose, to this browser (its
CSRF token's hash) and, for a sign-up, to the chosen name and the new
account's id (the passkey's user handle), for adding a passkey to the
account that asked (a browser signed in to another account since cannot
finish it). A sign-in's assertion is verified against the public key and
signature counter the account holds; the new counter is recorded with the
session. What the library says of a refused passkey is logged; the person
reads it in plain words (``passkey_words``). A new account key is handed
over once (api/web/key_handover.py: sealed under a code only this
browser's cookie holds).

Signing in adopts nothing: a browser that holds seat, organiser or
registration tokens is sent to ``/account/adopt`` (api/web/adoption.py),
which lists them and adopts those the person confirms.

Revoking a credential ends what it opened (domain/accounts): rotating
the key signs out every browser signed in with it (the browser that
rotates is signed in anew with the new key), removing a passkey every
browser signed in with it; the API's streams opened with the old key
close (api/stream.py).

Every POST here is CSRF-checked by the pages' ``prepare``; the sign-up
and sign-in posts are limited per client address besides
(``OPUS_SIGN_IN_RATE_LIMIT``: 429 with Retry-After). The account acted on
is always the session's, never one a form names.
"""

from __future__ import annotations

import ipaddress
import logging
import math
from collections.abc import Callable
from contextlib import suppress
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID, uuid4

from flask import Response, g, jsonify, redirect, render_template, request, url_for
from webauthn import (
    base64url_to_bytes,
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import (
    bytes_to_base64url,
    parse_authentication_credential_json,
    parse_client_data_json,
    parse_registration_credential_json,
)
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)
from werkzeug.wrappers import Response as BaseResponse

from api.ratelimit import sign_in_wait
from api.runtime import services
from api.web.adoption import after_sign_in, offered
from api.web.i18n import text
from api.web.key_handover import hand_over, take_over
from api.web.look_alikes import refuse_look_alike
from api.web.pages import PageError, blp, local_path, wants_json
from api.web.session import (
    end_session,
    keep_session,
    own_origin,
    session_value,
    signed_in,
)
from domain.accounts.aggregate import AccountName, name_id
from domain.accounts.commands import (
    AccountView,
    NewPasskey,
    account_name,
    digest,
    key_account,
)
from domain.errors import (
    AccountError,
    AccountNotFoundError,
    NameTakenError,
    SignInError,
)
from infra.challenges import ChallengesUnavailableError, issue, redeem

log = logging.getLogger(__name__)

RP_NAME = "Opus"
SIGN_UP, SIGN_IN, ADD_PASSKEY = "sign-up", "sign-in", "add-passkey"
LIMITED = frozenset(
    {
        "pages.signup_key",
        "pages.signup_options",
        "pages.signup_finish",
        "pages.signin_options",
        "pages.signin_finish",
        "pages.signin_key",
    }
)
MAX_KEY = 200  # an account key is 81 characters: anything longer is not one


# ---- every page: who is signed in; the sign-in limit ----------------------------------------


@blp.app_context_processor
def account_helpers() -> dict[str, Any]:
    """``signed_in()``: the account this browser's session is open for, or
    None (also for a page rendered while the store is down: the header
    then shows the sign-in links)."""

    def browser_account() -> AccountView | None:
        try:
            return signed_in(request)
        except Exception:  # the page's own error says what is down; the header does not
            log.exception("the signed-in account cannot be read")
            return None

    return {"signed_in": browser_account}


@blp.before_request
def limit_sign_in() -> BaseResponse | None:
    """The sign-up and sign-in posts, counted per client address (after
    the CSRF check): past the limit, 429 with Retry-After."""
    if request.method != "POST" or request.endpoint not in LIMITED:
        return None
    limiter = services().sign_in_limiter
    if limiter is None:
        return None
    wait = sign_in_wait(limiter, request)  # per client address, and per account (api/ratelimit.py)
    if wait is None:
        return None
    seconds = max(1, math.ceil(wait))
    message = text("acct_limited", g.lang, seconds=seconds)
    response: BaseResponse
    if wants_json():
        response = jsonify({"code": 429, "message": message, "rule": None})
    else:
        page = render_template("web/error.html", status=429, message=message)
        response = Response(page, mimetype="text/html")
    response.status_code = 429
    response.headers["Retry-After"] = str(seconds)
    return response


# ---- helpers --------------------------------------------------------------------------------


def relying_party() -> tuple[str, str]:
    """WebAuthn's relying party id and the expected origin: the settings'
    (behind a proxy), else the request's host (no port) and origin."""
    origin = own_origin(request)
    rp_id = services().rp_id or urlsplit(origin).hostname or ""
    return rp_id, origin


def passkey_place() -> dict[str, Any]:
    """Whether passkeys can be used at this address: WebAuthn's relying
    party must be a domain, so a page opened at an IP address (``make run``'s
    http://127.0.0.1:8000) offers none, and names the same page on
    ``localhost`` when the address is this machine's."""
    rp_id, _ = relying_party()
    try:
        address = ipaddress.ip_address(rp_id)
    except ValueError:
        return {"passkeys_here": True, "passkeys_at": None}
    at = None
    if address.is_loopback:
        parts = urlsplit(request.url)
        host = f"localhost:{parts.port}" if parts.port else "localhost"
        at = parts._replace(netloc=host).geturl()
    return {"passkeys_here": False, "passkeys_at": at}


def browser() -> str:
    """This browser, as a challenge is bound to it: its CSRF token's hash
    (the token the pages' ``prepare`` checked for this POST)."""
    return digest(str(g.csrf))


def this_session() -> str:
    """This browser's session cookie value ("" if none)."""
    return session_value(request)


def json_body() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise PageError(400, "the body must be a JSON object")
    return data


def options_response(options: Any) -> Response:
    return Response(options_to_json(options), mimetype="application/json")


def browser_label(agent: str) -> str:
    """A short name of the browser and system a User-Agent names
    ("Firefox on Linux"), for the sessions and passkeys lists."""
    browsers = (
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("Chromium/", "Chromium"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    )
    systems = (
        ("Android", "Android"),
        ("iPhone", "iPhone"),
        ("iPad", "iPad"),
        ("Windows", "Windows"),
        ("Mac OS X", "macOS"),
        ("CrOS", "ChromeOS"),
        ("Linux", "Linux"),
    )
    name = next((n for mark, n in browsers if mark in agent), "")
    system = next((n for mark, n in systems if mark in agent), "")
    if name and system:
        return f"{name} on {system}"
    return name or system or agent.strip()[:60] or "a browser"


def label() -> str:
    return browser_label(request.user_agent.string)


def when(iso: str) -> str:
    """An ISO time as the pages show it: "2025-06-01 14:03 UTC"."""
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def name_taken(name: str) -> bool:
    """Whether another account holds the name's key (T2.1's ``name_key``)."""
    try:
        with services().opus.accounts.runner.reading(name_id(name), AccountName) as owner:
            return bool(owner.account)
    except AccountNotFoundError:
        return False


def checked_name(raw: Any) -> str:
    """The name as an account would record it, free: else 422 or 409, in words."""
    name = account_name(raw if isinstance(raw, str) else "")
    if name_taken(name):
        raise PageError(409, text("acct_name_taken", g.lang, name=name))
    refuse_look_alike(name)  # another account's name it looks like (api/web/look_alikes.py)
    return name


def me() -> AccountView:
    """The signed-in account (a POST of a signed-out browser: 401)."""
    account = signed_in(request)
    if account is None:
        raise PageError(401, text("acct_signed_out", g.lang))
    return account


def challenges_down(e: ChallengesUnavailableError) -> PageError:
    log.warning("%s", e)
    return PageError(503, text("acct_try_again", g.lang))


def issue_challenge(purpose: str, **bound: str) -> bytes:
    try:
        return issue(services().challenges, purpose, {**bound, "browser": browser()})
    except ChallengesUnavailableError as e:
        raise challenges_down(e) from None


def redeem_challenge(client_data_json: bytes, purpose: str) -> tuple[bytes, dict[str, str]]:
    """The challenge the authenticator signed and what it was bound to: 400
    unless it was issued for ``purpose`` to this browser, and is neither
    used nor expired (it is used now, either way)."""
    try:
        challenge = parse_client_data_json(client_data_json).challenge
    except Exception:  # what the browser sent is no client data
        why = text("acct_why_unreadable", g.lang)
        raise PageError(400, text("acct_passkey_bad", g.lang, why=why)) from None
    try:
        record = redeem(services().challenges, challenge, purpose)
    except ChallengesUnavailableError as e:
        raise challenges_down(e) from None
    if record is None or record.get("browser") != browser():
        raise PageError(400, text("acct_challenge_gone", g.lang))
    return challenge, record


# What py_webauthn's refusal says (lower case), and the words a person reads
# for it: the first that matches; anything else is an answer that cannot be read.
PASSKEY_WORDS = (
    ("challenge", "acct_why_challenge"),
    ("origin", "acct_why_origin"),
    ("rp id", "acct_why_site"),
    ("sign count", "acct_why_counter"),
    ("signature", "acct_why_signature"),
    ("user verification", "acct_why_user"),
    ("present", "acct_why_user"),
    ("unsupported", "acct_why_kind"),
    ("algorithm", "acct_why_kind"),
)


def passkey_words(error: Exception) -> str:
    """Why a passkey's answer was refused, in the person's words, never the
    library's text (which is logged)."""
    said = str(error).lower()
    key = next((k for mark, k in PASSKEY_WORDS if mark in said), "acct_why_unreadable")
    return text(key, g.lang)


def verified(check: Callable[[], Any]) -> Any:
    """A WebAuthn verification (pure, on what the browser sent): any failure
    is the answer's, 400 in plain words (the library's own text is logged)."""
    try:
        return check()
    except Exception as e:
        log.info("a passkey's answer refused: %s: %s", type(e).__name__, e)
        raise PageError(400, text("acct_passkey_bad", g.lang, why=passkey_words(e))) from None


def new_passkey(client: Any, purpose: str) -> tuple[NewPasskey, dict[str, str]]:
    """A registration's credential verified: the passkey to record, and
    what its challenge was bound to."""
    credential = verified(lambda: parse_registration_credential_json(client))
    challenge, record = redeem_challenge(credential.response.client_data_json, purpose)
    rp_id, origin = relying_party()
    registration = verified(
        lambda: verify_registration_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp_id,
            expected_origin=origin,
        )
    )
    passkey = NewPasskey(
        bytes_to_base64url(registration.credential_id),
        bytes_to_base64url(registration.credential_public_key),
        registration.sign_count,
        label(),
    )
    return passkey, record


def start_session(response: BaseResponse, value: str) -> None:
    """This browser's new session; the one it held before, if any, is
    closed. It adopts nothing: the tokens this browser holds are the
    adoption page's to offer (``after_sign_in``)."""
    previous = this_session()
    try:
        old = signed_in(request)
    except Exception:
        old = None
    if old is not None and previous and previous != value:
        with suppress(AccountError, AccountNotFoundError):
            services().opus.accounts.sign_out(old.id, digest(previous))
    keep_session(response, request, value)


def show_key_once(response: BaseResponse, session: str, key: str) -> None:
    """Hand the account key over to the one page view of ``GET
    /account/key`` this browser makes (api/web/key_handover.py). If it
    cannot be kept, the account stands all the same (its key or passkey
    made, this browser signed in): the key page then has nothing to show
    and says to rotate the key."""
    try:
        hand_over(response, request, session, key)
    except ChallengesUnavailableError as e:
        log.warning("a new account key could not be kept to be shown: %s", e)


def next_path(raw: str | None) -> str:
    """Where to go once signed in: a path of this site, not a sign-in page."""
    path = local_path(raw or "/")
    return "/" if path.startswith(("/signin", "/signup", "/signout")) else path


# ---- sign-up ---------------------------------------------------------------------------------


def signup_page(notice: str = "", name: str = "") -> str:
    return render_template("web/account_signup.html", notice=notice, name=name, **passkey_place())


@blp.get("/signup")
def signup() -> str:
    return signup_page()


@blp.post("/signup")
def signup_key() -> BaseResponse:
    """An account with no passkey: its name alone; the key is its way in."""
    raw = request.form.get("name", "")
    g.page_on_error = lambda e, words: signup_page(words, raw)
    name = checked_name(raw)
    try:
        opened = services().opus.accounts.open(name, session_label=label())
    except NameTakenError:
        raise PageError(409, text("acct_name_taken", g.lang, name=name)) from None
    assert opened.session is not None
    response = redirect(url_for("pages.account_key"), 303)
    show_key_once(response, opened.session, opened.key)
    start_session(response, opened.session)
    return response


@blp.post("/signup/options")
def signup_options() -> Response:
    """The passkey's creation options for a new account under the name
    (refused now if the name is taken): its new id is the user handle."""
    name = checked_name(json_body().get("name"))
    account_id = uuid4()
    challenge = issue_challenge(SIGN_UP, name=name, account=str(account_id))
    rp_id, _ = relying_party()
    return options_response(
        generate_registration_options(
            rp_id=rp_id,
            rp_name=RP_NAME,
            user_name=name,
            user_id=account_id.bytes,
            user_display_name=name,
            challenge=challenge,
            timeout=ceremony_ms(),
            authenticator_selection=selection(),
        )
    )


@blp.post("/signup/finish")
def signup_finish() -> Response:
    """The new passkey verified: the account opens with it and this
    browser's session; the key is shown next, once."""
    passkey, record = new_passkey(json_body().get("credential"), SIGN_UP)
    try:
        opened = services().opus.accounts.open(
            record["name"],
            passkey=passkey,
            session_label=label(),
            account_id=UUID(record["account"]),
        )
    except NameTakenError:  # taken since the options were given
        raise PageError(409, text("acct_name_taken", g.lang, name=record["name"])) from None
    assert opened.session is not None
    response = jsonify({"next": url_for("pages.account_key")})
    show_key_once(response, opened.session, opened.key)
    start_session(response, opened.session)
    return response


def selection() -> AuthenticatorSelectionCriteria:
    return AuthenticatorSelectionCriteria(
        resident_key=ResidentKeyRequirement.REQUIRED,  # discoverable: sign-in needs no name
        user_verification=UserVerificationRequirement.PREFERRED,
    )


def ceremony_ms() -> int:
    """How long the browser may take, as long as the challenge lives."""
    return max(1000, int(services().challenges.seconds * 1000))


# ---- sign-in and sign-out ------------------------------------------------------------------------


def signin_page(notice: str = "", target: str = "/") -> str:
    return render_template("web/account_signin.html", notice=notice, next=target, **passkey_place())


@blp.get("/signin")
def signin() -> str:
    return signin_page(target=next_path(request.args.get("next")))


@blp.post("/signin/options")
def signin_options() -> Response:
    """The assertion's options: no credential listed (a passkey names its
    account itself)."""
    challenge = issue_challenge(SIGN_IN)
    rp_id, _ = relying_party()
    return options_response(
        generate_authentication_options(
            rp_id=rp_id,
            challenge=challenge,
            timeout=ceremony_ms(),
            user_verification=UserVerificationRequirement.PREFERRED,
        )
    )


@blp.post("/signin/finish")
def signin_finish() -> Response:
    """The assertion verified with the public key and signature counter its
    account holds: a session for this browser."""
    data = json_body()
    credential = verified(lambda: parse_authentication_credential_json(data["credential"]))
    challenge, _ = redeem_challenge(credential.response.client_data_json, SIGN_IN)
    handle = credential.response.user_handle or b""
    if len(handle) != 16:
        raise SignInError(text("acct_passkey_unknown", g.lang))
    account_id = UUID(bytes=handle)
    accounts = services().opus.accounts
    try:
        held = accounts.passkey(account_id, credential.id)
    except AccountNotFoundError:
        held = None
    if held is None:
        raise SignInError(text("acct_passkey_unknown", g.lang))
    public_key, sign_count = held
    rp_id, origin = relying_party()
    assertion = verified(
        lambda: verify_authentication_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp_id,
            expected_origin=origin,
            credential_public_key=base64url_to_bytes(public_key),
            credential_current_sign_count=sign_count,
        )
    )
    session = accounts.sign_in(
        account_id,
        "passkey",
        label(),
        credential_id=credential.id,
        sign_count=assertion.new_sign_count,
    )
    target = next_path(data["next"] if isinstance(data.get("next"), str) else None)
    response = jsonify({"next": after_sign_in(account_id, target)})
    start_session(response, session)
    return response


@blp.post("/signin/key")
def signin_key() -> BaseResponse:
    """The account key: a session for this browser (for a device without a passkey)."""
    target = next_path(request.form.get("next"))
    g.page_on_error = lambda e, words: signin_page(words, target)
    key = request.form.get("key", "").strip()
    account_id = key_account(key) if len(key) <= MAX_KEY else None
    if account_id is None:
        raise SignInError(text("acct_not_a_key", g.lang))
    try:
        session = services().opus.accounts.sign_in(account_id, "key", label(), key=key)
    except SignInError:
        raise SignInError(text("acct_key_refused", g.lang)) from None
    response = redirect(after_sign_in(account_id, target), 303)
    start_session(response, session)
    return response


@blp.post("/signout")
def signout() -> BaseResponse:
    """This browser's session closed on the server, its cookie cleared."""
    account = signed_in(request)
    if account is not None:
        with suppress(AccountError, AccountNotFoundError):
            services().opus.accounts.sign_out(account.id, digest(this_session()))
    response = redirect(next_path(request.form.get("next")), 303)
    end_session(response, request)
    return response


# ---- the account page ------------------------------------------------------------------------


def account_page_html(notice: str = "") -> str | None:
    account = signed_in(request)
    if account is None:
        return None
    here = digest(this_session())
    sessions = [
        {
            "hash": h,
            "label": session_label,
            "via": via,
            "opened": opened,
            "when": when(opened),
            "mine": h == here,
        }
        for h, session_label, via, opened in account.sessions
    ]
    passkeys = [
        {"id": c, "label": passkey_label, "added": added, "when": when(added)}
        for c, passkey_label, added in account.passkeys
    ]
    return render_template(
        "web/account_page.html",
        account=account,
        sessions=sessions,
        passkeys=passkeys,
        notice=notice,
        adoptable=bool(offered(account)),
        **passkey_place(),
    )


def on_account_page() -> None:
    """A refused account form: the account page again, saying why."""
    g.page_on_error = lambda e, words: account_page_html(words)


@blp.get("/account")
def account() -> Any:
    page = account_page_html()
    if page is None:
        return redirect(url_for("pages.signin", next="/account"), 303)
    return page


@blp.post("/account/name")
def account_rename() -> BaseResponse:
    on_account_page()
    account = me()
    name = account_name(request.form.get("name", ""))
    refuse_look_alike(name, account.id)
    try:
        services().opus.accounts.rename(account.id, name)
    except NameTakenError:
        raise PageError(409, text("acct_name_taken", g.lang, name=name)) from None
    return redirect(url_for("pages.account"), 303)


@blp.post("/account/key/rotate")
def account_rotate_key() -> BaseResponse:
    """A new account key, shown once; the old one stops working, and every
    browser signed in with it is signed out. This browser stays signed in:
    with the new key, when the old one had signed it in."""
    on_account_page()
    account = me()
    if request.form.get("sure") != "on":
        raise PageError(422, text("acct_rotate_unsure", g.lang))
    accounts = services().opus.accounts
    key = accounts.rotate_key(account.id)
    response = redirect(url_for("pages.account_key"), 303)
    session = this_session()
    if accounts.by_session(session) is None:  # the old key had opened it
        session = accounts.sign_in(account.id, "key", label(), key=key)
        keep_session(response, request, session)
    show_key_once(response, session, key)
    return response


@blp.get("/account/key")
def account_key() -> BaseResponse:
    """The account key, this once: a second view finds it gone."""
    key = None
    session = this_session()
    response = Response()
    account = signed_in(request)
    if account is not None:
        try:
            key = take_over(response, request, session)
        except ChallengesUnavailableError as e:
            raise challenges_down(e) from None
    adoptable = account is not None and bool(offered(account))
    response.set_data(render_template("web/account_key.html", key=key, adoptable=adoptable))
    return response


@blp.post("/account/passkeys/options")
def passkey_options() -> Response:
    """Creation options for one more passkey of the signed-in account."""
    account = me()
    challenge = issue_challenge(ADD_PASSKEY, account=str(account.id))
    rp_id, _ = relying_party()
    return options_response(
        generate_registration_options(
            rp_id=rp_id,
            rp_name=RP_NAME,
            user_name=account.name,
            user_id=account.id.bytes,
            user_display_name=account.name,
            challenge=challenge,
            timeout=ceremony_ms(),
            authenticator_selection=selection(),
            exclude_credentials=[
                PublicKeyCredentialDescriptor(id=base64url_to_bytes(c))
                for c, _, _ in account.passkeys
            ],
        )
    )


@blp.post("/account/passkeys/finish")
def passkey_finish() -> Response:
    account = me()
    passkey, record = new_passkey(json_body().get("credential"), ADD_PASSKEY)
    if record.get("account") != str(account.id):
        raise PageError(400, text("acct_challenge_gone", g.lang))
    services().opus.accounts.add_passkey(account.id, passkey)
    return jsonify({"next": url_for("pages.account")})


@blp.post("/account/passkeys/remove")
def passkey_remove() -> BaseResponse:
    """A passkey removed: every browser it signed in is signed out (this
    one too, when it was)."""
    on_account_page()
    account = me()
    credential = request.form.get("credential", "")
    if credential not in {c for c, _, _ in account.passkeys}:
        raise PageError(422, text("acct_no_such_passkey", g.lang))
    accounts = services().opus.accounts
    accounts.remove_passkey(account.id, credential)
    if accounts.by_session(this_session()) is None:
        response = redirect(url_for("pages.signin"), 303)
        end_session(response, request)
        return response
    return redirect(url_for("pages.account"), 303)


@blp.post("/account/sessions/signout")
def session_signout() -> BaseResponse:
    """One of the account's sessions closed: this browser's own (then its
    cookie is cleared too) or another's, whose next request is signed out."""
    on_account_page()
    account = me()
    chosen = request.form.get("session", "")
    if chosen not in {h for h, _, _, _ in account.sessions}:  # gone already, or never its
        raise PageError(422, text("acct_no_such_session", g.lang))
    services().opus.accounts.sign_out(account.id, chosen)
    if chosen == digest(this_session()):
        response = redirect(url_for("pages.lobby"), 303)
        end_session(response, request)
        return response
    return redirect(url_for("pages.account"), 303)
