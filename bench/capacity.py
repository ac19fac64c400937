"""The write side's capacity: one PostgreSQL, then two shards.

Every save takes the events table's lock (it keeps the notification log
gap-free, infra/postgres_recorder.py), so one PostgreSQL serves one save at
a time. From one run this prints:

1. one save's time alone (one game, nothing else writing): the lock's hold
   time and a round trip, an upper bound of the hold time;
2. the commands/s of one PostgreSQL with 1, 2, 4, 8 games played at once
   (a process each, as API workers are), and each save's time: its growth
   over (1) is the wait for the lock (and for the cores);
3. the same 8 games placed on 2 PostgreSQL servers by the shard rule
   (domain/sharding.py: a lobby game by its own id), each its own log: the
   save time and the lock wait against (2) at 8, same run.

Both servers are private (tests/private_servers.py: initdb on a free port),
with ``fsync=on`` and ``synchronous_commit=on`` (a commit waits for its WAL
flush while the lock is held, as in production), on this machine's cores:
the shards share them, so the rate cannot double here; the lock wait is
what falls. Run: ``python bench/capacity.py [--seconds 6]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from domain.application import Opus  # noqa: E402
from domain.pipeline import Caller, id_for  # noqa: E402
from domain.sharding import shard_of  # noqa: E402
from infra.bootstrap import POSTGRES_RECORDER  # noqa: E402
from tests.private_servers import PostgresServer, postgres_bin  # noqa: E402


class DurableServer(PostgresServer):
    """A private PostgreSQL whose commits wait for their WAL flush."""

    def start(self) -> DurableServer:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} "
            "-c fsync=on -c synchronous_commit=on -c max_connections=100"
        )
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "log"),
            "-w",
            "start",
        )
        return self


def store_env(server: PostgresServer) -> dict[str, str]:
    return {**server.env, "APPLICATION_RECORDER_TOPIC": POSTGRES_RECORDER}


def play(env: dict[str, str], command: str, seconds: float, start_at: float, out: Any) -> None:
    """Play games on ``env`` from ``start_at`` for ``seconds``: the number of
    commands and each save's time (``insert_events``, lock included)."""
    app = Opus(env=env)
    recorder: Any = app.recorder
    insert = recorder.insert_events
    saves: list[float] = []

    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return insert(*args, **kwargs)
        finally:
            saves.append(time.perf_counter() - began)

    rng = random.Random(command)
    games = 0

    def new_game() -> Any:
        nonlocal games
        games += 1
        caller = Caller(command=f"{command}-{games}")
        game_id = app.create(caller=caller).aggregate_id
        app.join(game_id, "Ada")
        app.join(game_id, "Boris")
        app.start(game_id)
        return game_id

    game_id = new_game()  # before the clock: the first game's setup
    while time.time() < start_at:
        time.sleep(0.005)
    recorder.insert_events = timed
    commands = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = app.state(game_id)
        if state.status != "running":
            game_id = new_game()
            commands += 4
            continue
        moves = app.legal_moves(game_id, state.turn)
        app.play(game_id, rng.choice(moves))
        commands += 1
    app.close()
    out.put((commands, saves))


class LockSampler:
    """How many backends wait for a lock, sampled on each server every 5 ms
    while the games are played: by Little's law, the mean
    count times the time over the saves is the mean lock wait of a save."""

    def __init__(self, envs: list[dict[str, str]]) -> None:
        import psycopg

        self.connections = [
            psycopg.connect(
                host=env["POSTGRES_HOST"],
                port=env["POSTGRES_PORT"],
                dbname=env["POSTGRES_DBNAME"],
                user=env["POSTGRES_USER"],
                autocommit=True,
            )
            for env in envs
        ]
        self.samples: list[int] = []
        self.stop = threading.Event()
        self.window = (0.0, 0.0)
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        query = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
        start, end = self.window
        while not self.stop.is_set():
            now = time.time()
            if start <= now <= end:
                waiting = 0
                for connection in self.connections:
                    waiting += connection.execute(query).fetchone()[0]
                self.samples.append(waiting)
            time.sleep(0.005)

    def mean_waiting(self) -> float:
        return statistics.fmean(self.samples) if self.samples else 0.0

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for connection in self.connections:
            connection.close()


