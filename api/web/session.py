"""The web client's cookies: seat and organiser tokens, the CSRF token.

- A seat's token (``opus_seat_<game>``) and a game creator's organiser token
  (``opus_org_<game>``) are the very tokens the HTTP API hands out, kept in
  HttpOnly, SameSite=Strict cookies (Secure over https) set by the join or
  create that made them: never in a URL, never readable by a script. The
  service stores only their SHA-256 hashes (api/identity.py), and the pages
  pass those hashes to the application service exactly as the API does.
- CSRF (double submit): a random token in a SameSite=Strict cookie, and the
  same value in each page's forms (a hidden field) and in the
  ``X-CSRF-Token`` header of the script's posts; a POST whose two values do
  not match (``hmac.compare_digest``) is refused with 403 and does nothing.

No session is kept on the server.
"""

from __future__ import annotations

import hmac
import re
import secrets
from uuid import UUID

from flask import Request
from werkzeug.wrappers import Response

from api.identity import token_hash

SEAT_COOKIE = "opus_seat_"
ORGANISER_COOKIE = "opus_org_"
CSRF_COOKIE = "opus_csrf"
CSRF_FIELD = "csrf"
CSRF_HEADER = "X-CSRF-Token"
TOKEN = re.compile(r"[A-Za-z0-9_-]{43,200}")
MAX_AGE = 30 * 24 * 3600  # a seat's cookie outlives any game


def seat_cookie(game_id: UUID) -> str:
    return f"{SEAT_COOKIE}{game_id}"


def organiser_cookie(game_id: UUID) -> str:
    return f"{ORGANISER_COOKIE}{game_id}"


def _token(request: Request, name: str) -> str | None:
    value = request.cookies.get(name)
    return value if value and TOKEN.fullmatch(value) else None


def seat_hash(request: Request, game_id: UUID) -> str | None:
    """The hash of the seat token this browser holds for the game, if any."""
    token = _token(request, seat_cookie(game_id))
    return token_hash(token) if token else None


def organiser_hash(request: Request, game_id: UUID) -> str | None:
    token = _token(request, organiser_cookie(game_id))
    return token_hash(token) if token else None


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
