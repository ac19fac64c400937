"""``opus clocks``: the clock scheduler as a process of its own (RULES.md
R11.4; infra/clock_scheduler.py), beside the API and the projector, on the
configured event store and views. ``opus serve`` runs it as a thread."""

from __future__ import annotations

import signal
import threading
from types import FrameType

import click

from infra.bootstrap import open_application, open_views
from infra.clock_scheduler import TICK_SECONDS, ClockScheduler
from infra.settings import Settings
from projections.queries import Queries


@click.command()
@click.option(
    "--tick",
    default=TICK_SECONDS,
    show_default=True,
    type=click.FloatRange(0.01, 5.0),
    help="Seconds between two looks at the running clocks.",
)
def clocks(tick: float) -> None:
    """Record each timed game's passed deadline (TimeExpired, R11.4), from
    the running clocks' view, until interrupted. Safe to run twice: a
    deadline is recorded once."""
    settings = Settings.from_env()
    app = open_application(settings)
    store = open_views(settings)
    views = Queries(store, shards=settings.shard_count)
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    scheduler = ClockScheduler(app, views, tick).start()
    click.echo(f"opus clocks: firing deadlines every {tick:g} s ({settings.views.describe()})")
    try:
        stopping.wait()
    finally:
        scheduler.stop()
        click.echo(f"opus clocks: stopped; {scheduler.fired} deadlines recorded")
        store.close()
        app.close()
