"""What domain/internals.py takes from eventsourcing below its public API:
each test fails if a 9.x release changes the part it relies on."""

from __future__ import annotations

from domain.application import Opus
from domain.events import PlayerJoined
from domain.internals import event_from_fields, evict


def test_evict_drops_the_cached_aggregate_and_the_next_read_loads_it_again() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game_id = app.create_game()
    cached = app.repository.get(game_id)
    assert app.repository.get(game_id) is cached  # the cache answers
    evict(app, game_id)
    again = app.repository.get(game_id)
    assert again is not cached and again.version == cached.version
    evict(app, game_id)
    evict(app, game_id)  # evicting what is not cached is harmless


def test_an_event_made_from_fields_equals_the_one_the_mapper_decodes() -> None:
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    game_id = app.create_game()
    app.join(game_id, "Ada", "x")
    notification = app.recorder.select_notifications(0, 10)[-1]
    decoded = app.mapper.to_domain_event(notification)
    made = event_from_fields(PlayerJoined, dict(vars(decoded)))
    assert type(made) is PlayerJoined and vars(made) == vars(decoded)
    assert made.name == "Ada" and made.originator_version == decoded.originator_version
    before = app.repository.get(game_id, version=1)
    made.mutate(before)  # applies like any event
    assert before.state.names == ["Ada"] and before.version == 2
