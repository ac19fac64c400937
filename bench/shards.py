"""The sharded router's own cost: the same commands through one store and
through two shards, in one run.

The shards here are two databases of one PostgreSQL (``tests/settings.py``'s
server), and the one store a third database of it: what differs is only
the router (infra/shards.py: a call's shard decided from its events, a
read's from the ids it has learnt), not the servers' capacity (which
bench/capacity.py measures). From one run this prints:

1. commands/s of whole games played by bots (create, joins, start, moves)
   in one thread, through one store and through the router, rounds
   interleaved so that the machine's other load falls on both alike;
2. a process's first read of each game (its shard not yet learnt: asked of
   its id's shard, for a tournament's game then of the others) against the
   same reads on one store, and the same reads again, learnt.

Run: ``python bench/shards.py [--games 6] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from uuid import UUID

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domain.application import Opus  # noqa: E402
from domain.simulation import play_game  # noqa: E402
from infra.bootstrap import open_application  # noqa: E402
from infra.settings import Settings  # noqa: E402
from tests.settings import connect_test_postgres, test_postgres_env  # noqa: E402

PLAYERS = 3


@contextmanager
def databases(count: int) -> Iterator[list[str]]:
    """``count`` fresh databases of the shared PostgreSQL, dropped after."""
    names = [f"opus_bench_shards_{uuid.uuid4().hex[:8]}_{k}" for k in range(count)]
    with connect_test_postgres() as conn:
        for name in names:
            conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield names
    finally:
        with connect_test_postgres() as conn:
            for name in names:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def settings_of(names: list[str]) -> Settings:
    base = test_postgres_env()
    address = f"{base['POSTGRES_HOST']}:{base['POSTGRES_PORT']}"
    return Settings.from_env(
        {
            "POSTGRES_USER": base["POSTGRES_USER"],
            "POSTGRES_PASSWORD": base["POSTGRES_PASSWORD"],
            "OPUS_SHARDS": ",".join(f"{address}/{name}" for name in names),
        }
    )


def play(app: Opus, games: int, seed: int) -> tuple[float, list[UUID]]:
    """Commands/s of ``games`` whole games, and their ids."""
    rng = random.Random(seed)
    commands = 0
    ids = []
    started = time.perf_counter()
    for _ in range(games):
        game, moves = play_game(app, PLAYERS, "greedy", rng)
        commands += 1 + PLAYERS + 1 + moves  # create, joins, start, moves
        ids.append(game)
    return commands / (time.perf_counter() - started), ids


def reads(open_app: Callable[[], Opus], games: list[UUID]) -> tuple[float, float]:
    """Seconds a game of a fresh process's first read of each game, then of
    a second read (learnt, and the aggregate cached)."""
    app = open_app()
    try:
        started = time.perf_counter()
        for game in games:
            app.version(game)
        first = (time.perf_counter() - started) / len(games)
        started = time.perf_counter()
        for game in games:
            app.version(game)
        again = (time.perf_counter() - started) / len(games)
        return first, again
    finally:
        app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6, help="games a round, per layout")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with databases(3) as names:
        one_settings, sharded_settings = settings_of(names[:1]), settings_of(names[1:])
        one, sharded = open_application(one_settings), open_application(sharded_settings)
        rates: dict[str, list[float]] = {"one store": [], "2 shards": []}
        played: dict[str, list[UUID]] = {"one store": [], "2 shards": []}
        try:
            for round_ in range(args.rounds):
                for name, app in (("one store", one), ("2 shards", sharded)):
                    rate, ids = play(app, args.games, seed=round_)
                    rates[name].append(rate)
                    played[name].extend(ids)
        finally:
            one.close()
            sharded.close()
        one_reads = reads(lambda: open_application(one_settings), played["one store"])
        sharded_reads = reads(lambda: open_application(sharded_settings), played["2 shards"])
    base = statistics.median(rates["one store"])
    print(f"{args.games} games of {PLAYERS} bots a round, {args.rounds} rounds interleaved:")
    for name, found in rates.items():
        median = statistics.median(found)
        rounds = ", ".join(f"{r:.0f}" for r in found)
        print(f"  {name:9}  commands/s median {median:7.0f} (x{median / base:.2f})  [{rounds}]")
    print(f"reads of {len(played['one store'])} games by a fresh process (ms a game):")
    print("             first (shard not learnt)   again (learnt, cached)")
    for name, (first, again) in (("one store", one_reads), ("2 shards", sharded_reads)):
        ratio = f"x{first / one_reads[0]:.2f}"
        print(f"  {name:9}  {first * 1000:8.2f} {ratio:>8}            {again * 1000:8.3f}")


if __name__ == "__main__":
    main()
