"""Fan-out of a game's public events to its live streams.

In one process a set of queues per game does it; with Redis configured, a
pub/sub channel per game carries them to every API process.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol


class Subscription(Protocol):
    def get(self, timeout: float) -> str | None:
        """The next message, or None after ``timeout`` seconds without one."""
        ...


class Broker(Protocol):
    def publish(self, game_id: str, message: str) -> None: ...

    def subscribe(self, game_id: str) -> Any:
        """A context manager yielding a Subscription to the game's channel."""
        ...

    def close(self) -> None: ...


class _QueueSubscription:
    def __init__(self) -> None:
        self.queue: queue.Queue[str] = queue.Queue(maxsize=10_000)

    def get(self, timeout: float) -> str | None:
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None


class InProcessBroker:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[str, set[_QueueSubscription]] = {}

    def publish(self, game_id: str, message: str) -> None:
        with self._lock:
            subscribers = list(self._subscribers.get(game_id, ()))
        for subscription in subscribers:
            # A stalled client loses messages; the server goes on.
            with contextlib.suppress(queue.Full):
                subscription.queue.put_nowait(message)

    @contextmanager
    def subscribe(self, game_id: str) -> Iterator[_QueueSubscription]:
        subscription = _QueueSubscription()
        with self._lock:
            self._subscribers.setdefault(game_id, set()).add(subscription)
        try:
            yield subscription
        finally:
            with self._lock:
                self._subscribers[game_id].discard(subscription)

    def close(self) -> None:
        pass


class _RedisSubscription:
    def __init__(self, pubsub: Any) -> None:
        self.pubsub = pubsub

    def get(self, timeout: float) -> str | None:
        message = self.pubsub.get_message(ignore_subscribe_messages=True, timeout=timeout)
        if message is None:
            return None
        data = message["data"]
        return data.decode("utf-8") if isinstance(data, bytes) else str(data)


class RedisBroker:
    """A channel per game, ``<prefix>games:<id>``: deployments sharing a
    Redis under different prefixes never hear each other's games."""

    def __init__(self, url: str, prefix: str) -> None:
        import redis

        # Any: redis-py 5 leaves pubsub() unannotated and annotates replies
        # as "Awaitable[T] | T", shared with its asyncio client.
        self.client: Any = redis.Redis.from_url(url)
        self.prefix = prefix

    def channel(self, game_id: str) -> str:
        return f"{self.prefix}games:{game_id}"

    def publish(self, game_id: str, message: str) -> None:
        self.client.publish(self.channel(game_id), message)

    @contextmanager
    def subscribe(self, game_id: str) -> Iterator[_RedisSubscription]:
        pubsub = self.client.pubsub()
        pubsub.subscribe(self.channel(game_id))
        try:
            pubsub.get_message(timeout=1.0)  # the subscribe confirmation
            yield _RedisSubscription(pubsub)
        finally:
            pubsub.close()

    def close(self) -> None:
        self.client.close()
