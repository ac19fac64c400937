"""The placement rule of a sharded event store (domain/sharding.py)."""

from __future__ import annotations

import random
from collections import Counter
from uuid import UUID

import pytest

from domain.sharding import (
    game_shard,
    position_of,
    private_shard,
    shard_of,
    shard_position,
    tournament_shard,
    upstream_name,
)
from domain.tournaments.decide import game_id


def ids(count: int, seed: int) -> list[UUID]:
    rng = random.Random(seed)
    return [UUID(int=rng.getrandbits(128), version=4) for _ in range(count)]


def test_one_shard_is_todays_layout_everything_on_shard_0() -> None:
    assert {shard_of(key, 1) for key in ids(200, 1)} == {0}
    assert private_shard(1) == 0


def test_an_id_has_one_shard_in_every_process_and_release() -> None:
    # fixed vectors: a change to the rule would strand stored aggregates
    first = UUID("12345678-1234-5678-1234-567812345678")
    second = UUID("00000000-0000-4000-8000-000000000000")
    assert [shard_of(first, n) for n in (2, 3, 5, 7, 16)] == [1, 1, 3, 4, 9]
    assert [shard_of(second, n) for n in (2, 3, 5, 7, 16)] == [0, 0, 2, 6, 8]


def test_random_ids_spread_evenly_over_the_shards() -> None:
    counts = Counter(shard_of(key, 4) for key in ids(8000, 2))
    assert set(counts) == {0, 1, 2, 3}
    assert all(1800 <= count <= 2200 for count in counts.values()), counts


def test_a_tournaments_games_live_on_its_shard_a_lobby_game_on_its_own() -> None:
    moved = 0
    for tournament in ids(100, 3):
        for round_, table in [(1, 1), (1, 2), (2, 1), (5, 3)]:
            game = game_id(tournament, round_, table)
            assert game_shard(game, tournament, 4) == tournament_shard(tournament, 4)
            assert game_shard(game, None, 4) == shard_of(game, 4)
            moved += shard_of(game, 4) != tournament_shard(tournament, 4)
    assert moved > 0  # by its own id a tournament's game would often be elsewhere


def test_the_private_aggregates_live_on_the_home_shard() -> None:
    assert [private_shard(n) for n in (1, 2, 8)] == [0, 0, 0]


def test_there_is_at_least_one_shard() -> None:
    with pytest.raises(ValueError, match="one or more"):
        shard_of(ids(1, 4)[0], 0)
    with pytest.raises(ValueError, match="one or more"):
        private_shard(0)


@pytest.mark.parametrize("shards", [1, 2, 3, 7])
def test_a_position_names_its_shard_and_notification_and_keeps_each_shards_order(
    shards: int,
) -> None:
    seen = set()
    for shard in range(shards):
        previous = -1
        for local in range(0, 50):
            position = position_of(shard, local, shards)
            assert shard_position(position, shards) == (shard, local)
            assert position > previous
            previous = position
            seen.add(position)
    assert len(seen) == shards * 50  # no two notifications share a position


def test_one_shard_keeps_todays_positions_and_tracking_name() -> None:
    assert [position_of(0, n, 1) for n in range(5)] == [0, 1, 2, 3, 4]
    assert upstream_name(0) == "Opus"
    assert upstream_name(1) != upstream_name(0)


def test_a_position_outside_the_shards_is_refused() -> None:
    with pytest.raises(ValueError, match="no such shard"):
        position_of(2, 1, 2)
    with pytest.raises(ValueError, match="0 or more"):
        shard_position(-1, 2)
