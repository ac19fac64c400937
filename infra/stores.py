"""Opening the application on its event store, from any process."""

from __future__ import annotations

import logging
import random
import time

from domain.application import Opus
from infra.config import ViewStoreSettings
from projections.ports import ViewStore
from projections.stores import open_view_store

log = logging.getLogger(__name__)
ATTEMPTS = 8


def open_application(env: dict[str, str]) -> Opus:
    """``Opus(env)``, retried: processes starting together (API workers,
    projection runners) race to create the PostgreSQL tables, and the loser
    gets a transient catalog error ("tuple concurrently updated")."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return Opus(env=env)
        except Exception as e:
            if attempt == ATTEMPTS or not _transient(e):
                raise
            log.warning("opening the event store failed (%s); retrying", e)
            time.sleep(0.05 * attempt + random.random() * 0.05)
    raise AssertionError("unreachable")


def _transient(error: BaseException) -> bool:
    text = str(error)
    return "concurrently updated" in text or "already exists" in text or "duplicate key" in text


def open_views(settings: ViewStoreSettings) -> ViewStore:
    """The view store the settings name (Redis or SQLite)."""
    return open_view_store(
        settings.kind,
        redis_url=settings.redis_url,
        redis_prefix=settings.redis_prefix,
        sqlite_path=settings.sqlite_path,
    )
