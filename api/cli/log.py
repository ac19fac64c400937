"""``opus verify`` and ``opus export``: the audit of DESIGN.md.

verify re-judges every game (domain/audit.py) from the live store or from an
exported file; export streams the log as NDJSON, one event a line, with
hidden information only for games that have ended.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from typing import IO

import click

from domain.audit import Record, Verdict, group_by_game, verify_game
from infra.bootstrap import open_application, open_views
from infra.eventlog import export_lines, read_records
from infra.settings import Settings
from projections.view_check import verify_views


@click.command()
@click.option("--game", "game_id", default=None, help="Verify only this game (its id).")
@click.option(
    "--file",
    "path",
    type=click.File("r", encoding="utf-8"),
    default=None,
    help="Verify an exported NDJSON log instead of the store ('-' reads stdin).",
)
@click.option(
    "--views/--no-views",
    default=True,
    show_default=True,
    help="Also check that each live view equals a clean rebuild (store mode only).",
)
def verify(game_id: str | None, path: IO[str] | None, views: bool) -> None:
    """Re-judge every game: versions, hash chain, and every move and point
    decided again by the rules; then check the views against a rebuild.
    Exits non-zero if anything fails."""
    app = None
    settings = Settings.from_env()
    if path is not None:
        records: Iterable[Record] = _read_ndjson(path)
    else:
        app = open_application(settings)
        records = read_records(app)
    if game_id is not None:
        records = (r for r in records if r.aggregate_id == game_id)
    games = group_by_game(records)
    if not games:
        raise click.ClickException(
            "no games in the log" + (f" with id {game_id}" if game_id else "")
        )
    verdicts: list[Verdict] = []
    with click.progressbar(
        games.values(), label="verifying", file=sys.stderr, show_pos=True
    ) as bar:
        for records_of_game in bar:
            verdicts.append(verify_game(records_of_game))
    for verdict in verdicts:
        click.echo(verdict.line())
    failed = sum(not v.ok for v in verdicts)
    click.echo(f"{len(verdicts)} games verified, {failed} failed")
    if app is not None and views and game_id is None:
        store = open_views(settings)
        try:
            view_verdicts = verify_views(store, app)
        finally:
            store.close()
        for view_verdict in view_verdicts:
            click.echo(view_verdict.line())
        failed += sum(not v.ok for v in view_verdicts)
    if failed:
        sys.exit(1)


def _read_ndjson(lines: IO[str]) -> Iterator[Record]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield Record.from_line(json.loads(line))
        except (ValueError, KeyError, TypeError) as e:
            raise click.ClickException(f"line {number} is not an exported event: {e}") from None


@click.command()
@click.option("--format", "format_", type=click.Choice(["ndjson"]), default="ndjson")
@click.option("--after", default=0, type=click.IntRange(min=0), help="Resume after this position.")
@click.option("--output", type=click.File("w", encoding="utf-8"), default="-")
def export(format_: str, after: int, output: IO[str]) -> None:
    """Stream the event log as NDJSON: position, aggregate_id, version, type,
    timestamp, payload, chain. Hidden information only for ended games."""
    app = open_application(Settings.from_env())
    for line in export_lines(app, after):
        output.write(line)
        output.write("\n")
