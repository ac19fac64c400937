"""Rebuild throughput, against the raw rate of reading the same log.

From one run over at least 1,000,000 events (simulated greedy-bot games) it
prints, for SQLite events -> SQLite views and PostgreSQL events -> Redis views:
- the raw read rate: every notification selected from the store, in pages of
  the rebuild's batch size, through the library's ``select_notifications``
  (what any reader of the log pays, nothing decoded);
- the rebuild rate of all the projections in one pass (``opus rebuild``),
  in two processes (``opus rebuild --workers 2``), and, with ``--each``, of
  each projection alone; and each one's ratio to the raw rate;
- the rate at which a rebuild reads the same pages itself
  (``domain.internals.select_rows``: rows, no ``Notification`` or ``UUID``
  made for each), the floor every rebuild pays, and each rebuild's ratio
  to it too.

The events are simulated once in memory, then copied into ``var/bench/events.db``
and the PostgreSQL schema ``opus_bench`` (database from OPUS_TEST_POSTGRES_*,
default ``test``), which later runs reuse; a log of another size (``--events``,
e.g. 200,000 while trying things out) has its own file and schema. Views go to
a fresh SQLite file and a fresh Redis key prefix (``REDIS_URL``, default the
local server), removed afterwards. The machine may be busy: ``--repeat R``
measures everything R times, the raw read again next to each rebuild, and
the ratios of one round are the figures to compare; ``--cpu`` times SQLite
-> SQLite alone in this process's CPU seconds (all of its work is in this
process: time other processes take from it is not counted; no PostgreSQL,
Redis or second process, whose work is elsewhere).
Run: ``python bench/rebuild.py [--events N] [--each] [--repeat R] [--no-parallel]
[--no-postgres] [--cpu]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eventsourcing.persistence import StoredEvent

from domain.application import Opus
from domain.internals import select_rows
from domain.simulation import simulate
from infra.bootstrap import rebuild_workers
from infra.settings import Settings
from projections.rebuild import BATCH_SIZE, Workers, rebuild
from projections.redis_views import RedisViewStore
from projections.registry import PROJECTIONS, select
from projections.sqlite_views import SQLiteViewStore
from tests.redis_keys import drop_prefix
from tests.settings import connect_test_postgres, test_postgres_env

ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = ROOT / "var" / "bench"
EVENTS = 1_000_000
SCHEMA = "opus_bench"
POSTGRES = {**test_postgres_env(), "POSTGRES_SCHEMA": SCHEMA}
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
COPY_CHUNK = 5000
ALL = "all projections"
CLOCK = time.perf_counter  # --cpu: time.process_time
PARALLEL = "all projections, 2 processes"


def say(text: str) -> None:
    print(text, flush=True)


# ---- the log -----------------------------------------------------------------------


def simulated_log(events: int) -> list[StoredEvent]:
    """Greedy-bot games of 2 to 5 players, in memory, until ``events`` are recorded."""
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    started, seed = time.perf_counter(), 0
    while (app.recorder.max_notification_id() or 0) < events:
        simulate(app, 50, 2 + seed % 4, "greedy", seed)
        seed += 1
        done = app.recorder.max_notification_id() or 0
        say(f"  simulated {done:,} events ({done / (time.perf_counter() - started):,.0f}/s)")
    log = [
        StoredEvent(n.originator_id, n.originator_version, n.topic, n.state)
        for n in app.recorder.select_notifications(0, 10**9)
    ]
    app.close()
    return log


def copy_log(log: list[StoredEvent], app: Opus) -> None:
    for i in range(0, len(log), COPY_CHUNK):
        app.recorder.insert_events(log[i : i + COPY_CHUNK])


def store_names(events: int) -> tuple[Path, str]:
    """The SQLite file and the PostgreSQL schema of a log of ``events``."""
    if events == EVENTS:
        return BENCH_DIR / "events.db", SCHEMA
    return BENCH_DIR / f"events-{events}.db", f"{SCHEMA}_{events}"


def event_stores(events: int, use_postgres: bool) -> tuple[dict[str, str], dict[str, str] | None]:
    """The SQLite file and the PostgreSQL schema, each holding the same log."""
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    path, schema = store_names(events)
    sqlite = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}
    postgres = {**POSTGRES, "POSTGRES_SCHEMA": schema}
    app = Opus(env=sqlite)
    have = app.recorder.max_notification_id() or 0
    log: list[StoredEvent] = []
    if have < events:
        app.close()
        Path(sqlite["SQLITE_DBNAME"]).unlink(missing_ok=True)
        say(f"simulating {events:,} events (once; later runs reuse {BENCH_DIR})")
        log = simulated_log(events)
        app = Opus(env=sqlite)
        copy_log(log, app)
        have = len(log)
    app.close()
    if not use_postgres:
        return sqlite, None
    with connect_test_postgres() as conn:
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    app = Opus(env=postgres)
    if (app.recorder.max_notification_id() or 0) != have:
        app.close()
        with connect_test_postgres() as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
            conn.execute(f"CREATE SCHEMA {schema}")
        if not log:
            source = Opus(env=sqlite)
            log = list(source.recorder.select_notifications(0, 10**9))
            source.close()
        say(f"copying {len(log):,} events into PostgreSQL schema {schema}")
        app = Opus(env=postgres)
        copy_log(log, app)
    app.close()
    return sqlite, postgres


# ---- measurements ------------------------------------------------------------------


def raw_read(env: dict[str, str]) -> tuple[int, float]:
    """Every notification, page by page, as a rebuild reads them."""
    app = Opus(env=env)
    end = app.recorder.max_notification_id() or 0
    started = CLOCK()
    position, count = 0, 0
    while position < end:
        page = app.recorder.select_notifications(
            start=position, limit=BATCH_SIZE, stop=end, inclusive_of_start=False
        )
        count += len(page)
        position = page[-1].id
    seconds = CLOCK() - started
    app.close()
    return count, count / seconds


def rows_read(env: dict[str, str]) -> float:
    """The same pages as the rebuild reads them itself (``select_rows``)."""
    app = Opus(env=env)
    end = app.recorder.max_notification_id() or 0
    started = CLOCK()
    position, count = 0, 0
    while position < end:
        rows = select_rows(app, position, BATCH_SIZE, end)
        assert rows is not None
        count += len(rows)
        position = rows[-1][0]
    seconds = CLOCK() - started
    app.close()
    return count / seconds


def timed_rebuild(
    env: dict[str, str], store: Any, names: list[str], log: int, workers: Workers | None = None
) -> float:
    """Events of the log rebuilt per second (a projection that reads few
    event types has the store skip the others: they count as covered)."""
    app = Opus(env=env)
    started = CLOCK()
    rebuild(store, app, select(names), workers=workers)
    seconds = CLOCK() - started
    app.close()
    return log / seconds


def report(label: str, raw: float, rows: float, rates: dict[str, float]) -> None:
    say(f"\n{label}")
    say(f"  {'raw read of the notifications':<34} {raw:>10,.0f} events/s")
    say(f"  {'(the rebuild reading rows itself)':<34} {rows:>10,.0f} events/s")
    for name, rate in rates.items():
        say(
            f"  {'rebuild ' + name:<34} {rate:>10,.0f} events/s  {rate / raw:>6.1%} of raw"
            f"  {rate / rows:>6.1%} of the rows read"
        )


def sqlite_round(sqlite: dict[str, str], groups: dict[str, list[str]], parallel: bool) -> None:
    count, raw = raw_read(sqlite)
    rates: dict[str, float] = {}
    for label, names in groups.items():
        path = BENCH_DIR / f"views-{uuid.uuid4().hex[:8]}.db"
        store = SQLiteViewStore(str(path))
        rates[label] = timed_rebuild(sqlite, store, names, count)
        if label == ALL and parallel:
            views = Settings.from_env({**sqlite, "OPUS_VIEWS_DBNAME": str(path)})
            workers = rebuild_workers(views, 2)
            rates[PARALLEL] = timed_rebuild(sqlite, store, names, count, workers)
        store.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
    report(f"SQLite events -> SQLite views ({count:,} events)", raw, rows_read(sqlite), rates)


def postgres_round(postgres: dict[str, str], groups: dict[str, list[str]], parallel: bool) -> None:
    count, raw = raw_read(postgres)
    rates: dict[str, float] = {}
    for label, names in groups.items():
        prefix = f"opus-bench:{uuid.uuid4().hex[:8]}:"
        redis_store = RedisViewStore(REDIS_URL, prefix)
        try:
            rates[label] = timed_rebuild(postgres, redis_store, names, count)
            if label == ALL and parallel:
                redis = {**postgres, "REDIS_URL": REDIS_URL, "OPUS_REDIS_PREFIX": prefix}
                workers = rebuild_workers(Settings.from_env(redis), 2)
                rates[PARALLEL] = timed_rebuild(postgres, redis_store, names, count, workers)
        finally:
            drop_prefix(REDIS_URL, prefix)
            redis_store.close()
    report(f"PostgreSQL events -> Redis views ({count:,} events)", raw, rows_read(postgres), rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=EVENTS, help="the log's size")
    parser.add_argument("--each", action="store_true", help="also each projection alone")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of measurements")
    parser.add_argument("--no-parallel", action="store_true", help="not in two processes")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--cpu", action="store_true", help="SQLite alone, in CPU seconds")
    args = parser.parse_args()
    if args.cpu:
        global CLOCK
        CLOCK = time.process_time
        args.no_postgres = args.no_parallel = True
    sqlite, postgres = event_stores(args.events, not args.no_postgres)
    groups = {ALL: list(PROJECTIONS)}
    if args.each:
        groups.update({name: [name] for name in PROJECTIONS})
    for round_ in range(1, args.repeat + 1):
        if args.repeat > 1:
            say(f"\nround {round_} of {args.repeat}")
        sqlite_round(sqlite, groups, not args.no_parallel)
        if postgres is not None:
            postgres_round(postgres, groups, not args.no_parallel)


if __name__ == "__main__":
    main()
