"""A per-client limit on creating games and taking seats (429, Retry-After).

Creating and joining need no token, so nothing else stops a client from
filling the store: each client (its address) may make ``count`` of them in
any ``seconds``. With Redis configured the count is shared by every worker
(a fixed window per client, under the deployment's key prefix); otherwise
each process counts its own. The limit is best-effort: a Redis that cannot
be reached lets the request through (and says so in the log).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Any, Protocol

from flask import Flask, Response, jsonify, request

from api.errors import error_body
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


def register_rate_limit(app: Flask, limiter: Limiter) -> None:
    @app.before_request
    def limit() -> Response | None:
        if request.method != "POST" or request.endpoint not in LIMITED_ENDPOINTS:
            return None
        wait = limiter.wait(request.remote_addr or "unknown")
        if wait is None:
            return None
        seconds = max(1, math.ceil(wait))
        body = error_body(429, f"too many games created or seats taken: retry in {seconds} s")
        response = jsonify(body)
        response.status_code = 429
        response.headers["Retry-After"] = str(seconds)
        return response
