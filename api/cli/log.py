"""``opus verify`` and ``opus export``: the audit of DESIGN.md.

verify re-judges every game (domain/audit.py) and derives every tournament
again (domain/tournaments/verify.py, TOURNAMENT.md T10.1) from the live store
or from an exported file; export streams the log as NDJSON, one event a
line, with hidden information only for games that have ended (and
tournaments that have finished), or one tournament with its games.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any
from uuid import UUID

import click

from api.cli.ratings import ratings_line, verify_ratings
from domain.audit import Record, Verdict, group_by_game, verify_game
from domain.tournaments.verify import TournamentVerdict, is_tournament, verify_tournament
from infra.bootstrap import open_application, open_views
from infra.eventlog import export_lines, read_records, tournament_lines, tournament_records
from infra.settings import Settings
from infra.shards import shard_apps
from projections.view_check import verify_views

VIEWS_HINT = (
    "the views are checked against the log: bring them up to it with `opus project` "
    "(or build them again: `opus rebuild`), or verify the events alone with --no-views"
)


@click.command()
@click.option("--game", "game_id", default=None, help="Verify only this game (its id).")
@click.option(
    "--tournament",
    "tournament_id",
    default=None,
    help="Verify this tournament and its games (T10.1): every pairing, result and seal.",
)
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
@click.option(
    "--ratings",
    is_flag=True,
    help="Also recompute every rating from the games and compare (within 1e-9): the "
    "ratings view, or the ratings an export carries (`opus export --ratings`).",
)
@click.option(
    "--receipts",
    "receipts_dir",
    type=click.Path(exists=True, file_okay=False),
    default=None,
    help="Instead: hold the receipts and checkpoints players kept in this folder against "
    "each other and the log; print any two signed statements that contradict.",
)
@click.option(
    "--key",
    "vkeys",
    multiple=True,
    help="With --receipts: the server's vkey(s), current and retired (default: those the "
    "folder's trust.json files pinned; none pinned and none given: refused).",
)
def verify(
    game_id: str | None,
    tournament_id: str | None,
    path: IO[str] | None,
    views: bool,
    ratings: bool,
    receipts_dir: str | None,
    vkeys: tuple[str, ...],
) -> None:
    """Re-judge every game: versions, hash chain, and every move and point
    decided again by the rules; every tournament's pairings, results and
    seals derived again (TOURNAMENT.md T10.1); then check the views against
    a rebuild. Exits non-zero if anything fails. With --receipts DIR: prove
    or refute that the server misbehaved (README, Receipts)."""
    if game_id is not None and tournament_id is not None:
        raise click.UsageError("give --game or --tournament, not both")
    if ratings and (game_id is not None or tournament_id is not None):
        raise click.UsageError(
            "--ratings recomputes the whole log's ratings: no --game or --tournament"
        )
    settings = Settings.from_env()
    if receipts_dir is not None:
        from api.cli.receipts import verify_receipts

        # the global log's leaves are every public event: the live store has them
        # all, an export may start after a position (so its checkpoints are not checked)
        source: Iterable[Record] = (
            _read_ndjson(path) if path is not None else read_records(open_application(settings))
        )
        whole_log = path is None
        if verify_receipts(receipts_dir, source, vkeys, whole_log, settings.shard_count):
            sys.exit(1)
        return
    if tournament_id is not None:
        _verify_one_tournament(tournament_id, path, settings)
        return
    app = None
    carried: list[dict[str, Any]] = []  # the ratings an export carries
    if path is not None:
        records: Iterable[Record] = _read_ndjson(path, carried)
    else:
        app = open_application(settings)
        records = read_records(app)
    groups = group_by_game(records)
    if game_id is not None:
        if game_id in groups and is_tournament(groups[game_id]):
            _verify_one_tournament(game_id, None, settings, groups)
            return
        groups = {game_id: groups[game_id]} if game_id in groups else {}
    if not groups:
        raise click.ClickException(
            "no games in the log" + (f" with id {game_id}" if game_id else "")
        )
    verdicts, tournaments = _verify_groups(groups)
    for verdict in verdicts:
        click.echo(verdict.line())
    for tournament in tournaments:
        click.echo(tournament.line())
    failed = sum(not v.ok for v in verdicts)
    click.echo(f"{len(verdicts)} games verified, {failed} failed")
    if tournaments:
        failed_tournaments = sum(not t.ok for t in tournaments)
        click.echo(f"{len(tournaments)} tournaments verified, {failed_tournaments} failed")
        failed += failed_tournaments
    if app is not None and views and game_id is None:
        store = open_views(settings)
        try:
            view_verdicts = verify_views(store, shard_apps(app))
        finally:
            store.close()
        for view_verdict in view_verdicts:
            click.echo(view_verdict.line())
        if not all(v.ok for v in view_verdicts):
            click.echo(VIEWS_HINT)
        failed += sum(not v.ok for v in view_verdicts)
    if ratings:
        every = [record for group in groups.values() for record in group]
        ok, lines = verify_ratings(settings, app, every, carried)
        for line in lines:
            click.echo(line)
        failed += not ok
    if failed:
        sys.exit(1)


def _verify_groups(
    groups: dict[str, list[Record]],
) -> tuple[list[Verdict], list[TournamentVerdict]]:
    """A verdict per game, in the order the games first appear in the log,
    and one per tournament: a tournament's games are judged with it (T10.1)."""
    tournaments = {k: v for k, v in groups.items() if is_tournament(v)}
    judged: dict[str, Verdict] = {}
    tournament_verdicts: list[TournamentVerdict] = []
    with click.progressbar(
        length=len(groups), label="verifying", file=sys.stderr, show_pos=True
    ) as bar:
        for records in tournaments.values():
            verdict = verify_tournament(records, groups)
            tournament_verdicts.append(verdict)
            for game in verdict.games:
                if game.aggregate_id in groups and game.aggregate_id not in judged:
                    judged[game.aggregate_id] = game
                    bar.update(1)
            bar.update(1)
        verdicts: list[Verdict] = []
        for aggregate, records in groups.items():
            if aggregate in tournaments:
                continue
            if aggregate not in judged:
                judged[aggregate] = verify_game(records)
                bar.update(1)
            verdicts.append(judged[aggregate])
    return verdicts, tournament_verdicts


