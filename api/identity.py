"""Seat and organiser tokens: random, shown once, stored only as SHA-256.

The API only reads the caller's token and hashes it; which seat a hash
holds, and whether it is the organiser's, is decided by the application
service (commands) or the read side's seats view (queries).
"""

from __future__ import annotations

import hashlib
import secrets

from flask import request

from api.errors import ApiError


def new_token() -> tuple[str, str]:
    """A fresh token and the hash that is stored in its place."""
    token = secrets.token_urlsafe(32)
    return token, token_hash(token)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def bearer() -> str:
    """The request's bearer token; 401 without one."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(401, "this needs a token: send 'Authorization: Bearer <token>'")
    return token.strip()


def caller() -> str:
    """The hash of the request's bearer token: who is asking (401 without one)."""
    return token_hash(bearer())
