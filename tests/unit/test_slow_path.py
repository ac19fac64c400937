"""The tests' slow path (tests/slow_path.py) makes what the library makes:
the integration tests hold the read side's fast path to it."""

from __future__ import annotations

from domain.application import Opus
from domain.events import PlayerJoined
from domain.game import Game
from projections.base import record_of
from tests.slow_path import event_of


def test_an_event_made_from_its_record_equals_the_one_the_mapper_decodes() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game_id = app.create_game()
    app.join(game_id, "Ada", "x")
    notification = app.recorder.select_notifications(0, 10)[-1]
    decoded = app.mapper.to_domain_event(notification)
    cls, _, _, fields = record_of(decoded)
    made = event_of(cls, fields)
    assert type(made) is PlayerJoined and vars(made) == vars(decoded)
    assert made.name == "Ada" and made.originator_version == decoded.originator_version
    before: Game = app.repository.get(game_id, version=1)
    made.mutate(before)  # applies like any event
    assert before.state.names == ["Ada"] and before.version == 2