def _verify_one_tournament(
    tournament_id: str,
    path: IO[str] | None,
    settings: Settings,
    groups: dict[str, list[Record]] | None = None,
) -> None:
    """``--tournament``: the tournament and its games, from the store (as it
    stands at one moment) or from an export (``tournament_lines``)."""
    games: Mapping[str, list[Record]]
    if groups is not None:
        records, games = groups.get(tournament_id, []), groups
    elif path is not None:
        games = group_by_game(_read_ndjson(path))
        records = games.get(tournament_id, [])
    else:
        try:
            key = UUID(tournament_id)
        except ValueError:
            raise click.ClickException(f"{tournament_id!r} is not a tournament's id") from None
        records, games = tournament_records(open_application(settings), key)
    if not records or not is_tournament(records):
        raise click.ClickException(f"no tournament in the log with id {tournament_id}")
    verdict = verify_tournament(records, games)
    for game in verdict.games:
        click.echo(game.line())
    click.echo(verdict.line())
    failed = sum(not v.ok for v in verdict.games)
    click.echo(f"{len(verdict.games)} games verified, {failed} failed")
    if not verdict.ok:
        click.echo(f"first difference: {verdict.reason}")
        sys.exit(1)
    if failed:
        sys.exit(1)


def _read_ndjson(lines: IO[str], ratings: list[dict[str, Any]] | None = None) -> Iterator[Record]:
    """The exported events; a ratings line (``opus export --ratings``) goes
    to ``ratings``."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
            if isinstance(doc, dict) and "ratings" in doc and "type" not in doc:
                if ratings is not None:
                    ratings.append(doc["ratings"])
                continue
            yield Record.from_line(doc)
        except (ValueError, KeyError, TypeError) as e:
            raise click.ClickException(f"line {number} is not an exported event: {e}") from None


@click.command()
@click.option("--format", "format_", type=click.Choice(["ndjson"]), default="ndjson")
@click.option(
    "--after",
    multiple=True,
    type=click.IntRange(min=0),
    help="Resume after this position; with shards, give each shard's last position "
    "exported (each position names its shard; a shard not named starts over).",
)
@click.option("--output", type=click.File("w", encoding="utf-8"), default="-")
@click.option(
    "--tournament",
    "tournament_id",
    default=None,
    help="Export only this tournament and its games (for `opus verify --tournament --file`).",
)
@click.option(
    "--ratings",
    is_flag=True,
    help='End with the ratings as recorded (one line: {"ratings": …}), for '
    "`opus verify --ratings --file`.",
)
def export(
    format_: str, after: tuple[int, ...], output: IO[str], tournament_id: str | None, ratings: bool
) -> None:
    """Stream the event log as NDJSON: position, aggregate_id, version, type,
    timestamp, payload, chain. Hidden information only for ended games (and
    finished tournaments); with --ratings, then the ratings. With shards,
    shard by shard (each line's position names its shard)."""
    settings = Settings.from_env()
    if ratings and (after or tournament_id is not None):
        raise click.UsageError("--ratings goes with the whole log: no --after or --tournament")
    # read before the log, so the log exported holds every game they rate
    carried = ratings_line(settings) if ratings else None
    app = open_application(settings)
    if tournament_id is not None:
        if after:
            raise click.UsageError("--after is for the whole log, not --tournament")
        try:
            key = UUID(tournament_id)
        except ValueError:
            raise click.ClickException(f"{tournament_id!r} is not a tournament's id") from None
        lines = tournament_lines(app, key)
    else:
        lines = export_lines(app, after)
    for line in lines:
        output.write(line)
        output.write("\n")
    if carried is not None:
        output.write(carried)
        output.write("\n")
