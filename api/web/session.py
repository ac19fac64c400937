"""The web client's cookies: seat, organiser and registration tokens, the CSRF token.

- A seat's token (``opus_seat_<game>``), a game's or tournament's creator's
  organiser token (``opus_org_<id>``) and a tournament player's registration
  token (``opus_reg_<tournament>``) are the very tokens the HTTP API hands out, kept in
  HttpOnly, SameSite=Strict cookies (Secure over https) set by the join or
  create that made them: never in a URL, never readable by a script. The
  service stores only their SHA-256 hashes (api/identity.py), and the pages
  pass those hashes to the application service exactly as the API does.
- CSRF (signed double submit, bound to the browser's pre-session): the
  ``opus_csrf`` cookie holds a random pre-session id (HttpOnly,
  SameSite=Strict), and the token in each page's forms (a hidden field)
  and in the ``X-CSRF-Token`` header of the script's posts is the HMAC of
  that id under the service's page secret (infra/challenges.py's
  ``secret``). A POST whose token is not the HMAC of its cookie
  (``hmac.compare_digest``) is refused with 403 and does nothing: a page
  that sets its own ``opus_csrf`` cookie cannot make the token for it.
- Origin: a POST whose ``Origin`` (else ``Referer``, else
  ``Sec-Fetch-Site``) says it comes from another origin is refused the
  same way (``same_origin``). Another port or a sibling subdomain is
  another origin, whatever SameSite thinks of it: it can set cookies here
  over plain http, so the cookies alone cannot tell it from this site.
- Over https (the request's, or ``OPUS_ORIGIN``'s behind a proxy that ends
  TLS: ``over_https``) the session and CSRF cookies are ``__Host-`` prefixed
  (``cookie_name``: Secure, Path=/, no Domain), so no sibling can set or
  shadow them; over plain http (a machine's own ``opus serve``) a Secure
  cookie would never come back, so they keep their plain names, and the
  Origin check and the token's binding are the defence.

- A signed-in browser holds a session (``opus_session``: HttpOnly,
  SameSite=Lax so that a link from elsewhere arrives signed in; every POST
  still needs the CSRF token), kept on the server as its account's
  ``SessionOpened`` (domain/accounts): revocable from the account page,
  ended with the credential that opened it (the key rotated, the passkey
  removed), expiring. A signed-in browser acts with its account's hashes and with
  nothing else: its holder hash (the token hash its seats, registrations
  and games hold), and the tokens it adopted (seats taken signed out,
  adopted once the person confirmed them on the page that lists them:
  ``held``). A token cookie is not looked at while signed in, so a stolen
  seat token cannot act through anyone's session.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import re
import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit
from uuid import UUID

from flask import Request, g
from werkzeug.wrappers import Response

from api.identity import new_token, token_hash
from api.runtime import services
from domain.accounts.commands import SESSION, SESSION_DAYS, AccountView
from infra.challenges import ChallengesUnavailableError

log = logging.getLogger(__name__)

SEAT_COOKIE = "opus_seat_"
ORGANISER_COOKIE = "opus_org_"
REGISTRATION_COOKIE = "opus_reg_"
SESSION_COOKIE = "opus_session"
CSRF_COOKIE = "opus_csrf"
CSRF_FIELD = "csrf"
CSRF_HEADER = "X-CSRF-Token"
TOKEN = re.compile(r"[A-Za-z0-9_-]{43,200}")
MAX_AGE = 30 * 24 * 3600  # a seat's cookie outlives any game
HOST_PREFIX = "__Host-"  # https only: Secure, Path=/, no Domain (RFC 6265bis)
CSRF_SECRET = "csrf"  # the name of the page secret the CSRF tokens are an HMAC under
_fallback_secret = secrets.token_hex(32)  # while the shared one cannot be read


def over_https(request: Request) -> bool:
    """Whether the browser reached the service over https: the request
    itself, or, behind a proxy that ends TLS, ``OPUS_ORIGIN`` saying so."""
    return request.is_secure or services().origin.startswith("https://")


def cookie_name(request: Request, name: str) -> str:
    """The session's or the CSRF cookie's name: ``__Host-`` prefixed over
    https, its plain name over http (where Secure cannot be set)."""
    return f"{HOST_PREFIX}{name}" if over_https(request) else name


def seat_cookie(game_id: UUID) -> str:
    return f"{SEAT_COOKIE}{game_id}"


def organiser_cookie(game_id: UUID) -> str:
    return f"{ORGANISER_COOKIE}{game_id}"


def registration_cookie(tournament_id: UUID) -> str:
    """A tournament player's registration token (T2.1), which holds their
    seat in each of the tournament's games."""
    return f"{REGISTRATION_COOKIE}{tournament_id}"


