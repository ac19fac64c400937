"""Responses kept under their Idempotency-Key, so a retry gets the first one.

The domain already refuses to apply a command id twice (its events carry the
id); this cache makes the retried response identical to the first. So the
cache is best-effort: a store that cannot be reached is a miss on read and a
write skipped (logged once per kind an interval, infra/logthrottle.py),
never a failed command.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Any, Protocol

from infra.logthrottle import LogThrottle

log = logging.getLogger(__name__)
_failures = LogThrottle(log)
TTL_SECONDS = 24 * 3600


class ResponseCache(Protocol):
    def get(self, key: str) -> str | None: ...

    def put(self, key: str, response: str) -> None: ...


class InProcessResponses:
    def __init__(self, maxsize: int = 100_000) -> None:
        self._items: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()
        self.maxsize = maxsize

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._items.get(key)

    def put(self, key: str, response: str) -> None:
        with self._lock:
            self._items.setdefault(key, response)
            while len(self._items) > self.maxsize:
                self._items.popitem(last=False)


def redis_errors() -> tuple[type[BaseException], ...]:
    """What a Redis client raises when the server cannot be reached or
    answers with an error (redis-py's base error), and the socket's."""
    import redis

    return (redis.RedisError, OSError)


class RedisResponses:
    """Responses under ``<prefix>idempotency:<key>``, one prefix per deployment;
    with Redis down, a miss on read and nothing kept on write."""

    def __init__(self, client: Any, prefix: str) -> None:
        self.client = client
        self.prefix = prefix
        self.errors = redis_errors()

    def _key(self, key: str) -> str:
        return f"{self.prefix}idempotency:{key}"

    def get(self, key: str) -> str | None:
        try:
            value = self.client.get(self._key(key))
        except self.errors as e:
            _failures.failed("response cache unreachable, a miss", e)
            return None
        return value.decode("utf-8") if isinstance(value, bytes) else value

    def put(self, key: str, response: str) -> None:
        try:
            self.client.set(self._key(key), response, ex=TTL_SECONDS, nx=True)
        except self.errors as e:
            _failures.failed("response cache unreachable, not kept", e)
