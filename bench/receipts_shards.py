"""Receipts over shards: what a command's receipt and a global log per shard
cost, and how far each shard's published checkpoint is behind its log.

The same bot games are played through two shards (two databases of one
PostgreSQL, ``tests/settings.py``'s server) with receipts off and on, and
through one store with receipts on, rounds interleaved so that the
machine's other load falls on each alike. With receipts on, every command
gets its receipt (one signature) and a publisher thread per global log
appends, signs and keeps a checkpoint every interval. From one run this
prints:

1. commands/s of whole games in one thread, each layout against two shards
   without receipts (the baseline, measured in the same run);
2. right after one more game on each layout with receipts, how long each
   of its global logs took to publish a checkpoint of its whole log (the
   publishers woken then; a publisher steps at most once an interval, 0.5 s,
   so up to that is expected).

Run: ``python bench/receipts_shards.py [--games 4] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.shards import databases, settings_of  # noqa: E402
from domain.application import Opus  # noqa: E402
from domain.simulation import play_game  # noqa: E402
from domain.transparency.formats import SignedCheckpoint  # noqa: E402
from infra.bootstrap import open_application  # noqa: E402
from infra.receipts.service import Receipts, open_receipts  # noqa: E402
from infra.receipts.settings import ReceiptsSettings  # noqa: E402

PLAYERS = 3
WAIT = 30.0  # seconds a log may take to publish its whole tree


def play(app: Opus, games: int, seed: int) -> float:
    """Commands/s of ``games`` whole games."""
    rng = random.Random(seed)
    commands = 0
    started = time.perf_counter()
    for _ in range(games):
        _game, moves = play_game(app, PLAYERS, "greedy", rng)
        commands += 1 + PLAYERS + 1 + moves  # create, joins, start, moves
    return commands / (time.perf_counter() - started)


def publishing_lag(receipts: Receipts) -> list[float]:
    """Seconds each global log took, once woken, to publish its whole log."""
    started = time.monotonic()
    receipts.wake()
    lags = []
    for log in receipts.logs:
        head = log.sequencer.app.recorder.max_notification_id() or 0
        while True:
            note = log.store.checkpoint()
            size, position = log.store.state()
            done = note is not None and SignedCheckpoint.parse(note).checkpoint.size == size
            if done and position >= head:
                lags.append(time.monotonic() - started)
                break
            if time.monotonic() - started > WAIT:
                raise TimeoutError(f"{log.origin} published nothing of its whole log in {WAIT} s")
            time.sleep(0.01)
    return lags


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="games a round, per layout")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with databases(5) as names, tempfile.TemporaryDirectory() as keys:
        on = replace(ReceiptsSettings(), key_file=f"{keys}/receipts.key", name="bench.opus")
        apps = {
            "2 shards, off": open_application(settings_of(names[0:2])),
            "2 shards, on": open_application(settings_of(names[2:4])),
            "1 store, on": open_application(settings_of(names[4:5])),
        }
        receipts = {
            name: open_receipts(on, app, run_publisher=True)
            for name, app in apps.items()
            if name.endswith("on")
        }
        rates: dict[str, list[float]] = {name: [] for name in apps}
        try:
            for round_ in range(args.rounds):
                for name, app in apps.items():
                    rates[name].append(play(app, args.games, seed=round_))
            lags = {}
            for name, r in receipts.items():  # each right after a game of its own
                assert r is not None
                play(apps[name], 1, seed=args.rounds)
                lags[name] = publishing_lag(r)
        finally:
            for r in receipts.values():
                if r is not None:
                    r.close()
            for app in apps.values():
                app.close()
    base = statistics.median(rates["2 shards, off"])
    print(f"{args.games} games of {PLAYERS} bots a round, {args.rounds} rounds interleaved:")
    for name, found in rates.items():
        median = statistics.median(found)
        rounds = ", ".join(f"{r:.0f}" for r in found)
        print(f"  {name:14} commands/s median {median:6.0f} (x{median / base:.2f})  [{rounds}]")
    print("each global log's whole tree published, right after a game on it:")
    for name, found in lags.items():
        print(
            f"  {name:14} "
            + ", ".join(f"log {k}: {lag * 1000:.0f} ms" for k, lag in enumerate(found))
        )


if __name__ == "__main__":
    main()
