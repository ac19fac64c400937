"""A per-client limit on creating games and taking seats (429, Retry-After),
and the counts of the web client's sign-in limit.

Creating and joining need no token, so nothing else stops a client from
filling the store: each client (its address) may make ``count`` of them in
any ``seconds``. With Redis configured the count is shared by every worker
(a fixed window per client, under the deployment's key prefix); otherwise
each process counts its own. The limit is best-effort: a Redis that cannot
be reached lets the request through (and says so in the log).

A client is its address as the trusted proxies tell it (api/client_address.py:
never an X-Forwarded-For the client wrote itself), an IPv6 address counted
by its /64 (one host's whole prefix: a client may hold every address in it).
A sign-in with an account key is counted per account besides
(``sign_in_wait``): guesses at one account's key from many addresses share
that account's count.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Any, Protocol

from flask import Flask, Request, Response, jsonify, request

from api.client_address import parse_address
from api.errors import error_body
from domain.accounts.commands import key_account
from infra.logthrottle import LogThrottle
from projections.redis_client import for_key

log = logging.getLogger(__name__)
_failures = LogThrottle(log)
LIMITED_ENDPOINTS = frozenset(
    {
        "commands.Games",
        "commands.Players",
        "tournament_commands.Tournaments",
        "tournament_commands.Players",
        "pages.create",  # the web client's create and join (api/web/pages.py)
        "pages.join",
        "pages.desk_create",  # a tournament created, a player registering (api/web/desk.py)
        "pages.tournament_register",
        "pages.desk_register",  # the organiser's registrations, like the API's
        "pages.play_bots",  # a game against bots, a bot added (api/web/bot_pages.py)
        "pages.add_bot",
    }
)
MAX_CLIENTS = 100_000  # clients remembered by one process
IPV6_PREFIX = 64  # an IPv6 client is counted by its prefix of this length


@dataclass(frozen=True)
class RateLimit:
    count: int
    seconds: float

    @classmethod
    def parse(cls, text: str) -> RateLimit | None:
        """``"N/S"``: N requests in any S seconds; ``"0"`` or ``"off"``: no limit."""
        if text.strip().lower() in ("0", "off", "none", ""):
            return None
        count, _, seconds = text.partition("/")
        limit = cls(int(count), float(seconds or 60))
        if limit.count < 1 or limit.seconds <= 0:
            raise ValueError(f"a rate limit is N/S with N and S above 0, not {text!r}")
        return limit


class Limiter(Protocol):
    def wait(self, client: str) -> float | None:
        """Count a request; None if it may go on, else the seconds to wait."""
        ...


class InProcessLimiter:
    """A sliding window per client, in this process."""

    def __init__(self, limit: RateLimit) -> None:
        self.limit = limit
        self._seen: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def wait(self, client: str) -> float | None:
        now = time.monotonic()
        with self._lock:
            times = self._seen.pop(client, None) or deque()
            self._seen[client] = times
            if len(self._seen) > MAX_CLIENTS:
                self._seen.popitem(last=False)
            while times and times[0] <= now - self.limit.seconds:
                times.popleft()
            if len(times) >= self.limit.count:
                return times[0] + self.limit.seconds - now
            times.append(now)
            return None


class RedisLimiter:
    """A fixed window per client, shared by every process on the Redis."""

    def __init__(self, client: Any, prefix: str, limit: RateLimit) -> None:
        self.client = client
        self.prefix = prefix
        self.limit = limit

    def wait(self, client: str) -> float | None:
        now = time.time()
        window = int(now // self.limit.seconds)
        key = f"{self.prefix}rate:{client}:{window}"
        try:
            # a cluster's transaction runs on the master of the key's slot
            with for_key(self.client, key).pipeline(transaction=True) as pipe:
                pipe.incr(key)
                pipe.expire(key, math.ceil(self.limit.seconds) + 1)
                count = int(pipe.execute()[0])
        except Exception as e:  # best-effort: never refuse because Redis is away
            _failures.failed("rate limit not counted (Redis)", e)
            return None
        if count > self.limit.count:
            return (window + 1) * self.limit.seconds - now
        return None


def client_of(request: Request) -> str:
    """What a request is counted as: its client's address (REMOTE_ADDR, as
    api/client_address.py set it), an IPv6 address by its /64."""
    address = parse_address(request.remote_addr or "")
    if address is None:
        return request.remote_addr or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{address}/{IPV6_PREFIX}", strict=False))
    return str(address)


def sign_in_wait(limiter: Limiter, request: Request) -> float | None:
    """Count a sign-in post per client and, when it names an account by its
    account key, per account (whatever the address: ``account:<id>``);
    None if it may go on, else the seconds to wait. A passkey's sign-in is
    not counted per account: nothing about a passkey can be guessed, so a
    flood of forged assertions naming an account must not lock its owner out."""
    waits = [limiter.wait(client_of(request))]
    account = key_account(request.form.get("key", "").strip()) if request.form else None
    if account is not None:
        waits.append(limiter.wait(f"account:{account.hex}"))
    found = [wait for wait in waits if wait is not None]
    return max(found) if found else None


def register_rate_limit(app: Flask, limiter: Limiter) -> None:
    @app.before_request
    def limit() -> Response | None:
        if request.method != "POST" or request.endpoint not in LIMITED_ENDPOINTS:
            return None
        wait = limiter.wait(client_of(request))
        if wait is None:
            return None
        seconds = max(1, math.ceil(wait))
        body = error_body(429, f"too many games created or seats taken: retry in {seconds} s")
        response = jsonify(body)
        response.status_code = 429
        response.headers["Retry-After"] = str(seconds)
        return response
