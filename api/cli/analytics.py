"""``opus analytics``: the event log as Parquet, and the report over it
(projections/analytics/).

``export`` appends to the Parquet export whatever the log holds after the
last run (safe from cron while games are played: a game's rows are written
once it has ended); ``report`` runs every question's SQL by DuckDB (the
default) or Spark on the export and writes the report folder, whose
``report.json`` the HTTP service serves at ``GET /analytics/{question}``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from infra.bootstrap import log_heads, open_application
from infra.settings import Settings
from infra.shards import shard_apps
from projections.analytics import export_dir, report_dir
from projections.analytics.engines import ENGINES, open_engine
from projections.analytics.export import CHUNK_ROWS, Manifest, data_files
from projections.analytics.export import export as run_export
from projections.analytics.report import build_report
from projections.ratings import ledger_from_log


@click.group()
def analytics() -> None:
    """Analytics over the event log: a Parquet export and a report."""


@analytics.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The export's folder [default: $OPUS_ANALYTICS_DIR/parquet].",
)
@click.option(
    "--chunk-rows",
    default=CHUNK_ROWS,
    show_default=True,
    type=click.IntRange(min=1),
    help="Rows held in memory before a file is written.",
)
def export(out: Path | None, chunk_rows: int) -> None:
    """Append the log since the last export to the Parquet tables (game,
    seat, award, assembly, placement, steal, spell, turn, result): every
    game that has ended since, whole; running games wait for their end."""
    settings = Settings.from_env()
    folder = out if out is not None else export_dir(settings.analytics_dir)
    app = open_application(settings)
    try:
        logs = shard_apps(app)
        heads = log_heads(app)
        done = Manifest.load(folder).reached(len(logs))
        todo = sum(max(head - n, 0) for head, n in zip(heads, done, strict=True))
        with click.progressbar(
            length=todo, label="exporting", file=sys.stderr, show_pos=True
        ) as bar:
            run = run_export(logs, folder, progress=bar.update, chunk_rows=chunk_rows)
    except ValueError as e:
        raise click.ClickException(f"{folder}: {e}") from None
    except RuntimeError as e:
        raise click.ClickException(str(e)) from None
    finally:
        app.close()
    click.echo(f"store: {settings.describe_events()}")
    click.echo(f"export: {folder}")
    for line in run.lines():
        click.echo(line)


@analytics.command()
@click.option("--engine", type=click.Choice(ENGINES), default="duckdb", show_default=True)
@click.option(
    "--master",
    default=None,
    help="Spark's master URL (spark://host:7077, yarn, ...) [default: local[2]].",
)
@click.option(
    "--data",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The export's folder [default: $OPUS_ANALYTICS_DIR/parquet].",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The report's folder [default: $OPUS_ANALYTICS_DIR/report].",
)
@click.option(
    "--ratings/--no-ratings",
    default=True,
    show_default=True,
    help="Beside the seat advantage, the seat effects the ratings learn on the same games "
    "(recomputed from the event store up to the export's position).",
)
def report(
    engine: str, master: str | None, data: Path | None, out: Path | None, ratings: bool
) -> None:
    """Run every question on the export and write the report: index.html,
    a CSV per question, PNG charts, and report.json (what the API serves)."""
    settings = Settings.from_env()
    data = data if data is not None else export_dir(settings.analytics_dir)
    out = out if out is not None else report_dir(settings.analytics_dir)
    try:
        files = data_files(data)
        runner = open_engine(engine, files, master)
    except (FileNotFoundError, ValueError, RuntimeError) as e:
        raise click.ClickException(str(e)) from None
    seats = None
    if ratings:  # the ratings' seats, from the log up to where the export reached (each shard)
        app = open_application(settings)
        try:
            logs = shard_apps(app)
            ledger = ledger_from_log(logs, stop=Manifest.load(data).reached(len(logs)))
        except ValueError as e:  # an export of another layout
            raise click.ClickException(f"{data}: {e}") from None
        finally:
            app.close()
        seats = (ledger.params, ledger.seats())
    try:
        done = build_report(runner, data, out, seats)
    finally:
        runner.close()
    click.echo(
        f"{len(done.results)} questions over {done.games:,} games (log position "
        f"{done.position:,}) by {done.engine} in {done.seconds:.2f} s"
    )
    click.echo(f"report: {out / 'index.html'}")