def _token(request: Request, name: str) -> str | None:
    value = request.cookies.get(name)
    return value if value and TOKEN.fullmatch(value) else None


def session_value(request: Request) -> str:
    """This browser's session cookie ("" if none)."""
    return request.cookies.get(cookie_name(request, SESSION_COOKIE), "")


def signed_in(request: Request) -> AccountView | None:
    """The account this browser's session is open for, if any (read once a request)."""
    if "account" not in g:
        value = session_value(request)
        g.account = services().opus.accounts.by_session(value) if SESSION.fullmatch(value) else None
    account: AccountView | None = g.account
    return account


def holder_hash(request: Request) -> str | None:
    """The token hash a signed-in browser acts with: its account's holder hash."""
    account = signed_in(request)
    return account.holder_hash if account is not None else None


def seat_hash(request: Request, game_id: UUID) -> str | None:
    """The hash this browser acts in the game with: signed in, the one of its
    account's hashes that holds a seat there (None if none does); signed
    out, the seat token it holds for the game."""
    account = signed_in(request)
    if account is not None:
        views = services().views
        return next((h for h in account.hashes if views.seat_of(game_id, h) is not None), None)
    token = _token(request, seat_cookie(game_id))
    return token_hash(token) if token else None


def organiser_hash(request: Request, aggregate_id: UUID) -> str | None:
    """The hash of the organiser this browser is of a game or tournament:
    signed in, the one of its account's hashes that organises it; signed
    out, its cookie's token if that organises it; None if this browser is
    not its organiser (a cookie's mere presence proves nothing)."""
    account = signed_in(request)
    if account is not None:
        candidates = account.hashes
    else:
        token = _token(request, organiser_cookie(aggregate_id))
        candidates = [token_hash(token)] if token else []
    opus = services().opus
    return next((h for h in candidates if opus.organises(aggregate_id, h)), None)


def registration_hash(request: Request, tournament_id: UUID) -> str | None:
    """The hash of this browser's registration in the tournament: signed in,
    the one of its account's hashes that is registered; signed out, its
    cookie's token."""
    account = signed_in(request)
    if account is not None:
        tournaments = services().opus.tournaments
        return next((h for h in account.hashes if tournaments.player_of(tournament_id, h)), None)
    token = _token(request, registration_cookie(tournament_id))
    return token_hash(token) if token else None


@dataclass(frozen=True)
class Held:
    """A seat, organiser or registration token this browser's cookies hold:
    what it is (``seat``, ``organiser``, ``registration``), of which game or
    tournament, and its hash (never the token)."""

    kind: str
    of: UUID
    hash: str


def held(request: Request) -> list[Held]:
    """Every seat, organiser and registration token this browser's cookies
    hold: what the adoption page lists (an account adopts only those the
    person confirms there)."""
    kinds = (
        (SEAT_COOKIE, "seat"),
        (ORGANISER_COOKIE, "organiser"),
        (REGISTRATION_COOKIE, "registration"),
    )
    found = []
    for name, value in request.cookies.items():
        for prefix, kind in kinds:
            if not name.startswith(prefix) or not TOKEN.fullmatch(value):
                continue
            try:
                of = UUID(name.removeprefix(prefix))
            except ValueError:
                continue
            found.append(Held(kind, of, token_hash(value)))
    return sorted(found, key=lambda h: (h.kind, str(h.of), h.hash))


