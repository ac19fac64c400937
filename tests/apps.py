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


def sharded_app(folder: Path, env: dict[str, str | None]) -> Flask:
    """The app on the shards ``env`` names (``OPUS_SHARDS`` and the other
    PostgreSQL settings), its views in SQLite in ``folder``, no Redis, no
    projections or bots in its threads, its waits for a shard bounded to 1 s
    and no rate limit: a shard's outage seen from requests alone."""
    return create_app(
        {
            "PERSISTENCE_MODULE": None,
            "POSTGRES_DBNAME": None,
            "POSTGRES_HOST": None,
            "POSTGRES_PORT": None,
            "OPUS_VIEWS_DBNAME": str(folder / "views.db"),
            "REDIS_URL": None,
            "OPUS_RUN_PROJECTIONS": "0",
            "OPUS_BOTS": "0",
            "OPUS_STORE_TIMEOUT": "1",
            "OPUS_RATE_LIMIT": "0",
            # the shards' own receipts key: the signer's record of what it
            # signed is the key's, and these shards are fresh stores
            "OPUS_RECEIPTS_KEY_FILE": str(folder / "receipts.key"),
            **env,
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
