"""The export's ratings line bound to the log over two shards (issue 35,
item 5): the holdings are the home shard's accounts' events, each seat's
account taken at its place in the order across shards, so ``opus verify
--ratings --file`` on an export of both shards derives every seat's
account; a line whose two seats' accounts are swapped (every number
recomputed for them) fails, and a holding placed on shard 1, where no
account lives, is refused. Filled as tests/integration/test_sharded_ratings.py
fills its shards (two PostgreSQL databases)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.ratings import RatedGame, RatedSeat
from projections.ratings import RatingsView
from projections.rebuild import rebuild
from tests.integration.test_ratings_forgeries import forged
from tests.integration.test_sharded_ratings import Sharded, opus, sharded  # noqa: F401
from tests.integration.test_shards import shards_env  # noqa: F401 (a fixture)

pytestmark = pytest.mark.postgres


def test_an_export_of_two_shards_binds_its_seats_to_their_accounts(
    sharded: Sharded,  # noqa: F811
    tmp_path: Path,
) -> None:
    rebuild(sharded.store, sharded.shards.apps, [RatingsView])
    path = tmp_path / "log.ndjson"
    assert opus(sharded.env, "export", "--ratings", "--output", str(path)).exit_code == 0
    lines = path.read_text(encoding="utf-8").splitlines()
    carried = json.loads(lines[-1])["ratings"]
    assert carried["holdings"] and all(h["position"] % 2 == 0 for h in carried["holdings"])

    def verified(ratings: dict[str, object]) -> tuple[int, str]:
        changed = tmp_path / "changed.ndjson"
        changed.write_text("\n".join([*lines[:-1], json.dumps({"ratings": ratings})]) + "\n")
        done = opus(sharded.env, "verify", "--ratings", "--file", str(changed))
        return done.exit_code, done.output

    code, output = verified(carried)
    assert code == 0 and "ok   ratings of the export" in output, output
    last = carried["games"][-1]["game"]

    def swap(games: list[RatedGame]) -> list[RatedGame]:
        out = []
        for g in games:
            if g.game == last:
                first, second, *rest = g.seats
                g = RatedGame(
                    g.game,
                    g.position,
                    g.players,
                    (
                        RatedSeat(first.seat, second.account, first.place, first.withdrawn),
                        RatedSeat(second.seat, first.account, second.place, second.withdrawn),
                        *rest,
                    ),
                )
            out.append(g)
        return out

    code, output = verified(forged(carried, swap))
    assert code == 1 and f"({last}): seats" in output and "by the rules (R7.3)" in output
    moved = json.loads(json.dumps(carried))
    moved["holdings"][0]["position"] += 1  # an odd position: shard 1's
    code, output = verified(moved)
    assert code == 1 and "where the accounts are on shard 0" in output, output
