"""Who is asking: the one place a request's caller is read.

A command's ``Caller`` (domain/pipeline.py) is read here from its request
alone: the hash of the bearer token (``Authorization``), the command id
(``Idempotency-Key``, scoped to the caller and fingerprinted with the
request) and the version it expects (``If-Match``). Tokens are random,
shown once, and stored only as SHA-256; which seat a hash holds, and
whether it is the organiser's, is decided by the application service
(commands) or the read side's seats view (queries).
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets

from flask import request

from api.errors import ApiError
from api.runtime import services
from domain.accounts.commands import key_account
from domain.pipeline import Caller

MAX_KEY = 200  # characters of an Idempotency-Key
VERSION = re.compile(r"[0-9]{1,18}")  # a version as a client sends it (If-Match, Last-Event-ID)


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


def caller_hash() -> str:
    """The hash of the request's bearer token: who is asking (401 without
    one). An account key (``opus_<account>_<secret>``, domain/accounts)
    stands for its account: the hash is the account's holder hash."""
    token = bearer()
    held = account_holder(token)
    return held if held is not None else token_hash(token)


def account_holder(token: str) -> str | None:
    """The holder hash of the account whose current key ``token`` is; None
    if it is no account key; 401 for a key no account holds (rotated)."""
    if key_account(token) is None:
        return None
    account = services().opus.accounts.by_key(token)
    if account is None:
        raise ApiError(401, "this account key is not one an account holds now (rotated?)")
    return account.holder_hash


def command_caller() -> Caller:
    """The caller of a command that needs a token (401 without one)."""
    return Caller(caller_hash(), command_id(), expected_version())


def new_holder(*, key_needs_it: bool = False) -> tuple[str, Caller]:
    """The caller of a command that gives a token a seat, a registration or
    a new game: the token (``own_or_new_token``; "" to show when the caller
    sent their own) and the caller holding it."""
    token, digest = own_or_new_token(key_needs_it=key_needs_it)
    return token, Caller(digest, command_id(), expected_version())


def key_scope() -> str:
    """Whose Idempotency-Keys a request's key is among: its bearer token,
    however the header spells it ("Bearer X", "bearer  X"), written in the
    one spelling "Bearer X"; "" without an ``Authorization`` header (401 for
    one that holds no bearer token). A function of the token alone, so a
    retry spelled otherwise is the same command; the spelling is the one
    command ids were scoped by before, so a command recorded then still
    answers its retry. It is only ever hashed (``command_id``, the response
    cache's key), never stored or shown."""
    if not request.headers.get("Authorization"):
        return ""
    return f"Bearer {bearer()}"


def command_id() -> str:
    """The command id recorded on the events: the Idempotency-Key within the
    caller's scope (``key_scope``: its token), hashed, so that one caller's
    key never answers for another's command and the key itself is never
    published."""
    key = request.headers.get("Idempotency-Key", "")
    if len(key) > MAX_KEY:
        raise ApiError(
            422,
            "invalid input: Idempotency-Key",
            {"headers": {"Idempotency-Key": [f"at most {MAX_KEY} characters"]}},
        )
    if not key:
        return ""
    scoped = hashlib.sha256(f"{key_scope()}\n{key}".encode()).hexdigest()[:32]
    # "<key>:<request>": the service tells a retry from the key reused for
    # another request. The request as parsed: the same command resent with
    # other whitespace, key order or case in its game id is the same request.
    body = request.get_json(silent=True) or {}
    target = {k: str(v).lower() for k, v in (request.view_args or {}).items()}
    request_print = json.dumps([request.endpoint, target, body], sort_keys=True)
    return f"{scoped}:{hashlib.sha256(request_print.encode()).hexdigest()[:16]}"


def expected_version() -> int | None:
    """``If-Match``: the version the command expects of its game or tournament."""
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    text = raw.strip().removeprefix("W/").strip('"')
    if not VERSION.fullmatch(text):
        raise ApiError(
            422,
            "invalid input: If-Match",
            {"headers": {"If-Match": ["the game's or tournament's version, a whole number"]}},
        )
    return int(text)


MIN_OWN_TOKEN = 43  # 256 bits in base64url, as the service's own tokens are
OWN_TOKEN = re.compile(rf"[A-Za-z0-9_-]{{{MIN_OWN_TOKEN},200}}")


def own_or_new_token(*, key_needs_it: bool = False) -> tuple[str, str]:
    """The token the command's game or seat will hold, and its hash: the
    caller's own when it sends one (``Authorization: Bearer``), else a new
    one. A token of one's own scopes the Idempotency-Key and survives a lost
    response: a retry finds the game or seat it made, and the caller already
    holds its token. On create (``key_needs_it``) a key requires one: a key
    without it could be sent first by anyone, who would hold the game (the key
    decides the game's id); a tournament's registration too (its retry finds
    the registration by the token)."""
    if not request.headers.get("Authorization"):
        if key_needs_it and request.headers.get("Idempotency-Key"):
            raise ApiError(  # 401: a credential of one's own is what is missing
                401,
                "an Idempotency-Key here needs your own token: send "
                f"'Authorization: Bearer <a random token of at least {MIN_OWN_TOKEN} "
                "base64url characters>', which the command keeps as yours",
                {"headers": {"Authorization": ["required with Idempotency-Key"]}},
            )
        return new_token()
    own = bearer()
    held = account_holder(own)
    if held is not None:
        return "", held  # the account's: nothing new to show
    if not OWN_TOKEN.fullmatch(own):
        # Its hash is public (the export carries it): it must be as hard to
        # guess as the service's own, 256 random bits.
        raise ApiError(
            422,
            f"a token of your own must be at least {MIN_OWN_TOKEN} base64url characters "
            "(256 random bits, as secrets.token_urlsafe(32) makes)",
            {"headers": {"Authorization": [f"at least {MIN_OWN_TOKEN} base64url characters"]}},
        )
    return own, token_hash(own)