def new_holding(request: Request) -> tuple[str | None, str]:
    """What a create, a join or a registration from this browser holds: a
    signed-in browser's account holder hash (no token to keep: None), else
    a new token (to keep in a cookie) and its hash."""
    holder = holder_hash(request)
    if holder is not None:
        return None, holder
    return new_token()


def keep_session(response: Response, request: Request, value: str) -> None:
    response.set_cookie(
        cookie_name(request, SESSION_COOKIE),
        value,
        max_age=SESSION_DAYS * 24 * 3600,
        path="/",
        secure=over_https(request),
        httponly=True,
        samesite="Lax",
    )


def end_session(response: Response, request: Request) -> None:
    response.delete_cookie(
        cookie_name(request, SESSION_COOKIE),
        path="/",
        secure=over_https(request),
        httponly=True,
        samesite="Lax",
    )


def keep_token(response: Response, request: Request, name: str, token: str) -> None:
    """A token in a cookie no script can read, sent back to this site alone."""
    response.set_cookie(
        name,
        token,
        max_age=MAX_AGE,
        path="/",
        secure=over_https(request),
        httponly=True,
        samesite="Strict",
    )


def presession(request: Request) -> tuple[str, bool]:
    """This browser's pre-session id (its CSRF cookie), and whether it is
    new (to be set)."""
    value = _token(request, cookie_name(request, CSRF_COOKIE))
    if value:
        return value, False
    return secrets.token_urlsafe(32), True


def page_secret() -> str:
    """The key of the CSRF tokens' HMAC, shared by every process of the
    service; while it cannot be read, this process's own (a token made
    then is refused by the others: the page, reloaded, has a good one)."""
    try:
        return services().challenges.secret(CSRF_SECRET)
    except ChallengesUnavailableError as e:
        log.warning("%s", e)
        return _fallback_secret


def csrf_for(pre: str) -> str:
    """The CSRF token of a pre-session id: its HMAC under the page secret
    (base64url, 43 characters)."""
    mac = hmac.new(page_secret().encode(), f"opus-csrf\n{pre}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode("ascii")


def keep_csrf(response: Response, request: Request, pre: str) -> None:
    """The pre-session id in its cookie (the page carries its token)."""
    response.set_cookie(
        cookie_name(request, CSRF_COOKIE),
        pre,
        path="/",
        secure=over_https(request),
        httponly=True,  # pages carry the token in their forms and a <meta>: no script reads it
        samesite="Strict",
    )


def csrf_ok(request: Request) -> bool:
    """A POST carries the token of this browser's pre-session in a field or header."""
    pre = _token(request, cookie_name(request, CSRF_COOKIE))
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD) or ""
    if not pre or not sent:
        return False
    return hmac.compare_digest(csrf_for(pre).encode(), sent.encode())


# ---- the origin a POST comes from ------------------------------------------------------------

DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> str | None:
    """A URL's origin as ``scheme://host[:port]`` (lower case, a default
    port left out), or None for what is no http(s) URL (``null`` among them)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in DEFAULT_PORTS or not host:
        return None
    if ":" in host:  # an IPv6 address
        host = f"[{host}]"
    return f"{scheme}://{host}" + ("" if port in (None, DEFAULT_PORTS[scheme]) else f":{port}")


def own_origin(request: Request) -> str:
    """This service's origin: ``OPUS_ORIGIN`` (behind a proxy), else the request's."""
    return services().origin or request.host_url.rstrip("/")


def same_origin(request: Request) -> bool:
    """Whether a POST comes from this service's own pages (OWASP's "verifying
    origin with standard headers"): its ``Origin`` is this origin; without
    one, its ``Referer``'s; without either, ``Sec-Fetch-Site`` is
    ``same-origin``. A request with none of them is no browser's cross-site
    post (every browser that runs a page's script or form sends Origin on a
    POST): the CSRF token alone decides it."""
    own = origin_of(own_origin(request))
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None and site != "same-origin":
        return False
    origin = request.headers.get("Origin")
    if origin is not None:
        return origin_of(origin) == own
    referer = request.headers.get("Referer")
    if referer:
        return origin_of(referer) == own
    return True
