"""Analytics speed, against baselines measured in the same run.

Over a store of at least 1,000,000 events (greedy-bot games of 2 to 5
players; bench/rebuild.py's ``var/bench/events.db`` when it holds enough,
else simulated once into a temporary folder, kept with ``--keep``):

- the export (``opus analytics export``, a fresh folder) against the raw
  read rate of the store: every notification selected, in pages, through
  the library's ``select_notifications``, nothing decoded (bench/rebuild.py's
  baseline); aim: at least 50 %;
- the full report by DuckDB on the export (every question's SQL, then the
  CSV, charts, page and snapshot; the SQL alone printed too) against the
  same figures by a plain Python pass over the store
  (tests/analytics_oracle.py: every record read and decoded, each game
  replayed in a GameState, every figure summed in Python); aim: at least 20×.

Run: ``python bench/analytics.py [--events N] [--keep] [--spark]``
(``--spark`` also times the report by Spark in local mode).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.rebuild import raw_read
from domain.application import Opus
from domain.simulation import simulate
from infra.eventlog import read_records
from projections.analytics.engines import DuckDBEngine, SparkEngine
from projections.analytics.export import data_files, export
from projections.analytics.report import build_report, run_questions
from tests.analytics_oracle import figures
from tests.apps import copy_events

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT / "var" / "bench" / "events.db"  # bench/rebuild.py's store


def say(text: str) -> None:
    print(text, flush=True)


def sqlite(path: Path) -> dict[str, str]:
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}


def head(path: Path) -> int:
    if not path.exists():
        return 0
    app = Opus(env=sqlite(path))
    try:
        return app.recorder.max_notification_id() or 0
    finally:
        app.close()


def store(events: int, folder: Path, keep: bool) -> Path:
    """A SQLite store of at least ``events`` events: the shared bench store,
    or one simulated now (in memory, then copied)."""
    if head(SHARED) >= events:
        return SHARED
    target = SHARED if keep else folder / "events.db"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    say(f"simulating {events:,} events" + (f" (kept in {target})" if keep else ""))
    memory = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    seed = 0
    started = time.perf_counter()
    while (memory.recorder.max_notification_id() or 0) < events:
        simulate(memory, 50, 2 + seed % 4, "greedy", seed)
        seed += 1
        done = memory.recorder.max_notification_id() or 0
        say(f"  {done:,} events ({done / (time.perf_counter() - started):,.0f}/s)")
    app = Opus(env=sqlite(target))
    copy_events(memory, app)
    app.close()
    memory.close()
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--keep", action="store_true", help=f"keep a simulated store as {SHARED}")
    parser.add_argument("--spark", action="store_true", help="also the report by Spark (local)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="opus-analytics-bench-") as name:
        folder = Path(name)
        path = store(args.events, folder, args.keep)
        events, raw_rate = raw_read(sqlite(path))  # bench/rebuild.py's baseline
        raw_seconds = events / raw_rate
        say(f"\nstore: {path} ({events:,} events)")

        app = Opus(env=sqlite(path))
        out = folder / "parquet"
        run = export(app, out)
        app.close()
        export_rate = run.positions / run.seconds
        say("\nexport vs raw read")
        say(f"  raw read (select_notifications)  {raw_seconds:8.2f} s {raw_rate:>10,.0f} events/s")
        say(
            f"  export ({run.games:,} games)        {run.seconds:8.2f} s "
            f"{export_rate:>10,.0f} events/s  {export_rate / raw_rate:6.1%} of raw"
        )

        engine = DuckDBEngine(data_files(out))
        started = time.perf_counter()
        sql = run_questions(engine)
        sql_seconds = time.perf_counter() - started
        started = time.perf_counter()
        build_report(engine, out, folder / "report")
        report_seconds = time.perf_counter() - started
        engine.close()

        started = time.perf_counter()
        app = Opus(env=sqlite(path))
        reference = figures(read_records(app))
        app.close()
        python_seconds = time.perf_counter() - started
        assert {q: len(r.rows) for q, r in sql.items()} == {
            q: len(rows) for q, rows in reference.items()
        }

        say("\nthe figures: DuckDB on the export vs a Python pass over the store")
        say(f"  Python pass over the store        {python_seconds:8.2f} s")
        say(
            f"  DuckDB, every question's SQL      {sql_seconds:8.2f} s  "
            f"{python_seconds / sql_seconds:6.1f}x faster"
        )
        say(
            f"  DuckDB, the full report (+ files) {report_seconds:8.2f} s  "
            f"{python_seconds / report_seconds:6.1f}x faster"
        )
        say(
            f"  export + full report              {run.seconds + report_seconds:8.2f} s  "
            f"{python_seconds / (run.seconds + report_seconds):6.1f}x faster"
        )
        if args.spark:
            started = time.perf_counter()
            spark = SparkEngine(data_files(out))
            run_questions(spark)
            spark.close()
            say(f"  Spark (local[2], with start-up)   {time.perf_counter() - started:8.2f} s")
    if path != SHARED:
        shutil.rmtree(path.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
