"""Opening a view store by kind (the settings come from infra/config.py)."""

from __future__ import annotations

from projections.ports import ViewStore


def open_view_store(
    kind: str, *, redis_url: str = "", redis_prefix: str = "opus:", sqlite_path: str = ""
) -> ViewStore:
    """A Redis or SQLite view store; Redis's client is imported only if used."""
    if kind == "redis":
        from projections.redis_views import RedisViewStore

        return RedisViewStore(redis_url, redis_prefix)
    if kind == "sqlite":
        from projections.sqlite_views import SQLiteViewStore

        return SQLiteViewStore(sqlite_path)
    raise ValueError(f"no view store of kind {kind!r}")
