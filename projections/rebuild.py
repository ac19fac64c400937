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

With ``workers``, the projections are shared out among that many processes,
each making its own pass over the log: Python runs one projection at a
time per process, and the machine has more cores than one.

A sharded event store (a list of applications, index = shard) is rebuilt
from every shard's log, the home shard's first, each tracked under its own
name (domain.sharding.upstream_name), in runs of one shard chosen as a
runner chooses them (projections/merge.py: nearly in time), and "as of"
names a position per shard (``asof<n0>-<n1>…``): the views as they stood
when each shard's log had reached its own. The projections' order across
shards does not depend on the order they are read in (README, read-side
decisions), so a rebuild equals a live view whatever the runner met.
Workers share out one log's projections only: a sharded rebuild runs in
this process.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from eventsourcing.application import Application
from eventsourcing.persistence import Tracking
from eventsourcing.utils import get_topic

from domain.internals import Row, on_postgres
from projections.base import EventDecoder, ViewProjection, no_cyclic_gc, read_rows
from projections.merge import Pending, next_run
from projections.ports import TrackingConflictError, ViewStore, namespace
from projections.runner import project_batch
from projections.view import View

BATCH_SIZE = 2000  # events committed together
Progress = Callable[[int], None]


@dataclass(frozen=True)
class Workers:
    """Rebuild in ``count`` processes; each opens the view store and the
    application itself with these openers (infra/bootstrap.py's
    ``rebuild_workers`` gives them), which must pickle: module-level
    functions or functools.partial of them."""

    count: int
    open_store: Callable[[], ViewStore]
    open_application: Callable[[], Application[Any]]


# Rough cost of each projection per event of the log (its handlers and its
# store's writes; every worker reads and decodes the log besides), to share
# them out evenly: the move log alone weighs about what the others do together.
COSTS = {
    "move_log": 5.0,
    "table": 1.3,
    "scoreboard": 1.0,
    "hands": 0.6,
    "leaderboard": 0.1,
    "seats": 0.1,
    "tournaments": 0.1,
    "ratings": 0.4,  # bench/ratings.py: a third of the table's cost where games are rated
}


@dataclass
class Rebuilt:
    projections: list[str]
    generation: str
    # where the rebuilt views stand: with shards, the positions of the logs covered, summed
    position: int
    events: int  # notifications read: only the event types the projections read
    seconds: float
    positions: tuple[int, ...] = ()  # where they stand in each shard's log

    @property
    def rate(self) -> float:
        """Positions of the log covered per second."""
        return self.position / self.seconds if self.seconds else 0.0


def new_generation() -> str:
    return f"g{time.time_ns() // 1000}"


def as_of_generation(position: int | Sequence[int]) -> str:
    """The generation of the views as of a position (one log's), or of a
    position per shard."""
    if isinstance(position, int):
        return f"asof{position}"
    return "asof" + "-".join(str(p) for p in position)


def rebuild(
    store: ViewStore,
    app: Application[Any] | Sequence[Application[Any]],
    classes: list[type[ViewProjection]],
    *,
    as_of: int | Sequence[int] | None = None,
    blue_green: bool = False,
    batch_size: int = BATCH_SIZE,
    progress: Progress | None = None,
    workers: Workers | None = None,
) -> Rebuilt:
    """Rebuild ``classes`` from ``app``'s log (or each shard's, a list of
    applications) into ``store``; ``as_of``: a position of the one log, or
    a list of one position per shard."""
    apps = list(app) if isinstance(app, Sequence) else [app]
    shards = len(apps)
    if as_of is not None and blue_green:
        raise ValueError("--as-of builds a view beside the live one; it cannot be swapped in")
    ends_as_of = None if as_of is None else ([as_of] if isinstance(as_of, int) else list(as_of))
    if ends_as_of is not None and len(ends_as_of) != shards:
        raise ValueError(
            f"as of {len(ends_as_of)} position(s): the event store has {shards} shard(s), "
            "name a position of each"
        )
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
        view = View(store, cls.name, generation or None, fresh=True, shards=shards)
        projections.append(cls(view))
    ends = ends_as_of if ends_as_of is not None else [head_of(a) for a in apps]
    if workers is not None and workers.count > 1 and len(classes) > 1 and shards == 1:
        targets = [(p.name, p.view.generation) for p in projections]
        events = replay_in_processes(workers, targets, ends[0], batch_size, progress)
        for projection in projections:
            projection.view.forget()  # written by the workers: read again
    else:
        events = replay_shards(apps, projections, [0] * shards, ends, batch_size, progress)
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
            events += replay_shards(apps, projections, ends, [head_of(a) for a in apps])
    positions = []
    for shard, end in enumerate(ends):
        reached = [p.view.position_of(p.view.upstreams[shard]) or 0 for p in projections]
        positions.append(max([end, *reached]))
    return Rebuilt(
        names,
        generation or "active",
        sum(positions),
        events,
        time.perf_counter() - started,
        tuple(positions),
    )


