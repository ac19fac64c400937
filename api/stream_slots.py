"""How many event streams this process serves at once.

An open stream (``GET /games/{id}/events``) holds a thread of a threaded
server for as long as its game lasts: an API process that served every
stream asked of it would have no thread left for /healthz and the moves.
``StreamSlots(capacity)`` counts the open ones: ``take`` answers whether
one more may open, ``release`` gives its place back when it closes.
``capacity`` 0 serves none (the production API: the stream service serves
them); None sets no bound (the stream service itself, whose gevent workers
hold a stream as a greenlet).
"""

from __future__ import annotations

import threading


class StreamSlots:
    def __init__(self, capacity: int | None) -> None:
        if capacity is not None and capacity < 0:
            raise ValueError(f"a stream capacity of {capacity}: must be 0 or more")
        self.capacity = capacity
        self._open = 0
        self._lock = threading.Lock()

    @property
    def open(self) -> int:
        """The streams open now."""
        return self._open

    def take(self) -> bool:
        """A place for one more stream, if there is one (then ``release`` it)."""
        with self._lock:
            if self.capacity is not None and self._open >= self.capacity:
                return False
            self._open += 1
            return True

    def release(self) -> None:
        with self._lock:
            if self._open <= 0:
                raise RuntimeError("a stream's place released twice")
            self._open -= 1
