"""The SQLite view store's reads fail as the port says, as Redis's do."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from projections.ports import ViewStoreUnavailableError
from projections.sqlite_views import SQLiteViewStore


def test_a_read_the_file_cannot_answer_is_a_view_store_unavailable_error(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "views.db")
    store = SQLiteViewStore(path)
    try:
        assert store.get("table.g0", "x") is None
        other = sqlite3.connect(path)
        for table in ("view_docs", "view_lists", "view_zsets", "view_tracking"):
            other.execute(f"DROP TABLE {table}")
        other.commit()
        other.close()
        for read in (
            lambda: store.get("table.g0", "x"),
            lambda: store.items("move_log.g0", "x"),
            lambda: store.scores("leaderboard.g0", "wins"),
            lambda: store.position("table.g0", "Opus"),
            lambda: store.dump("table.g0"),
            store.namespaces,
        ):
            with pytest.raises(ViewStoreUnavailableError, match=r"views\.db"):
                read()
    finally:
        store.close()
