"""A runner whose subscription missed a wake-up (PostgreSQL's LISTEN can:
a NOTIFY sent while it subscribes) follows the log again by itself."""

from __future__ import annotations

import itertools
import queue
import threading
from pathlib import Path
from typing import Any

import pytest

from domain.application import Opus
from projections import runner as runner_module
from projections.runner import ProjectionRunner
from projections.sqlite_views import SQLiteViewStore
from projections.table import TableView
from tests.conftest import opener


def test_a_runner_left_behind_the_log_while_idle_follows_it_again(
    events_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = runner_module._read
    subscriptions = itertools.count()

    def deaf_after_two(subscription: Any, inbox: queue.Queue[Any], done: threading.Event) -> None:
        """The first subscription hands on two notifications, then hears nothing."""
        if next(subscriptions) > 0:
            return original(subscription, inbox, done)
        for n, item in enumerate(subscription):
            if n < 2:
                inbox.put(item)
            if done.is_set():
                return
        return None

    monkeypatch.setattr(runner_module, "_read", deaf_after_two)
    app = Opus(env=events_env)
    game_id = app.create_game()
    for name in ("Ada", "Boris", "Cleo"):
        app.join(game_id, name)
    head = app.recorder.max_notification_id() or 0
    store = SQLiteViewStore(str(tmp_path / "views.db"))
    runner = ProjectionRunner(TableView, store, opener(events_env), check_interval=0.1)
    try:
        with runner:
            runner.wait(head, timeout=10)  # two checks behind, then it follows again
    finally:
        store.close()
        app.close()
    assert next(subscriptions) >= 2
