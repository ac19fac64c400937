"""Reading a game's move log through its query, against reading its stored
entries alone.

The move log's line of text is rendered on read (``Queries.move_log``), so
a read pays for it where each event's projection once did. This plays
``--games`` games of greedy bots (6 players, the Guild) on an embedded app,
projects the move log into SQLite views and into Redis views (a key prefix
of its own, removed afterwards), then reads every game's log, ``--rounds``
times, the fastest round counting, two ways:

- the baseline: the stored entries, read and parsed (``ViewStore.items`` and
  ``json.loads`` of each), what any reader of the view pays;
- the query, as the API and the pages read it: the whole log, and its last
  five entries (``since``, as a page's refresh asks).

It prints µs per entry of each and the query's ratio to the baseline
(1.0: the query costs what reading the view costs).
Run: ``python bench/move_log_read.py [--games 20] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.application import Opus
from domain.simulation import play_game
from projections.ports import ViewStore, namespace
from projections.queries import Queries
from projections.rebuild import rebuild
from projections.redis_views import RedisViewStore
from projections.registry import select
from projections.sqlite_views import SQLiteViewStore
from tests.redis_keys import drop_prefix

REDIS_URL = os.environ.get("OPUS_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def fastest(read: Callable[[], int], rounds: int) -> tuple[float, int]:
    """The fastest round's seconds, and the entries one round read."""
    best, count = float("inf"), 0
    for _ in range(rounds):
        started = time.perf_counter()
        count = read()
        best = min(best, time.perf_counter() - started)
    return best, count


def measure(label: str, store: ViewStore, games: list[str], rounds: int) -> None:
    queries = Queries(store)
    ns = namespace("move_log", store.active_generation("move_log"))

    def stored() -> int:
        return sum(len([json.loads(e) for e in store.items(ns, game)]) for game in games)

    def whole() -> int:
        return sum(len(queries.move_log(game)) for game in games)

    def stored_tail() -> int:
        return sum(len([json.loads(e) for e in store.items(ns, game, n - 5)]) for game, n in ends)

    def tail() -> int:
        return sum(len(queries.move_log(game, since=n - 5)) for game, n in ends)

    ends = [(game, len(store.items(ns, game))) for game in games]
    for name, base, query in (("whole log", stored, whole), ("last 5", stored_tail, tail)):
        base_s, n = fastest(base, rounds)
        query_s, m = fastest(query, rounds)
        assert n == m, (n, m)
        print(
            f"{label:<8} {name:<10} {n:>6} entries: stored {base_s / n * 1e6:6.1f} µs/entry,"
            f" query {query_s / n * 1e6:6.1f} µs/entry, x{query_s / base_s:.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        app = Opus(
            env={
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": str(Path(folder) / "events.db"),
            }
        )
        games = [str(play_game(app, 6, "greedy", random.Random(s))[0]) for s in range(args.games)]
        prefix = f"opus-bench-{uuid.uuid4().hex[:8]}:"
        stores: list[tuple[str, ViewStore]] = [
            ("SQLite", SQLiteViewStore(str(Path(folder) / "views.db"))),
            ("Redis", RedisViewStore(REDIS_URL, prefix=prefix)),
        ]
        try:
            for label, store in stores:
                rebuild(store, app, select(["move_log"]))
                measure(label, store, games, args.rounds)
        finally:
            for _, store in stores:
                store.close()
            drop_prefix(REDIS_URL, prefix)
            app.close()


if __name__ == "__main__":
    main()
