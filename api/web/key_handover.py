"""A new account key handed over once, to the browser that made it, and
readable nowhere else.

The key is shown by the page after the sign-up or the rotation (``GET
/account/key``), so it must wait somewhere for that one view. It waits
sealed: a random 256-bit code goes to this browser alone, in an HttpOnly,
SameSite=Strict cookie (``opus_keycode``, ``__Host-`` prefixed over
https) that lives as long as the record; the challenges store
(infra/challenges.py, Redis in production) keeps only the key sealed
under that code (AES-256-GCM, the session's hash as associated data),
under the session's hash. Whoever reads the store, or its dump, cannot
read the key; the page view takes the record (once: a second view, or a
browser without the code, finds nothing) and clears the cookie. Neither
half alone shows the key, and neither outlives the store's five minutes.
"""

from __future__ import annotations

import base64
import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from flask import Request
from werkzeug.wrappers import Response

from api.runtime import services
from api.web.session import cookie_name, over_https
from domain.accounts.commands import digest

CODE_COOKIE = "opus_keycode"
NONCE_BYTES = 12


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _record(session: str) -> str:
    return f"key:{digest(session)}"


def hand_over(response: Response, request: Request, session: str, key: str) -> None:
    """Seal ``key`` for the next ``/account/key`` view of the browser whose
    session is ``session``: the code in its cookie, the sealed key in the
    store (ChallengesUnavailableError if the store cannot keep it)."""
    store = services().challenges
    code = secrets.token_bytes(32)
    nonce = secrets.token_bytes(NONCE_BYTES)
    sealed = AESGCM(code).encrypt(nonce, key.encode("utf-8"), digest(session).encode())
    store.put(_record(session), _b64(nonce + sealed))
    response.set_cookie(
        cookie_name(request, CODE_COOKIE),
        _b64(code),
        max_age=max(1, int(store.seconds)),
        path="/",
        secure=over_https(request),
        httponly=True,
        samesite="Strict",
    )


def take_over(response: Response, request: Request, session: str) -> str | None:
    """The key sealed for this browser's session, opened with its cookie's
    code; None when there is none (shown already, expired, or this browser
    holds no code for it). The record and the cookie are gone either way."""
    name = cookie_name(request, CODE_COOKIE)
    raw_code = request.cookies.get(name, "")
    sealed = services().challenges.take(_record(session))
    if raw_code:
        response.delete_cookie(name, path="/", secure=over_https(request), httponly=True)
    if sealed is None or not raw_code:
        return None
    try:
        code, blob = _unb64(raw_code), _unb64(sealed)
        opened = AESGCM(code).decrypt(
            blob[:NONCE_BYTES], blob[NONCE_BYTES:], digest(session).encode()
        )
    except (ValueError, InvalidTag):  # another browser's code, or none of ours
        return None
    return opened.decode("utf-8")
