"""Fan-out of a game's public events to its live streams.

In one process a set of queues per game does it; with Redis configured, a
pub/sub channel per game carries them to every API and stream process, each
process reading them on one connection and handing them to its own queues.

A message reaches every stream of its game in the process as one
``Message``: its JSON is decoded once there, by the first stream that reads
it (``Message.fields``), however many streams it reaches. Beside a game's
channel, each seat has one of its own (``seat_key``): what only that seat
may see of its turn (api/turn_offers.py). A stream hears it only if it
subscribed to that key, which the stream does for the seat its token holds
(``domain.disclosure.sees_turn_offer``).
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property
from typing import Any, Protocol

import orjson

from infra.logthrottle import LogThrottle
from projections.redis_client import cluster_of, connect, for_key, refresh
from projections.redis_views import literal_pattern

log = logging.getLogger(__name__)
_failures = LogThrottle(log)
# Told to every stream when messages may have been lost (the pub/sub
# connection was re-established): read the log for what you have not sent.
RESYNC = "resync"


def seat_key(game_id: str, seat: int) -> str:
    """The key of what only ``seat`` may hear of its game (its turn's offer),
    beside the game's own key (its id)."""
    return f"{game_id}:seat:{seat}"


class Message(str):
    """A message as published, with its JSON decoded at most once in this
    process: every stream it reaches holds the same object."""

    @cached_property
    def fields(self) -> Any:
        return orjson.loads(str(self))  # orjson reads an exact str only


class Subscription(Protocol):
    def get(self, timeout: float) -> str | None:
        """The next message, or None after ``timeout`` seconds without one."""
        ...

    def drain(self) -> list[str]:
        """The messages that have arrived already, without waiting: a stream
        writes them with the one ``get`` gave it, in one write."""
        ...


class Broker(Protocol):
    def publish(self, key: str, *messages: str) -> None:
        """The messages to the channel of ``key`` (a game's id, or a seat's
        ``seat_key``), in order (a save's events: one round trip to Redis)."""
        ...

    def subscribe(self, key: str, *also: str) -> Any:
        """A context manager yielding one Subscription to the channels of
        ``key`` and of each key in ``also``, their messages in the order
        published."""
        ...

    def together(self) -> Any:
        """A context manager within which this thread's ``publish`` calls are
        held, then sent at its end, in order, in one round trip (a save's
        events, its checkpoint and the next seat's offer). A failure to send
        is raised at the end."""
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

    def drain(self) -> list[str]:
        arrived = []
        with contextlib.suppress(queue.Empty):
            while True:
                arrived.append(self.queue.get_nowait())
        return arrived


def _deliver(subscribers: list[_QueueSubscription], message: str) -> None:
    for subscription in subscribers:
        # A stalled client loses messages; the server goes on.
        with contextlib.suppress(queue.Full):
            subscription.queue.put_nowait(message)


class InProcessBroker:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[str, set[_QueueSubscription]] = {}

    def publish(self, key: str, *messages: str) -> None:
        with self._lock:
            subscribers = list(self._subscribers.get(key, ()))
        if not subscribers:
            return
        for message in messages:
            _deliver(subscribers, message if isinstance(message, Message) else Message(message))

    def broadcast(self, message: str) -> None:
        """``message`` to every subscription of every game."""
        with self._lock:
            subscribers = list({s for game in self._subscribers.values() for s in game})
        _deliver(subscribers, message)

    @contextmanager
    def together(self) -> Iterator[None]:
        yield  # delivered at once, in order: nothing to hold

    @contextmanager
    def subscribe(self, key: str, *also: str) -> Iterator[_QueueSubscription]:
        subscription = _QueueSubscription()
        keys = (key, *also)
        with self._lock:
            for k in keys:
                self._subscribers.setdefault(k, set()).add(subscription)
        try:
            yield subscription
        finally:
            with self._lock:
                for k in keys:
                    held = self._subscribers.get(k)
                    if held is not None:
                        held.discard(subscription)
                        if not held:
                            del self._subscribers[k]

    def close(self) -> None:
        pass


class RedisBroker:
    """A channel per game, ``<prefix>games:<id>``: deployments sharing a
    Redis under different prefixes never hear each other's games.

    A process holds one pub/sub connection, whatever the number of its
    streams: a reader thread (a greenlet under gevent) subscribes to the
    pattern ``<prefix>games:*`` once, on the first ``subscribe``, and hands
    each message to the local queues of that game's streams. A thousand open
    streams cost a thousand queues, not a thousand Redis connections. A
    message lost while the connection is re-established is not lost to the
    streams: once it is back, each is told to ``RESYNC`` and reads from the
    log what it has not sent (api/stream.py).

    On a Redis Cluster (``redis+cluster://``) the channels keep their names:
    a PUBLISH on any master reaches the subscribers of every node over the
    cluster bus, so the reader's one pattern subscription, on whichever node
    the client picks, hears every game; a failed node drops it, and the
    reader subscribes again on a living one (the slots learnt anew) and
    tells its streams to ``RESYNC``. A save's messages go in one pipeline to
    the master of their channel's slot.
    """

    READY_SECONDS = 5.0  # how long the first subscribe waits for the pattern's confirmation
    POLL_SECONDS = 1.0  # how often the reader looks whether it was closed

    def __init__(self, url: str, prefix: str) -> None:
        # Any: redis-py 5 leaves pubsub() unannotated and annotates replies
        # as "Awaitable[T] | T", shared with its asyncio client.
        # Timeouts: a Redis that accepts but never answers must not hold a
        # command (publishing, the rate limit, the response cache) for long.
        self.client: Any = connect(url, socket_connect_timeout=2, socket_timeout=5)
        self.prefix = prefix
        self._local = InProcessBroker()
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._closed = threading.Event()
        self._reader: threading.Thread | None = None
        self._held = threading.local()  # the messages ``together`` holds, this thread's

    def channel(self, key: str) -> str:
        """A game's channel (its id), or one of its seats' (``seat_key``)."""
        return f"{self.prefix}games:{key}"

    def pattern(self) -> str:
        """Every game channel of this prefix, the prefix's glob characters escaped."""
        return f"{literal_pattern(self.prefix)}games:*"

    def publish(self, key: str, *messages: str) -> None:
        if not messages:
            return
        held: list[tuple[str, tuple[str, ...]]] | None = getattr(self._held, "messages", None)
        if held is not None:
            held.append((self.channel(key), messages))
            return
        self._send([(self.channel(key), messages)])

    @contextmanager
    def together(self) -> Iterator[None]:
        if getattr(self._held, "messages", None) is not None:
            yield  # within another: that one sends
            return
        held: list[tuple[str, tuple[str, ...]]] = []
        self._held.messages = held
        try:
            yield
        finally:
            self._held.messages = None
        if held:
            self._send(held)

    def _send(self, batch: list[tuple[str, tuple[str, ...]]]) -> None:
        """Each channel's messages, in order: one round trip to a standalone
        Redis; to a cluster, one per channel (it pipelines no PUBLISH: the
        master of the channel's slot does)."""
        if len(batch) == 1 and len(batch[0][1]) == 1:
            self.client.publish(batch[0][0], batch[0][1][0])
            return
        try:
            if cluster_of(self.client) is None:
                pipe = self.client.pipeline(transaction=False)
                for channel, messages in batch:
                    for message in messages:
                        pipe.publish(channel, message)
                pipe.execute()
                return
            for channel, messages in batch:
                pipe = for_key(self.client, channel).pipeline(transaction=False)
                for message in messages:
                    pipe.publish(channel, message)
                pipe.execute()
        except Exception:
            refresh(self.client)  # a cluster's master gone: learn who took its slots
            raise

    @contextmanager
    def subscribe(self, key: str, *also: str) -> Iterator[_QueueSubscription]:
        self._start_reader()
        with self._local.subscribe(key, *also) as subscription:
            yield subscription

    def _start_reader(self) -> None:
        with self._lock:
            if self._reader is None:
                self._reader = threading.Thread(target=self._read, name="opus-broker", daemon=True)
                self._reader.start()
        self._ready.wait(self.READY_SECONDS)

    def _read(self) -> None:
        channels = len(self.prefix) + len("games:")
        lost = False  # messages may have been published while the connection was down
        while not self._closed.is_set():
            pubsub = self.client.pubsub()
            try:
                pubsub.psubscribe(self.pattern())
                while not self._closed.is_set():
                    message = pubsub.get_message(timeout=self.POLL_SECONDS)
                    if message is None:
                        continue
                    if message["type"] == "psubscribe":
                        self._ready.set()
                        if lost:
                            self._local.broadcast(RESYNC)
                            lost = False
                        continue
                    if message["type"] != "pmessage":
                        continue
                    channel, data = message["channel"], message["data"]
                    channel = channel.decode() if isinstance(channel, bytes) else str(channel)
                    text = data.decode("utf-8") if isinstance(data, bytes) else str(data)
                    self._local.publish(channel[channels:], Message(text))
            except Exception as e:  # Redis away: retry; the streams read gaps from the log
                if self._closed.is_set():
                    return
                lost = True
                _failures.failed("live events: Redis pub/sub failed; reconnecting", e)
                refresh(self.client)
                self._closed.wait(self.POLL_SECONDS)
            finally:
                with contextlib.suppress(Exception):
                    pubsub.close()

    def close(self) -> None:
        self._closed.set()
        reader = self._reader
        if reader is not None and reader is not threading.current_thread():
            reader.join(self.POLL_SECONDS * 2)
        self.client.close()
