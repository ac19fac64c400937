"""``opus project``, ``opus rebuild`` and ``opus view``: the read side's
commands; and ``project_views``, which the commands that write games
(``opus simulate``, ``opus tournament simulate``) run after writing.

The event store comes from eventsourcing's variables (PERSISTENCE_MODULE,
SQLITE_DBNAME, POSTGRES_*); the view store is Redis when REDIS_URL is set,
else a SQLite file (OPUS_VIEWS_DBNAME, by default next to the events). Both
are opened by infra/bootstrap.py from infra/settings.py's Settings.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
from dataclasses import replace
from types import FrameType
from typing import Any

import click

from domain.sharding import position_of, shard_position
from infra.bootstrap import (
    log_heads,
    open_application,
    open_views,
    projection_runner,
    rebuild_workers,
)
from infra.settings import (
    DEFAULT_REBUILD_BATCH_SIZE,
    DEFAULT_RECONNECT_TIMEOUT,
    DEFAULT_RUNNER_BATCH_SIZE,
    Settings,
)
from infra.shards import shard_apps
from projections.ports import ViewStoreError
from projections.queries import Queries
from projections.rebuild import rebuild as run_rebuild
from projections.registry import PROJECTIONS, select
from projections.runner import ProjectionError

NAMES = click.Choice(sorted(PROJECTIONS))
CATCH_UP_PATIENCE = 60.0  # seconds a catch-up may go on without any view moving
JOIN_SECONDS = 5.0  # how long a stopped catch-up runner is waited for


def catch_up(settings: Settings) -> int:
    """Every projection brought up to the log's head as it stands now by one
    runner, as ``opus serve``'s catches up when it starts, then stopped;
    returns that position. A view already there is left as it is, and a
    runner beside it (``opus project``) is harmless: each commit is a
    compare-and-set on the view's position. Waits as long as the views move
    on; raises the runner's error when a projection fails, TimeoutError when
    no view has moved for ``CATCH_UP_PATIENCE`` seconds."""
    runner = projection_runner(settings, list(PROJECTIONS.values()))
    heads = runner.heads()  # each shard's
    head = max(position_of(k, local, len(heads)) for k, local in enumerate(heads))
    queries = Queries(runner.store, shards=runner.shards)
    runner.start()
    try:
        progress = -1
        while True:
            try:
                runner.wait_heads(heads, timeout=CATCH_UP_PATIENCE)
                return head
            except TimeoutError:
                now = sum(
                    queries.position(name, shard=k) or 0
                    for name in PROJECTIONS
                    for k in range(runner.shards)
                )
                if now <= progress:
                    raise
                progress = now
    finally:
        runner.stop()
        runner.join(JOIN_SECONDS)
        if not runner.is_running:
            runner.store.close()


def project_views(settings: Settings) -> None:
    """After a command wrote games: the views brought up to them (``catch_up``)
    where ``opus serve`` would project them (``OPUS_RUN_PROJECTIONS``, on by
    default), so that ``opus verify`` finds them whole; else a line saying
    they are ``opus project``'s. A catch-up that fails is the command's
    error: the games are stored, the views are not up to date."""
    if not settings.run_projections:
        click.echo("views: not projected (OPUS_RUN_PROJECTIONS=0): `opus project` brings them up")
        return
    try:
        position = catch_up(settings)
    except Exception as e:  # the runner's own error, whatever the store: a message, not a trace
        raise click.ClickException(
            f"the games are stored, but the views could not be brought up to them: {e}; "
            "run `opus project` (or `opus rebuild`)"
        ) from e
    click.echo(
        f"views: {len(PROJECTIONS)} brought up to position {position} ({settings.views.describe()})"
    )


def batch_size_option(default: int, what: str) -> Any:
    """``--batch-size``: how many events a view commits together."""
    return click.option(
        "--batch-size",
        default=default,
        show_default=True,
        type=click.IntRange(min=1),
        help=f"Events committed together {what}.",
    )


@click.command()
@click.argument("projections", nargs=-1, type=NAMES)
@batch_size_option(DEFAULT_RUNNER_BATCH_SIZE, "while catching up")
@click.option(
    "--reconnect-timeout",
    default=DEFAULT_RECONNECT_TIMEOUT,
    show_default=True,
    help="Seconds to keep retrying an unreachable view store or event store before failing.",
)
def project(projections: tuple[str, ...], batch_size: int, reconnect_timeout: float) -> None:
    """Run the projections (all, or those named) on one subscription: catch
    up from each view's tracked position, then follow the log live, until
    interrupted.

    A projection that fails stops them all and the command exits 1, naming
    the projection and the failing position; run it again to resume exactly
    there.
    """
    settings = replace(
        Settings.from_env(), runner_batch_size=batch_size, reconnect_timeout=reconnect_timeout
    )
    classes = select(projections)
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    runner = projection_runner(settings, classes)
    click.echo(
        f"projecting {runner.name}: events {settings.describe_events()} "
        f"-> views {settings.views.describe()}"
    )
    runner.start()
    try:
        while not stopping.is_set() and runner.is_running:
            stopping.wait(0.2)
    except KeyboardInterrupt:
        pass
    runner.stop()
    runner.join()
    runner.store.close()
    if runner.error is not None:
        click.echo(f"error: {runner.error}", err=True)
        sys.exit(1)
    click.echo("stopped")


@click.command()
@click.argument("projections", nargs=-1, type=NAMES)
@click.option(
    "--as-of",
    "as_of_given",
    multiple=True,
    type=click.IntRange(min=0),
    help="Build the views as they stood at this position, beside the live ones; with "
    "shards, repeated: each position names its shard (a shard not named: as it stands now).",
)
@click.option(
    "--blue-green",
    is_flag=True,
    help="Build into a fresh generation, then swap it in atomically.",
)
@batch_size_option(DEFAULT_REBUILD_BATCH_SIZE, "in a rebuild")
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Processes to share the projections out among.",
)
def rebuild(
    projections: tuple[str, ...],
    as_of_given: tuple[int, ...],
    blue_green: bool,
    batch_size: int,
    workers: int,
) -> None:
    """Rebuild projections (all, or those named) from the log.

    In place, each projection's live views are dropped and replayed: stop
    'opus project' first, or use --blue-green, which leaves the live views
    serving until the new ones are complete.
    """
    if as_of_given and blue_green:
        raise click.UsageError("--as-of builds a view beside the live one; it is never swapped in")
    settings = replace(Settings.from_env(), rebuild_batch_size=batch_size)
    store = open_views(settings)
    app = open_application(settings)
    try:
        apps = shard_apps(app)
        as_of = as_of_positions(as_of_given, apps)
        ends = log_heads(app) if as_of is None else [as_of] if isinstance(as_of, int) else as_of
        length = max(sum(ends), 1)
        with click.progressbar(length=length, label="rebuilding", file=sys.stderr) as bar:
            done = run_rebuild(
                store,
                apps if len(apps) > 1 else app,
                select(projections),
                as_of=as_of,
                blue_green=blue_green,
                batch_size=settings.rebuild_batch_size,
                progress=bar.update,
                workers=rebuild_workers(settings, workers),
            )
    except (ViewStoreError, ProjectionError) as e:
        raise click.ClickException(str(e)) from e
    finally:
        app.close()
        store.close()
    reached = f"position {done.position}"
    if len(done.positions) > 1:
        reached = ", ".join(f"{local} of shard {k}" for k, local in enumerate(done.positions))
    click.echo(
        f"rebuilt {', '.join(done.projections)} into generation {done.generation} "
        f"of {settings.views.describe()} up to {reached} "
        f"in {done.seconds:.2f} s ({done.rate:,.0f} positions/s; {done.events} events read)"
    )
    if as_of is not None:
        click.echo(f"read it with: opus view KIND ... --generation {done.generation}")


def as_of_positions(given: tuple[int, ...], apps: list[Any]) -> int | list[int] | None:
    """``--as-of``: one position of the one log; with shards, each shard's
    notification, from the positions given (each names its shard), a shard
    not named as its log stands now."""
    if not given:
        return None
    if len(apps) == 1:
        if len(given) > 1:
            raise click.UsageError("--as-of: one position (the event store is not split)")
        return given[0]
    ends: dict[int, int] = {}
    for position in given:
        shard, local = shard_position(position, len(apps))
        if shard in ends:
            raise click.UsageError(f"--as-of: two positions of shard {shard}")
        ends[shard] = local
    return [
        ends[k] if k in ends else (shard_app.recorder.max_notification_id() or 0)
        for k, shard_app in enumerate(apps)
    ]


@click.command()
@click.argument(
    "kind", type=click.Choice(["table", "hand", "scoreboard", "log", "leaderboard", "position"])
)
@click.argument("target", required=False)
@click.option("--seat", type=int, help="The seat, for 'hand'.")
@click.option("--generation", help="Read this generation (e.g. asof1234) instead of the live one.")
@click.option("--after", type=int, help="Wait until the view has reached this position.")
def view(
    kind: str, target: str | None, seat: int | None, generation: str | None, after: int | None
) -> None:
    """Print a view as JSON: 'table GAME', 'hand GAME --seat N',
    'scoreboard GAME', 'log GAME', 'leaderboard', or 'position PROJECTION'."""
    settings = Settings.from_env()
    store = open_views(settings)
    queries = Queries(store, shards=settings.shard_count)
    options: dict[str, Any] = {"generation": generation, "after": after}
    try:
        if kind == "leaderboard":
            result: Any = queries.leaderboard(**options)
        elif target is None:
            raise click.UsageError(f"'{kind}' needs a game id (or a projection for 'position')")
        elif kind == "position":
            result = queries.position(target, generation=generation)
        elif kind == "table":
            result = queries.table_view(target, **options)
        elif kind == "hand":
            if seat is None:
                raise click.UsageError("'hand' needs --seat")
            result = queries.hand(target, seat, **options)
        elif kind == "scoreboard":
            result = queries.scoreboard(target, **options)
        else:
            result = queries.move_log(target, **options)
    except (ViewStoreError, TimeoutError) as e:
        raise click.ClickException(str(e)) from e
    finally:
        store.close()
    click.echo(json.dumps(result, indent=2, ensure_ascii=False))
