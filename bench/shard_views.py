"""The read side over two shards against one log holding the same kind of
games, in one run.

Rated games (accounts on the home shard, seats taken by them) are played
by two threads at once, on two SQLite event stores (the shards) and, for
the baseline, on one; then every projection is rebuilt from each (a
rebuild over shards reads them in runs chosen by projections/merge.py),
and a live runner catches every view up from nothing over each. It prints
each one's rate (events/s) and the shards' ratio to the one log's, and how
many games the ratings view rated again because they came late (a game
sorting before games rated already: what the runs nearly in time keep
few). Then, for the cost the order across shards saves, the ratings view
fed the two shards one after the other.

Run: ``python bench/shard_views.py [--games 40] [--rounds 2]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domain.application import Opus  # noqa: E402
from domain.bots import BOTS  # noqa: E402
from domain.pipeline import Caller  # noqa: E402
from infra.bootstrap import SUBSCRIBABLE_SQLITE_RECORDER, application_opener  # noqa: E402
from infra.settings import Settings  # noqa: E402
from projections.ratings import RatingsView  # noqa: E402
from projections.rebuild import rebuild, replay  # noqa: E402
from projections.registry import PROJECTIONS  # noqa: E402
from projections.runner import ProjectionRunner  # noqa: E402
from projections.sqlite_views import SQLiteViewStore  # noqa: E402
from projections.view import View  # noqa: E402

ACCOUNTS = 8

late: list[int] = []
_rate_again = RatingsView._rate_again


def counted(self: RatingsView, tx: Any, games: list[Any]) -> None:
    late.append(len(games))
    _rate_again(self, tx, games)


setattr(RatingsView, "_rate_again", counted)  # noqa: B010 (counts the late games)


def env(folder: Path, name: str) -> dict[str, str]:
    return {
        "PERSISTENCE_MODULE": "eventsourcing.sqlite",
        "SQLITE_DBNAME": str(folder / f"{name}.db"),
        "APPLICATION_RECORDER_TOPIC": SUBSCRIBABLE_SQLITE_RECORDER,
    }


def play(app: Opus, holders: list[str], games: int, seed: int) -> None:
    rng = random.Random(seed)
    for n in range(games):
        seats = rng.sample(holders, rng.randint(2, 4))
        game = app.create_game(secret=rng.randbytes(32))
        for k, digest in enumerate(seats):
            app.join(game, f"P{k}", caller=Caller(digest))
        app.start(game)
        choose = BOTS["greedy"](random.Random(seed * 1000 + n))
        while (state := app.state(game)).status == "running":
            app.play(game, choose(state, state.turn), caller=Caller(seats[state.turn]))


def fill(apps: list[Opus], games: int) -> None:
    """Accounts on the first application; two threads playing at once, one
    on each application (the same one twice for one log)."""
    home = apps[0]
    holders = [
        home.accounts.view(home.accounts.open(f"A{n}").account).holder_hash for n in range(ACCOUNTS)
    ]
    players = [
        threading.Thread(target=play, args=(apps[k % len(apps)], holders, games, k + 1))
        for k in range(2)
    ]
    for player in players:
        player.start()
    for player in players:
        player.join()


def events_in(apps: list[Opus]) -> int:
    return sum(app.recorder.max_notification_id() or 0 for app in apps)


def timed_rebuild(folder: Path, apps: list[Opus]) -> tuple[float, int]:
    store = SQLiteViewStore(str(folder / f"views-{time.time_ns()}.db"))
    late.clear()
    started = time.perf_counter()
    rebuild(store, apps if len(apps) > 1 else apps[0], list(PROJECTIONS.values()))
    seconds = time.perf_counter() - started
    store.close()
    return events_in(apps) / seconds, sum(late)


def timed_catch_up(folder: Path, envs: list[dict[str, str]], apps: list[Opus]) -> float:
    store = SQLiteViewStore(str(folder / f"views-{time.time_ns()}.db"))
    openers = [application_opener(Settings.from_env(e)) for e in envs]
    heads = [app.recorder.max_notification_id() or 0 for app in apps]
    runner = ProjectionRunner(list(PROJECTIONS.values()), store, openers)
    started = time.perf_counter()
    with runner:
        runner.wait_heads(heads, timeout=600)
    seconds = time.perf_counter() - started
    store.close()
    return events_in(apps) / seconds


def one_after_the_other(folder: Path, apps: list[Opus]) -> tuple[float, int]:
    """The ratings view fed shard 0's log whole, then shard 1's."""
    store = SQLiteViewStore(str(folder / f"views-{time.time_ns()}.db"))
    projection = RatingsView(View(store, "ratings", "g0", fresh=True, shards=2))
    late.clear()
    started = time.perf_counter()
    for shard, app in enumerate(apps):
        replay(app, [projection], 0, app.recorder.max_notification_id() or 0, shard=shard)
    seconds = time.perf_counter() - started
    store.close()
    return seconds, sum(late)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games each thread plays")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="opus-shard-views-") as name:
        folder = Path(name)
        envs = [env(folder, "shard0"), env(folder, "shard1")]
        one_env = env(folder, "one")
        shards = [Opus(env=e) for e in envs]
        one = [Opus(env=one_env)]
        fill(shards, args.games)
        fill(one, args.games)
        print(f"two shards: {events_in(shards):,} events; one log: {events_in(one):,} events")
        rates: dict[str, list[float]] = {}
        for _ in range(args.rounds):
            for label, apps, envs_of in (("one log", one, [one_env]), ("two shards", shards, envs)):
                rate, rated_again = timed_rebuild(folder, apps)
                rates.setdefault(f"rebuild, {label}", []).append(rate)
                rates.setdefault(f"late games in a rebuild, {label}", []).append(rated_again)
                rates.setdefault(f"catch-up, {label}", []).append(
                    timed_catch_up(folder, envs_of, apps)
                )
        for label, values in rates.items():
            print(f"  {label:<38} {statistics.median(values):>10,.0f}")
        for what in ("rebuild", "catch-up"):
            ratio = statistics.median(rates[f"{what}, two shards"]) / statistics.median(
                rates[f"{what}, one log"]
            )
            print(f"  {what}: two shards x{ratio:.2f} of one log (events/s)")
        seconds, rated_again = one_after_the_other(folder, shards)
        print(
            f"  the ratings view fed one shard after the other: {seconds:.2f} s, "
            f"{rated_again} games rated again in late batches"
        )
        for app in [*shards, *one]:
            app.close()


if __name__ == "__main__":
    main()