def placed_commands(label: str, games: int, shards: int) -> list[tuple[str, int]]:
    """Command ids of ``games`` first games, spread evenly over the shards
    their ids place them on (the rule decides; the bench picks ids)."""
    chosen: list[tuple[str, int]] = []
    quota = {shard: -(-games // shards) for shard in range(shards)}
    k = 0
    while len(chosen) < games:
        command = f"{label}-g{k}"
        shard = shard_of(id_for(f"{command}-1"), shards)
        if quota[shard] > 0:
            quota[shard] -= 1
            chosen.append((command, shard))
        k += 1
    return chosen


def run(envs: list[dict[str, str]], games: int, seconds: float, label: str) -> dict[str, float]:
    """``games`` processes, each game on the shard of its id among ``envs``."""
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    chosen = placed_commands(label, games, len(envs))
    commands_ids = [command for command, _ in chosen]
    placed = [shard for _, shard in chosen]
    start_at = time.time() + 3.0  # every process opened and its game set up
    sampler = LockSampler(envs)
    sampler.window = (start_at, start_at + seconds)
    sampler.thread.start()
    processes = [
        context.Process(target=play, args=(envs[shard], c, seconds, start_at, out))
        for c, shard in zip(commands_ids, placed, strict=True)
    ]
    for process in processes:
        process.start()
    results = [out.get(timeout=seconds + 120) for _ in processes]
    for process in processes:
        process.join(30)
    sampler.close()
    commands = sum(r[0] for r in results)
    saves = sorted(s for r in results for s in r[1])
    return {
        # Little's law: lock-waiting backends on average x the time / the saves
        "wait_ms": sampler.mean_waiting() * seconds / len(saves) * 1000,
        "per_s": commands / seconds,
        "p50_ms": statistics.median(saves) * 1000,
        "p90_ms": saves[int(len(saves) * 0.9)] * 1000,
        "split": float(sum(placed)),  # games on shard 1
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args()
    bin_dir = postgres_bin()
    if bin_dir is None:
        sys.exit("PostgreSQL's initdb and pg_ctl are not installed")
    servers = [DurableServer(bin_dir), DurableServer(bin_dir)]
    try:
        for server in servers:
            server.start()
        for server in servers:  # the tables, made once before the processes race
            Opus(env=store_env(server)).close()
        two = [{**store_env(server), "CREATE_TABLE": "n"} for server in servers]
        one = two[:1]
        rows = {}
        for games in (1, 2, 4, 8):
            rows[games] = run(one, games, args.seconds, f"one{games}")
        sharded = run(two, 8, args.seconds, "two8")
    finally:
        for server in servers:
            server.remove()
    alone = rows[1]["p50_ms"]
    print(f"one save alone (lock hold time and a round trip): p50 {alone:.2f} ms")
    print("one PostgreSQL:")
    print("  games  commands/s  save p50 ms  save p90 ms  lock wait ms/save (mean)")
    for games, row in rows.items():
        print(
            f"  {games:5d}  {row['per_s']:10.0f}  {row['p50_ms']:11.2f}  "
            f"{row['p90_ms']:11.2f}  {row['wait_ms']:24.3f}"
        )
    eight = rows[8]
    wait_one, wait_two = eight["wait_ms"], sharded["wait_ms"]
    print(f"8 games on 2 shards ({8 - sharded['split']:.0f} and {sharded['split']:.0f} games):")
    print(
        f"  commands/s {sharded['per_s']:.0f} (x{sharded['per_s'] / eight['per_s']:.2f} "
        f"of one PostgreSQL), save p50 {sharded['p50_ms']:.2f} ms, "
        f"p90 {sharded['p90_ms']:.2f} ms (x{sharded['p90_ms'] / eight['p90_ms']:.2f})"
    )
    print(
        f"  lock wait {wait_two:.3f} ms a save (mean) against {wait_one:.3f} ms on one "
        f"(x{wait_two / wait_one if wait_one else float('nan'):.2f})"
    )


if __name__ == "__main__":
    main()
