"""Failures logged per request, at most once per kind per interval.

A store that is down fails every request that touches it: logged each time,
a five-second Redis outage wrote more than a thousand traceback lines.
``LogThrottle(logger).failed(what, error)`` logs the first failure of a kind
(``what`` and the error's class), then at most one record of that kind per
interval, each saying how many of its kind were not logged since the last
one (also the record's ``suppressed`` attribute). The record that opens a
burst (none of its kind in the interval before) carries the traceback; the
others are one line. The interval is the process's (``configure``, from
``OPUS_LOG_THROTTLE_SECONDS``: the composition root sets it) unless a
throttle is given its own.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_INTERVAL = 10.0  # seconds between two records of one kind of failure
_interval = DEFAULT_INTERVAL


def configure(interval: float) -> None:
    """The interval of every throttle that was not given its own."""
    global _interval
    if interval < 0:
        raise ValueError(f"a log interval of {interval} s: must be 0 or more")
    _interval = interval


@dataclass
class _Kind:
    reported_at: float  # when a record of this kind was last written
    failed_at: float  # when one last failed
    unreported: int = 0  # failures since that record, not logged


class LogThrottle:
    """One logger's failures, at most one record per kind per interval."""

    def __init__(
        self,
        logger: logging.Logger,
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logger = logger
        self.interval = interval
        self.clock = clock
        self._kinds: dict[tuple[str, str], _Kind] = {}
        self._lock = threading.Lock()

    def failed(
        self, what: str, error: BaseException | None = None, level: int = logging.WARNING
    ) -> None:
        """A failure: ``what`` failed (with ``error``). Logged now, or counted
        and told with the next record of its kind."""
        interval = _interval if self.interval is None else self.interval
        key = (what, type(error).__name__ if error is not None else "")
        now = self.clock()
        with self._lock:
            kind = self._kinds.get(key)
            burst = kind is None or now - kind.failed_at > interval
            if kind is None:
                kind = self._kinds[key] = _Kind(reported_at=now, failed_at=now)
            elif not burst and now - kind.reported_at < interval:
                kind.failed_at = now
                kind.unreported += 1
                return
            suppressed, since = kind.unreported, now - kind.reported_at
            kind.unreported, kind.reported_at, kind.failed_at = 0, now, now
        text = what if error is None else f"{what}: {type(error).__name__}: {error}"
        if suppressed:
            note = f"{suppressed} more like it in the last {since:.0f} s not logged"
        else:
            note = f"more like it in the next {interval:g} s counted, not logged"
        self.logger.log(
            level,
            "%s [%s]",
            text,
            note,
            exc_info=error if burst and error is not None else None,
            extra={"suppressed": suppressed},
        )