def head_of(app: Application[Any]) -> int:
    """A log's last position (0 when empty)."""
    return app.recorder.max_notification_id() or 0


def replay_in_processes(
    workers: Workers,
    targets: list[tuple[str, str]],
    end: int,
    batch_size: int,
    progress: Progress | None,
) -> int:
    """``replay`` of (projection, generation) targets, shared out among
    worker processes; returns the notifications read, all workers together."""
    groups: list[list[tuple[str, str]]] = [[] for _ in range(min(workers.count, len(targets)))]
    loads = [0.0] * len(groups)
    for target in sorted(targets, key=lambda t: -COSTS.get(t[0], 1.0)):
        lightest = loads.index(min(loads))
        groups[lightest].append(target)
        loads[lightest] += COSTS.get(target[0], 1.0)
    context = multiprocessing.get_context("spawn")  # no inherited connections or threads
    with context.Manager() as manager, ProcessPoolExecutor(len(groups), context) as pool:
        reports = manager.Queue()
        futures = [
            pool.submit(_replay_group, workers, group, end, batch_size, reports) for group in groups
        ]
        pending = set(futures)
        reported = 0.0
        while pending:
            _, pending = wait(pending, timeout=0.2)
            while not reports.empty():
                # every worker covers the whole log: the bar shows their mean
                reported += reports.get() / len(groups)
                if progress is not None and int(reported):
                    progress(int(reported))
                    reported -= int(reported)
        return sum(future.result() for future in futures)


def _replay_group(
    workers: Workers, targets: list[tuple[str, str]], end: int, batch_size: int, reports: Any
) -> int:
    from projections.registry import PROJECTIONS

    store = workers.open_store()
    app = workers.open_application()
    try:
        projections = [
            PROJECTIONS[name](View(store, name, generation, fresh=True))
            for name, generation in targets
        ]
        return replay(app, projections, 0, end, batch_size, reports.put)
    finally:
        app.close()
        store.close()


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
    *,
    shard: int = 0,
) -> int:
    """Project the notifications after ``after`` up to ``end`` (of shard
    ``shard``'s log, when the views follow several); returns how many were
    read. Every projection's position of that log ends at ``end``."""
    decoder = EventDecoder(app.mapper)
    # Only the event types these projections read: the store filters the rest
    # out (a rebuild of the leaderboard reads one event in seventy).
    topics = read_topics([type(p) for p in projections])
    read = 0
    position = after
    with no_cyclic_gc(), ReadAhead(app, batch_size, end, topics) as pages:
        while position < end:
            rows, text_ids = pages.after(position)
            if not rows:
                break
            events, decode_error = decoder.decode(rows, text_ids=text_ids)
            positions = [row[0] for row in rows]
            for projection in projections:
                project_batch(projection, rows, events, decode_error, positions, shard)
            if decode_error is not None:  # every view held it: read on after it
                rows, positions = rows[: len(events) + 1], positions[: len(events) + 1]
            if progress is not None:
                progress(positions[-1] - position)
            position = positions[-1]
            read += len(rows)
    if progress is not None and position < end:
        progress(end - position)
    _track_end(projections, end, shard)
    return read


