"""Seat and organiser tokens: random, shown once, stored only as SHA-256."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from uuid import UUID

from flask import request

from api.errors import ApiError
from domain.application import Opus
from domain.state import GameState


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


def seat_of(state: GameState) -> int:
    """The seat the request's token belongs to; 403 for a token of no seat here."""
    digest = token_hash(bearer())
    for seat, stored in enumerate(state.token_hashes):
        if stored and hmac.compare_digest(stored, digest):
            return seat
    raise ApiError(403, "this token holds no seat in this game")


_SEATS: dict[tuple[UUID, str], int] = {}
_SEATS_MAX = 100_000


def seat_in(app: Opus, game_id: UUID) -> int:
    """``seat_of`` for a command: a seat's token never changes, so a token
    already matched is answered without reading the game again."""
    key = (game_id, token_hash(bearer()))
    seat = _SEATS.get(key)
    if seat is None:
        with app.reading(game_id) as (state, _):
            seat = seat_of(state)
        if len(_SEATS) >= _SEATS_MAX:
            _SEATS.clear()
        _SEATS[key] = seat
    return seat


def require_organiser(state: GameState) -> None:
    digest = token_hash(bearer())
    if not (state.organiser_hash and hmac.compare_digest(state.organiser_hash, digest)):
        raise ApiError(403, "only the game's organiser may do this")
