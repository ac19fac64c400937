"""The HTTP app as tests build it: embedded, on SQLite files in a folder."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from api.app import create_app
from domain.application import Opus
from infra.settings import EMBEDDED_DEFAULTS


def embedded_app(folder: Path, *, run_projections: bool) -> Flask:
    """The app on a SQLite event store and SQLite views in ``folder``, with
    no Redis, serving event streams as ``opus serve`` does;
    ``run_projections``: the projections run in its threads."""
    return create_app(
        {
            **EMBEDDED_DEFAULTS,
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(folder / "events.db"),
            "OPUS_VIEWS_DBNAME": str(folder / "views.db"),
            "REDIS_URL": None,
            "OPUS_RUN_PROJECTIONS": "1" if run_projections else "0",
        }
    )


def copy_events(source: Opus, target: Opus) -> None:
    """Every event of ``source``'s log into ``target``'s, page by page (a
    log simulated in memory, kept in a file)."""
    position = 0
    while True:
        page = source.recorder.select_notifications(position, 5000, inclusive_of_start=False)
        if not page:
            return
        target.recorder.insert_events(list(page))
        position = page[-1].id