class ReadAhead:
    """The log's pages; from PostgreSQL, each read while the one before is
    projected: the next page after a page's last row is asked for in a
    thread of its own as soon as the page is handed out, so the server's
    time to answer overlaps the projections' Python (bench/rebuild.py,
    PostgreSQL -> Redis: +13 %). A page asked for from elsewhere (read on
    after a row that cannot be decoded) is read then, the page read ahead
    dropped. One read at a time: the recorder is never used by two threads
    at once. SQLite's pages are read when asked: its reads are this
    process's own work, and a second thread only made the two contend for
    the GIL (-7 %)."""

    def __init__(
        self, app: Application[Any], batch_size: int, end: int, topics: Sequence[str]
    ) -> None:
        self.app, self.batch_size, self.end, self.topics = app, batch_size, end, topics
        self._pool = ThreadPoolExecutor(1, "opus-read-ahead") if on_postgres(app) else None
        self._ahead: tuple[int, Future[tuple[list[Row], bool]]] | None = None

    def after(self, position: int) -> tuple[list[Row], bool]:
        """The page after ``position`` (up to the end), and whether its ids
        are text (``read_rows``)."""
        ahead, self._ahead = self._ahead, None
        page = None
        if ahead is not None:
            start, reading = ahead
            if start == position:
                page = reading.result()  # its error, if any, is this read's
            else:
                wait([reading])  # not wanted, its error neither: one read at a time
        if page is None:
            page = self._read(position)
        rows = page[0]
        if self._pool is not None and rows and rows[-1][0] < self.end:
            self._ahead = (rows[-1][0], self._pool.submit(self._read, rows[-1][0]))
        return page

    def _read(self, position: int) -> tuple[list[Row], bool]:
        return read_rows(self.app, position, self.batch_size, self.end, self.topics)

    def __enter__(self) -> ReadAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


def _track_end(projections: list[ViewProjection], end: int, shard: int) -> None:
    for projection in projections:
        # A position with no event of its own (the log's end, or an as-of
        # position between events) is still where the view stands.
        view = projection.view
        view.follow(shard)
        if (view.position or 0) < end:
            view.insert_tracking(Tracking(view.application_name, end))


def replay_shards(
    apps: list[Application[Any]],
    projections: list[ViewProjection],
    afters: list[int],
    ends: list[int],
    batch_size: int = BATCH_SIZE,
    progress: Progress | None = None,
) -> int:
    """``replay`` of every shard's log (after ``afters[k]`` up to ``ends[k]``),
    in runs of one shard at a time chosen as a runner chooses them
    (projections/merge.py: the earliest first, another shard's stopping
    before the home shard's next event), so that games come nearly in the
    order across shards; returns how many notifications were read."""
    if len(apps) == 1:
        return replay(apps[0], projections, afters[0], ends[0], batch_size, progress)
    decoders = [EventDecoder(app.mapper) for app in apps]
    topics = read_topics([type(p) for p in projections])
    pending = [Pending() for _ in apps]
    read_to = list(afters)  # each shard's last row read
    done = list(afters)  # each shard's last row projected
    read = 0
    with no_cyclic_gc():
        while True:
            for shard, (app, waiting) in enumerate(zip(apps, pending, strict=True)):
                if waiting or read_to[shard] >= ends[shard]:
                    continue
                rows, text_ids = read_rows(app, read_to[shard], batch_size, ends[shard], topics)
                if not rows:
                    read_to[shard] = ends[shard]
                    continue
                decoded, error = decoders[shard].decode(rows, text_ids=text_ids)
                if error is not None:  # read on after it, if every view holds it
                    rows = rows[: len(decoded) + 1]
                waiting.rows, waiting.events, waiting.error = rows, decoded, error
                read_to[shard] = rows[-1][0]
            run = next_run(pending, lambda: True)  # the home shard's waiting events are all here
            if run is None:
                break
            shard, horizon = run
            rows, events, error = pending[shard].take(horizon)
            positions = [row[0] for row in rows]
            for projection in projections:
                project_batch(projection, rows, events, error, positions, shard)
            read += len(rows)
            if progress is not None:
                progress(positions[-1] - done[shard])
            done[shard] = positions[-1]
    for shard, end in enumerate(ends):
        if progress is not None and done[shard] < end:
            progress(end - done[shard])
        _track_end(projections, end, shard)
    return read
