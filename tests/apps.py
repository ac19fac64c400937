"""The HTTP app as tests build it: embedded, on SQLite files in a folder."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from api.app import create_app


def embedded_app(folder: Path, *, run_projections: bool) -> Flask:
    """The app on a SQLite event store and SQLite views in ``folder``, with
    no Redis; ``run_projections``: the projections run in its threads."""
    return create_app(
        {
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": str(folder / "events.db"),
            "OPUS_VIEWS_DBNAME": str(folder / "views.db"),
            "REDIS_URL": None,
            "OPUS_RUN_PROJECTIONS": "1" if run_projections else "0",
        }
    )
