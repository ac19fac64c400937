"""The read side's commands over shards (``OPUS_SHARDS``: two databases of
the shared PostgreSQL): a catch-up follows every shard, ``opus rebuild
--as-of`` takes a position of each shard, ``opus view --after`` waits for
the shard its position names."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from api.cli import main
from api.cli.read_side import catch_up
from domain.sharding import position_of, shard_of
from domain.simulation import play_game
from infra.bootstrap import open_application, open_views
from infra.settings import Settings
from infra.shards import shard_apps
from projections.queries import Queries
from tests.integration.test_shards import shards_env  # noqa: F401 (a fixture)

pytestmark = pytest.mark.postgres


def test_catch_up_rebuild_as_of_and_view_after_over_two_shards(
    shards_env: dict[str, str],  # noqa: F811
    tmp_path: Path,
) -> None:
    env = {**shards_env, "OPUS_VIEWS_DBNAME": str(tmp_path / "views.db")}
    settings = Settings.from_env(env)
    app = open_application(settings)
    rng = random.Random(3)
    try:
        games = [play_game(app, 2, "greedy", rng)[0] for _ in range(4)]
        while all(shard_of(game, 2) == 0 for game in games):
            games.append(play_game(app, 2, "greedy", rng)[0])
        heads = [shard.recorder.max_notification_id() or 0 for shard in shard_apps(app)]
    finally:
        app.close()
    head = catch_up(settings)
    assert head == max(position_of(k, local, 2) for k, local in enumerate(heads))
    store = open_views(settings)
    try:
        assert Queries(store, shards=2).lags("table", heads) == {0: 0, 1: 0}
    finally:
        store.close()
    on_shard_1 = position_of(1, heads[1], 2)
    rebuilt = CliRunner().invoke(main, ["rebuild", "table", "--as-of", str(on_shard_1)], env=env)
    assert rebuilt.exit_code == 0, rebuilt.output
    # shard 0 not named: as it stands now
    assert f"generation asof{heads[0]}-{heads[1]} " in rebuilt.output
    assert f"up to {heads[0]} of shard 0, {heads[1]} of shard 1 " in rebuilt.output
    twice = CliRunner().invoke(
        main, ["rebuild", "table", "--as-of", str(on_shard_1), "--as-of", "3"], env=env
    )
    assert twice.exit_code != 0 and "two positions of shard 1" in twice.output
    game = next(game for game in games if shard_of(game, 2) == 1)
    shown = CliRunner().invoke(
        main, ["view", "table", str(game), "--after", str(on_shard_1)], env=env
    )
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["status"] == "ended"
    too_far = CliRunner().invoke(
        main, ["view", "table", str(game), "--after", str(on_shard_1 + 2)], env=env
    )
    assert too_far.exit_code != 0 and "shard 1" in too_far.output
