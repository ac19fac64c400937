"""Analytics over the event log: a read model of ended games as Parquet
tables (``export``), questions answered in SQL by DuckDB or Spark
(``engines``, ``sql/``), and a report of tables and charts (``report``).

- ``tables``: the row builders, one pass over an ended game's events
  (the open part of the table from ``domain.table``, the rest from the
  events' own fields), and the tables' schemas.
- ``export``: the incremental export with its manifest (what has been
  exported up to which log position, file by file).
- ``engines``: the same SQL files on DuckDB (embedded, the default) or
  Spark (local mode or ``--master``).
- ``report``: every question run, then an HTML page, CSV and JSON per
  question and PNG charts.
"""

from pathlib import Path

EXPORT_FOLDER = "parquet"  # under the analytics folder (OPUS_ANALYTICS_DIR)
REPORT_FOLDER = "report"


def export_dir(analytics_dir: str | Path) -> Path:
    return Path(analytics_dir) / EXPORT_FOLDER


def report_dir(analytics_dir: str | Path) -> Path:
    return Path(analytics_dir) / REPORT_FOLDER
