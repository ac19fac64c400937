"""domain.internals.positions_by_version on the real stores: it reads the
library's own events table, so a 9.x schema change fails here."""

from __future__ import annotations

from domain.application import Opus
from domain.internals import positions_by_version


def test_positions_by_version_match_the_log(app: Opus) -> None:
    game_id = app.create_game()
    app.join(game_id, "Ada")
    other = app.create_game()
    app.join(game_id, "Boris")
    app.join(other, "Cleo")
    last = app.recorder.max_notification_id() or 0
    log = app.recorder.select_notifications(0, last + 1)
    expected = {n.originator_version: n.id for n in log if n.originator_id == game_id}
    assert len(expected) == 3
    assert positions_by_version(app, game_id) == expected


def test_positions_by_version_is_none_in_memory() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    assert positions_by_version(app, app.create_game()) is None
