"""The SQL engines that answer the questions: the same SQL text on the same
Parquet files, by DuckDB (embedded, the default) or Spark (``pyspark``, the
``spark`` extra: local mode, or a cluster through ``master``).

Each table of the export is a view named as the table, over exactly the
files the export's manifest lists. The SQL in ``sql/`` keeps to what both
accept: no engine-specific functions, double literals written with an
exponent (``1.0E0``), integer sums divided only after a ``CAST(... AS
DOUBLE)``, every result ordered by a full key. With a cluster, the files
must be at a path every executor reads (a shared file system).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

ENGINES = ("duckdb", "spark")
LOCAL_MASTER = "local[2]"


@dataclass(frozen=True)
class Answer:
    """One question's answer: column names and rows, in the query's order."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]

    def dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


class Engine(Protocol):
    name: str

    def run(self, sql: str) -> Answer: ...

    def close(self) -> None: ...


def _plain(value: Any) -> Any:
    """Values as Python's plain types, whichever engine gave them."""
    if isinstance(value, Decimal):
        return float(value)
    return value


class DuckDBEngine:
    name = "duckdb"

    def __init__(self, files: Mapping[str, Sequence[Path]]) -> None:
        import duckdb

        self.connection = duckdb.connect()
        for table, paths in files.items():
            listed = ", ".join("'" + str(p).replace("'", "''") + "'" for p in paths)
            self.connection.execute(
                f"CREATE VIEW {table} AS SELECT * FROM read_parquet([{listed}])"
            )

    def run(self, sql: str) -> Answer:
        cursor = self.connection.execute(sql)
        columns = tuple(d[0] for d in cursor.description)
        rows = tuple(tuple(_plain(v) for v in row) for row in cursor.fetchall())
        return Answer(columns, rows)

    def close(self) -> None:
        self.connection.close()


class SparkEngine:
    """Spark SQL over the same files; ``session`` reuses a running one (the
    caller then stops it), else one is started on ``master``."""

    name = "spark"

    def __init__(
        self,
        files: Mapping[str, Sequence[Path]],
        master: str | None = None,
        session: Any = None,
    ) -> None:
        self.owned = session is None
        self.spark = session if session is not None else spark_session(master or LOCAL_MASTER)
        for table, paths in files.items():
            frame = self.spark.read.parquet(*(str(p) for p in paths))
            frame.createOrReplaceTempView(table)

    def run(self, sql: str) -> Answer:
        frame = self.spark.sql(sql)
        columns = tuple(frame.columns)
        rows = tuple(tuple(_plain(v) for v in row) for row in frame.collect())
        return Answer(columns, rows)

    def close(self) -> None:
        if self.owned:
            self.spark.stop()


def spark_session(master: str = LOCAL_MASTER) -> Any:
    """A Spark session for the questions: no UI, few shuffle partitions (the
    tables are small next to what Spark's defaults assume), quiet logs."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise RuntimeError(
            "the Spark engine needs pyspark: pip install 'opus[spark]' (and Java 17)"
        ) from None
    session = (
        SparkSession.builder.master(master)
        .appName("opus-analytics")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def open_engine(
    kind: str, files: Mapping[str, Sequence[Path]], master: str | None = None
) -> Engine:
    if kind == "duckdb":
        if master is not None:
            raise ValueError("--master is for the Spark engine")
        return DuckDBEngine(files)
    if kind == "spark":
        return SparkEngine(files, master)
    raise ValueError(f"unknown engine {kind!r}: one of {', '.join(ENGINES)}")
