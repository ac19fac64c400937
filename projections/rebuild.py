"""Rebuild projections from the log: in place, blue/green, or as of a position.

All the projections asked for are rebuilt in one pass over the log: each
notification is read and decoded once, then offered to each projection;
each commits once per batch, with the batch's last position.

- In place: the active generation is dropped and replayed from position 0.
  A runner writing it at the same time makes the rebuild stop on a tracking
  conflict (nothing is written twice): stop runners first, or use blue/green.
- Blue/green: a fresh generation is filled up to the log's end, made active
  in one write, caught up once more, and the old generation is dropped.
  Running runners notice the swap at their next commit and follow it.
- As of N (time travel): generation ``asof<N>`` is filled up to position N
  and left beside the live one; queries read it by naming the generation.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from eventsourcing.application import Application
from eventsourcing.persistence import Tracking
from eventsourcing.utils import get_topic

from projections.base import EventDecoder, ViewProjection
from projections.ports import TrackingConflictError, ViewStore, namespace
from projections.runner import decode_all, project_batch
from projections.view import View

BATCH_SIZE = 2000
Progress = Callable[[int], None]


@dataclass
class Rebuilt:
    projections: list[str]
    generation: str
    position: int  # where the rebuilt views stand
    events: int  # notifications read: only the event types the projections read
    seconds: float

    @property
    def rate(self) -> float:
        """Positions of the log covered per second."""
        return self.position / self.seconds if self.seconds else 0.0


def new_generation() -> str:
    return f"g{time.time_ns() // 1000}"


def as_of_generation(position: int) -> str:
    return f"asof{position}"


def rebuild(
    store: ViewStore,
    app: Application[Any],
    classes: list[type[ViewProjection]],
    *,
    as_of: int | None = None,
    blue_green: bool = False,
    batch_size: int = BATCH_SIZE,
    progress: Progress | None = None,
) -> Rebuilt:
    """Rebuild ``classes`` from ``app``'s log into ``store``."""
    if as_of is not None and blue_green:
        raise ValueError("--as-of builds a view beside the live one; it cannot be swapped in")
    started = time.perf_counter()
    names = [cls.name for cls in classes]
    if as_of is not None:
        generation = as_of_generation(as_of)
    elif blue_green:
        generation = new_generation()
    else:
        generation = ""  # each projection's active one
    projections: list[ViewProjection] = []
    for cls in classes:
        target = generation or store.active_generation(cls.name)
        store.drop(namespace(cls.name, target))
        # In place, the view follows the active generation, so a swap made
        # meanwhile by someone else is refused rather than overwritten.
        view = View(store, cls.name, generation or None, fresh=True)
        projections.append(cls(view))
    end = as_of if as_of is not None else (app.recorder.max_notification_id() or 0)
    events = replay(app, projections, 0, end, batch_size, progress)
    if blue_green:
        for cls, projection in zip(classes, projections, strict=True):
            old = store.active_generation(cls.name)
            store.activate(cls.name, generation)
            if old != generation:
                store.drop(namespace(cls.name, old))
            projection.view.follows_active = True
        # Events recorded while swapping. A live runner follows the swap at
        # its next commit and catches them up too: whichever commits second
        # is refused by the position check, and that is fine.
        with contextlib.suppress(TrackingConflictError):
            events += replay(app, projections, end, app.recorder.max_notification_id() or 0)
    position = max([end, *(p.view.position or 0 for p in projections)])
    return Rebuilt(names, generation or "active", position, events, time.perf_counter() - started)


def read_topics(classes: list[type[ViewProjection]]) -> list[str]:
    """The topics of every event type these projections handle; empty (all
    events) if one of them handles a base class such as GameEvent."""
    topics: set[str] = set()
    for cls in classes:
        for event_class in cls.handled_event_classes():
            if event_class.__subclasses__():
                return []
            topics.add(get_topic(event_class))
    return sorted(topics)


def replay(
    app: Application[Any],
    projections: list[ViewProjection],
    after: int,
    end: int,
    batch_size: int = BATCH_SIZE,
    progress: Progress | None = None,
) -> int:
    """Project the notifications after ``after`` up to ``end``; returns how
    many were read. Every projection's position ends at ``end``."""
    decoder = EventDecoder(app.mapper)
    # Only the event types these projections read: the store filters the rest
    # out (a rebuild of the leaderboard reads one event in seventy).
    topics = read_topics([type(p) for p in projections])
    read = 0
    position = after
    while position < end:
        notifications = app.recorder.select_notifications(
            start=position, limit=batch_size, stop=end, topics=topics, inclusive_of_start=False
        )
        if not notifications:
            break
        events, decode_error = decode_all(decoder, notifications)
        for projection in projections:
            project_batch(projection, notifications, events, app.name, decode_error)
        if progress is not None:
            progress(notifications[-1].id - position)
        position = notifications[-1].id
        read += len(notifications)
    if progress is not None and position < end:
        progress(end - position)
    for projection in projections:
        # A position with no event of its own (the log's end, or an as-of
        # position between events) is still where the view stands.
        if (projection.view.position or 0) < end:
            projection.view.insert_tracking(Tracking(app.name, end))
    return read
