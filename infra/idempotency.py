"""Responses kept under their Idempotency-Key, so a retry gets the first one.

The domain already refuses to apply a command id twice (its events carry the
id); this cache makes the retried response identical to the first.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Protocol

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


class RedisResponses:
    """Responses under ``<prefix>idempotency:<key>``, one prefix per deployment."""

    def __init__(self, client: Any, prefix: str) -> None:
        self.client = client
        self.prefix = prefix

    def _key(self, key: str) -> str:
        return f"{self.prefix}idempotency:{key}"

    def get(self, key: str) -> str | None:
        value = self.client.get(self._key(key))
        return value.decode("utf-8") if isinstance(value, bytes) else value

    def put(self, key: str, response: str) -> None:
        self.client.set(self._key(key), response, ex=TTL_SECONDS, nx=True)
