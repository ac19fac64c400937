"""The web client's cookies: seat, organiser and registration tokens, the CSRF token.

- A seat's token (``opus_seat_<game>``), a game's or tournament's creator's
  organiser token (``opus_org_<id>``) and a tournament player's registration
  token (``opus_reg_<tournament>``) are the very tokens the HTTP API hands out, kept in
  HttpOnly, SameSite=Strict cookies (Secure over https) set by the join or
  create that made them: never in a URL, never readable by a script. The
  service stores only their SHA-256 hashes (api/identity.py), and the pages
  pass those hashes to the application service exactly as the API does.
- CSRF (double submit): a random token in a SameSite=Strict cookie, and the
  same value in each page's forms (a hidden field) and in the
  ``X-CSRF-Token`` header of the script's posts; a POST whose two values do
  not match (``hmac.compare_digest``) is refused with 403 and does nothing.

- A signed-in browser holds a session (``opus_session``: HttpOnly,
  SameSite=Lax so that a link from elsewhere arrives signed in; every POST
  still needs the CSRF token), kept on the server as its account's
  ``SessionOpened`` (domain/accounts): revocable from the account page,
  expiring. A signed-in browser acts with its account's hashes and with
  nothing else: its holder hash (the token hash its seats, registrations
  and games hold), and the tokens the browser held when it signed in
  (adopted: seats taken signed out stay its own). A token cookie set
  later is not looked at while signed in, so a stolen seat token cannot
  act through anyone's session.
"""

from __future__ import annotations

import hmac
import re
import secrets
from uuid import UUID

from flask import Request, g
from werkzeug.wrappers import Response

from api.identity import new_token, token_hash
from api.runtime import services
from domain.accounts.commands import SESSION, SESSION_DAYS, AccountView

SEAT_COOKIE = "opus_seat_"
ORGANISER_COOKIE = "opus_org_"
REGISTRATION_COOKIE = "opus_reg_"
SESSION_COOKIE = "opus_session"
CSRF_COOKIE = "opus_csrf"
CSRF_FIELD = "csrf"
CSRF_HEADER = "X-CSRF-Token"
TOKEN = re.compile(r"[A-Za-z0-9_-]{43,200}")
MAX_AGE = 30 * 24 * 3600  # a seat's cookie outlives any game


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


def signed_in(request: Request) -> AccountView | None:
    """The account this browser's session is open for, if any (read once a request)."""
    if "account" not in g:
        value = request.cookies.get(SESSION_COOKIE, "")
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


def held_tokens(request: Request) -> list[str]:
    """The hashes of every seat, organiser and registration token this
    browser's cookies hold (adopted by the account it signs in to)."""
    prefixes = (SEAT_COOKIE, ORGANISER_COOKIE, REGISTRATION_COOKIE)
    return sorted(
        token_hash(value)
        for name, value in request.cookies.items()
        if name.startswith(prefixes) and TOKEN.fullmatch(value)
    )


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
        SESSION_COOKIE,
        value,
        max_age=SESSION_DAYS * 24 * 3600,
        path="/",
        secure=request.is_secure,
        httponly=True,
        samesite="Lax",
    )


def end_session(response: Response, request: Request) -> None:
    response.delete_cookie(
        SESSION_COOKIE, path="/", secure=request.is_secure, httponly=True, samesite="Lax"
    )


def keep_token(response: Response, request: Request, name: str, token: str) -> None:
    """A token in a cookie no script can read, sent back to this site alone."""
    response.set_cookie(
        name,
        token,
        max_age=MAX_AGE,
        path="/",
        secure=request.is_secure,
        httponly=True,
        samesite="Strict",
    )


def csrf_token(request: Request) -> tuple[str, bool]:
    """This browser's CSRF token, and whether it is new (to be set)."""
    token = _token(request, CSRF_COOKIE)
    if token:
        return token, False
    return secrets.token_urlsafe(32), True


def keep_csrf(response: Response, request: Request, token: str) -> None:
    response.set_cookie(
        CSRF_COOKIE,
        token,
        path="/",
        secure=request.is_secure,
        httponly=True,  # pages carry it in their forms and a <meta>: no script reads the cookie
        samesite="Strict",
    )


def csrf_ok(request: Request) -> bool:
    """A POST carries this browser's CSRF token in a field or header."""
    cookie = _token(request, CSRF_COOKIE)
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD) or ""
    if not cookie or not sent:
        return False
    return hmac.compare_digest(cookie.encode(), sent.encode())
