"""What domain/internals.py takes from eventsourcing below its public API:
each test fails if a 9.x release changes the part it relies on."""

from __future__ import annotations

from domain.application import Opus
from domain.internals import evict


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
