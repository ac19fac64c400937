"""How the cost of a move grows: with the game's length, and over many games.

From one run it prints:
- the p50/p99 time of a move through the application service (SQLite file
  store, warm aggregate cache) early in games (their first 50 events)
  against late in the same games (past ``--late`` events), and the ratio
  (aim ≤ 1.2); and what a cold load costs: the same late moves with the
  game evicted from the cache before each, so it is read and replayed;
- the resident memory (RSS) of the process while it plays ``--games`` whole
  games, sampled as it goes: the caches are bounded, so after warm-up it
  must stay flat (a leak shows as growth).

Games of greedy bots end before 1,000 events (about 350–500 with the Guild),
so "late" is the longest stretch games have. Run: ``python bench/growth.py
[--games 10000] [--sample 500]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.layout import percentile
from domain.application import Opus
from domain.bots import BOTS
from domain.internals import evict
from domain.simulation import NAMES, play_game


def rss_mib() -> float:
    """The process's resident memory now (not its peak)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * 4096 / 2**20


def move_times(
    app: Opus, games: int, late: int, seed: int
) -> tuple[list[float], list[float], list[float]]:
    """Early and late move times (warm), and late ones after an eviction (cold)."""
    rng = random.Random(seed)
    choose = BOTS["greedy"](rng)
    early: list[float] = []
    warm: list[float] = []
    cold: list[float] = []
    for i in range(games):
        game_id = app.create_game(secret=i.to_bytes(32, "big"))
        for name in NAMES[:4]:
            app.join(game_id, name)
        app.start(game_id)
        state = app.state(game_id)
        while state.status == "running":
            move = choose(state, state.turn)
            version = app.version(game_id)
            is_cold = version > late and rng.random() < 0.3
            if is_cold:
                evict(app, game_id)
            started = time.perf_counter()
            app.play(game_id, move)
            took = time.perf_counter() - started
            if version <= 50:
                early.append(took)
            elif version > late:
                (cold if is_cold else warm).append(took)
            state = app.state(game_id)
    return early, warm, cold


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=10_000, help="games for the memory run")
    parser.add_argument("--sample", type=int, default=500, help="games between RSS samples")
    parser.add_argument("--timed-games", type=int, default=60)
    parser.add_argument("--late", type=int, default=300, help="a move is late past this version")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        app = Opus(
            {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": f"{folder}/t.db"}
        )
        early, warm, cold = move_times(app, args.timed_games, args.late, seed=1)
        ms = 1000
        print(f"moves through the service, {args.timed_games} 4-player games (SQLite file store)")
        for label, values in (
            ("first 50 events", early),
            (f"past {args.late} (warm)", warm),
            (f"past {args.late} (cold)", cold),
        ):
            print(
                f"  {label:<22} n={len(values):>5}  p50 {statistics.median(values) * ms:6.2f} ms"
                f"  p99 {percentile(values, 0.99) * ms:6.2f} ms"
            )
        ratio = percentile(warm, 0.99) / percentile(early, 0.99)
        print(f"  late/early p99, warm:  {ratio:.2f} (aim ≤ 1.2)")
        print(f"  cold/warm p50 late:    {statistics.median(cold) / statistics.median(warm):.1f}x")
        app.close()

        app = Opus(
            {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": f"{folder}/m.db"}
        )
        rng = random.Random(2)
        print(f"\nRSS while playing {args.games} games through one process")
        samples: list[tuple[int, float]] = [(0, rss_mib())]
        started = time.perf_counter()
        for i in range(1, args.games + 1):
            play_game(app, 4, "greedy", rng, secret=(10**6 + i).to_bytes(32, "big"))
            if i % args.sample == 0:
                samples.append((i, rss_mib()))
                rate = i / (time.perf_counter() - started)
                print(
                    f"  {i:>6} games  RSS {samples[-1][1]:7.1f} MiB  ({rate:.1f} games/s)",
                    flush=True,
                )
        # warm once the aggregate cache (Opus.env AGGREGATE_CACHE_MAXSIZE) is full
        cache = int(Opus.env["AGGREGATE_CACHE_MAXSIZE"])
        warm_at = next((s for s in samples if s[0] >= 2 * cache), samples[-1])
        growth = samples[-1][1] - warm_at[1]
        print(f"  after warm-up ({warm_at[0]} games): {growth:+.1f} MiB to game {samples[-1][0]}")
        app.close()


if __name__ == "__main__":
    main(sys.argv[1:])
