"""Clean-up of the keys a test or benchmark wrote under its own Redis prefix."""

from __future__ import annotations

import redis

from projections.redis_views import literal_pattern


def drop_prefix(url: str, prefix: str) -> None:
    """Delete every key under ``prefix`` (a test's random one: never ``opus:``)."""
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=literal_pattern(prefix) + "*", count=1000))
        for i in range(0, len(keys), 1000):
            client.unlink(*keys[i : i + 1000])
    finally:
        client.close()
