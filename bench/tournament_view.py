"""The tournaments view over a registration phase: is its cost per event flat?

For each size (200, 400 and 800 players by default) a tournament is created
and its players registered through the application service (in memory),
then its events are projected into a fresh SQLite view store, committed one
event at a time (a live runner keeping up with registrations one by one)
and in the rebuild's batches. For each it prints the bytes a commit writes
per event, split into the events the view keeps (``<t>:events``) and the two
documents queries read (``<t>``, ``<t>:standings``), and the time per
event; then the ratio of each per-event cost at the largest size to the
smallest: 1 when the cost per event does not grow with the events before
it. The documents hold every player, so written once per commit they grow
with the players when commits hold one event each. Run: ``python
bench/tournament_view.py [--sizes 200 400 800]``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.application import Opus
from domain.simulation import enter_tournament
from projections.base import ViewProjection
from projections.ports import Changes
from projections.rebuild import BATCH_SIZE, replay
from projections.sqlite_views import SQLiteViewStore
from projections.tournaments import TournamentView
from projections.view import View

STORES = itertools.count()  # a fresh file for each measure


class CountingStore(SQLiteViewStore):
    """A SQLite view store that adds up the bytes each commit writes, by
    key: the events kept, and the documents."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.documents = 0
        self.events = 0

    def commit(self, ns: str, changes: Changes, *args: Any, **kwargs: Any) -> None:
        for key, value in changes.docs.items():
            size = len(value.encode()) if value is not None else 0
            if key.endswith((":model", ":events")):  # the former code kept them in a document
                self.events += size
            else:
                self.documents += size
        for change in changes.lists.values():
            texts = [*change.appended, *change.replaced.values()]
            self.events += sum(len(text.encode()) for text in texts)
        super().commit(ns, changes, *args, **kwargs)


@dataclass
class Cost:
    events: int  # events projected
    event_bytes: float  # per event: the events the view keeps
    document_bytes: float  # per event: the documents queries read
    seconds: float  # per event

    @property
    def bytes(self) -> float:
        return self.event_bytes + self.document_bytes


def registered(players: int) -> Opus:
    """An in-memory store holding a tournament and its ``players`` registrations."""
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    enter_tournament(app, players, rounds=3, seed=players)
    return app


def measure(
    app: Opus, batch_size: int, folder: Path, cls: type[ViewProjection] = TournamentView
) -> Cost:
    """Project the whole log, ``batch_size`` events a commit, into a fresh store."""
    end = app.recorder.max_notification_id() or 0
    store = CountingStore(str(folder / f"views-{next(STORES)}.db"))
    try:
        projection = cls(View(store, cls.name, fresh=True))
        started = time.perf_counter()
        replay(app, [projection], 0, end, batch_size)
        elapsed = time.perf_counter() - started
    finally:
        store.close()
    return Cost(end, store.events / end, store.documents / end, elapsed / end)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 400, 800])
    args = parser.parse_args()
    sizes = sorted(args.sizes)
    apps = {n: registered(n) for n in sizes}
    print(f"{'players':>7} {'commit':>8} {'events B/ev':>12} {'docs B/ev':>10} {'µs/ev':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for batch_size, label in ((1, "1 event"), (BATCH_SIZE, "rebuild")):
            costs: dict[int, Cost] = {}
            for n in sizes:
                measure(apps[n], batch_size, Path(folder))  # warm-up
                costs[n] = cost = measure(apps[n], batch_size, Path(folder))
                print(
                    f"{n:>7} {label:>8} {cost.event_bytes:>12,.0f} {cost.document_bytes:>10,.0f}"
                    f" {cost.seconds * 1e6:>8,.0f}"
                )
            small, large = costs[sizes[0]], costs[sizes[-1]]
            print(
                f"  {label}, {sizes[-1]} / {sizes[0]} players, per event: events kept "
                f"{large.event_bytes / small.event_bytes:.2f}x, documents "
                f"{large.document_bytes / small.document_bytes:.2f}x, all bytes "
                f"{large.bytes / small.bytes:.2f}x, time {large.seconds / small.seconds:.2f}x"
            )


if __name__ == "__main__":
    main()
