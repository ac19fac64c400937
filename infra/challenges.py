"""Single-use, expiring records: WebAuthn challenges, an account key shown once.

A passkey ceremony (sign-up, sign-in, adding a passkey) starts with a
random challenge the browser's authenticator signs; the challenge is
recorded here with its purpose and what it is bound to (the name and new
account id of a sign-up, the account adding a passkey, the browser that
asked), and is taken back, once, by the ceremony's finish: a second finish
with the same challenge, or one after it expired, finds nothing. The pages
keep a new account key here too, for the one page view that shows it:
sealed under a secret only the signing-up browser's cookie holds
(api/web/session.py), never readable here.

Each store also keeps the service's page secrets (``secret``): random,
made by the first process to ask and shared by every process of the
store, never expiring (the key the CSRF tokens are an HMAC under).

Two stores, chosen as the response cache is (infra/bootstrap.py): Redis
when the service has it (``SET … PX`` under ``<prefix>once:``, taken with
``GETDEL``: every worker sees the same records, and one take wins), else
this process's own (the embedded ``opus serve``). Unlike the response
cache, these are not best-effort: a Redis that cannot be reached raises
``ChallengesUnavailableError`` (a ceremony cannot go on without its
challenge), which the pages answer with 503.
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from infra.idempotency import redis_errors

DEFAULT_SECONDS = 300.0  # a ceremony's challenge, a key to show: five minutes
MAX_RECORDS = 100_000  # records one process keeps at most (the oldest go first)
CHALLENGE_BYTES = 32


class ChallengesUnavailableError(Exception):
    """The store of challenges cannot be reached now."""


class Challenges(Protocol):
    seconds: float  # how long a record lives

    def put(self, name: str, value: str) -> None:
        """Keep ``value`` under ``name`` for ``seconds`` (replacing one there)."""
        ...

    def take(self, name: str) -> str | None:
        """The value under ``name``, removed; None if there is none (taken,
        expired or never put)."""
        ...

    def secret(self, name: str) -> str:
        """A random secret under ``name`` (64 hex digits), the same for every
        process of this store: made by the first to ask, kept for good."""
        ...


class InProcessChallenges:
    """Records in this process, each until its expiry or its take."""

    def __init__(
        self,
        seconds: float = DEFAULT_SECONDS,
        *,
        maxsize: int = MAX_RECORDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.seconds = seconds
        self.maxsize = maxsize
        self.clock = clock
        self._items: OrderedDict[str, tuple[float, str]] = OrderedDict()  # oldest first
        self._secrets: dict[str, str] = {}
        self._lock = threading.Lock()

    def put(self, name: str, value: str) -> None:
        now = self.clock()
        with self._lock:
            self._items.pop(name, None)
            self._items[name] = (now + self.seconds, value)
            # every record lives as long: the oldest expire first
            while self._items:
                oldest, (expires, _) = next(iter(self._items.items()))
                if expires > now and len(self._items) <= self.maxsize:
                    break
                del self._items[oldest]

    def take(self, name: str) -> str | None:
        with self._lock:
            found = self._items.pop(name, None)
        if found is None:
            return None
        expires, value = found
        return value if expires > self.clock() else None

    def secret(self, name: str) -> str:
        with self._lock:
            return self._secrets.setdefault(name, secrets.token_hex(32))


class RedisChallenges:
    """Records under ``<prefix>once:<name>``, expiring in Redis, taken with GETDEL."""

    def __init__(self, client: Any, prefix: str, seconds: float = DEFAULT_SECONDS) -> None:
        self.client = client
        self.prefix = prefix
        self.seconds = seconds
        self.errors = redis_errors()
        self._secrets: dict[str, str] = {}  # read once, then kept in this process

    def _key(self, name: str) -> str:
        return f"{self.prefix}once:{name}"

    def put(self, name: str, value: str) -> None:
        milliseconds = max(1, round(self.seconds * 1000))
        try:
            self.client.set(self._key(name), value, px=milliseconds)
        except self.errors as e:
            raise ChallengesUnavailableError(f"challenges cannot be kept now: {e}") from e

    def take(self, name: str) -> str | None:
        try:
            value = self.client.getdel(self._key(name))
        except self.errors as e:
            raise ChallengesUnavailableError(f"challenges cannot be read now: {e}") from e
        if value is None:
            return None
        return value.decode("utf-8") if isinstance(value, bytes) else str(value)

    def secret(self, name: str) -> str:
        """``SET NX`` (the first process's wins), then ``GET``; kept in this
        process once read."""
        found = self._secrets.get(name)
        if found is not None:
            return found
        key = f"{self.prefix}secret:{name}"
        try:
            self.client.set(key, secrets.token_hex(32), nx=True)
            value = self.client.get(key)
        except self.errors as e:
            raise ChallengesUnavailableError(f"the page secret cannot be read now: {e}") from e
        if value is None:  # deleted between the two: ask again next time
            raise ChallengesUnavailableError("the page secret cannot be read now")
        text = value.decode("utf-8") if isinstance(value, bytes) else str(value)
        self._secrets[name] = text
        return text


# ---- WebAuthn challenges, bound to their purpose ----------------------------------------


def encode(challenge: bytes) -> str:
    """base64url without padding, as WebAuthn's client data carries a challenge."""
    return base64.urlsafe_b64encode(challenge).rstrip(b"=").decode("ascii")


def issue(store: Challenges, purpose: str, bound: Mapping[str, str]) -> bytes:
    """A new challenge for ``purpose`` ("sign-up", "sign-in", "add-passkey"),
    recorded with what it is bound to; its bytes, for the ceremony's options."""
    challenge = secrets.token_bytes(CHALLENGE_BYTES)
    store.put(f"webauthn:{encode(challenge)}", json.dumps({**bound, "purpose": purpose}))
    return challenge


def redeem(store: Challenges, challenge: bytes, purpose: str) -> dict[str, str] | None:
    """What the challenge was bound to, if it was issued for ``purpose`` and
    is neither taken nor expired; it is taken either way (one try)."""
    raw = store.take(f"webauthn:{encode(challenge)}")
    if raw is None:
        return None
    record = json.loads(raw)
    if not isinstance(record, dict) or record.get("purpose") != purpose:
        return None
    return {str(k): str(v) for k, v in record.items()}
