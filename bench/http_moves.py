"""Game moves over HTTP through gunicorn, against the in-process service.

From one run it prints commands/s and p50/p99 latency of the move POSTs with
16 concurrent clients (each playing its own game: ask for the legal moves,
post one) through gunicorn on PostgreSQL + Redis, next to the same loop run
in-process against the application service on the same store, and the ratio.
Run: ``python bench/http_moves.py [--clients 16] [--moves 60]``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.layout import POSTGRES, api_command, free_port, stop, wait_ready  # noqa: E402
from domain.application import Opus  # noqa: E402
from domain.moves import move_to_dict  # noqa: E402
from tests.moves_http import move_from_dict, move_request  # noqa: E402


def http_client(base: str, moves: int, rng: random.Random, latencies: list[float]) -> int:
    s = requests.Session()
    created = s.post(f"{base}/games", json={}).json()
    game = created["game_id"]
    tokens = [
        s.post(f"{base}/games/{game}/players", json={"name": n}).json()["token"]
        for n in ("Ada", "Boris")
    ]
    s.post(
        f"{base}/games/{game}/start",
        headers={"Authorization": f"Bearer {created['organiser_token']}"},
    ).raise_for_status()
    done = 0
    seat = 0
    while done < moves:
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = s.get(f"{base}/games/{game}/legal-moves", headers=auth).json()["moves"]
        if not legal:
            break
        kind, body = move_request(rng.choice(legal))
        started = time.perf_counter()
        r = s.post(f"{base}/games/{game}/{kind}", json=body, headers=auth)
        latencies.append(time.perf_counter() - started)
        r.raise_for_status()
        done += 1
        if kind != "cast":
            seat = 1 - seat
    return done


def chunks(items: range, size: int) -> list[list[int]]:
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def client_batch(base: str, moves: int, ks: list[int]) -> tuple[list[int], list[float]]:
    """A few clients, one thread each, in one process."""
    latencies: list[float] = []
    counts: list[int] = []
    threads = [
        threading.Thread(
            target=lambda k=k: counts.append(http_client(base, moves, random.Random(k), latencies))
        )
        for k in ks
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return counts, latencies


def in_process(env: dict[str, str], games: int, moves: int, seed: int) -> tuple[int, float]:
    app = Opus(env=env)
    rng = random.Random(seed)
    done = 0
    started = time.perf_counter()
    for _ in range(games):
        game = app.create_game()
        app.join(game, "Ada")
        app.join(game, "Boris")
        app.start(game)
        for _ in range(moves):
            state = app.state(game)
            legal = app.legal_moves(game, state.turn)
            if not legal:
                break
            # The same work as the HTTP client: the move goes through its JSON form.
            app.play(game, move_from_dict(move_to_dict(rng.choice(legal))))
            done += 1
    seconds = time.perf_counter() - started
    app.close()
    return done, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--moves", type=int, default=60, help="moves per client game")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    port = free_port()
    env = {
        **os.environ,
        **POSTGRES,
        "REDIS_URL": "redis://127.0.0.1:6379/0",
        "OPUS_RUN_PROJECTIONS": "0",
    }
    server = subprocess.Popen(api_command(port, args.workers, 8), cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        # Up is enough: no projector runs here, so /readyz may report lagging views.
        wait_ready(base, [server], path="/healthz")
        # Clients run in separate processes (four threads each), so the load
        # generator is not held back by one interpreter's lock.
        started = time.perf_counter()
        with multiprocessing.Pool(max(1, args.clients // 4)) as pool:
            results = pool.starmap(
                client_batch,
                [(base, args.moves, ks) for ks in chunks(range(args.clients), 4)],
            )
        seconds = time.perf_counter() - started
        counts = [n for done, _ in results for n in done]
        latencies = [x for _, lat in results for x in lat]
    finally:
        stop([server])
    http_rate = sum(counts) / seconds
    q = statistics.quantiles(latencies, n=100)
    local_done, local_seconds = in_process(POSTGRES, args.clients, args.moves, seed=1)
    local_rate = local_done / local_seconds
    print(f"gunicorn ({args.workers} workers x 8 threads), {args.clients} clients, PostgreSQL")
    print(
        f"http        {sum(counts):>6} moves {http_rate:8.0f} moves/s  "
        f"p50 {q[49] * 1000:6.1f} ms  p99 {q[98] * 1000:6.1f} ms (move POSTs)"
    )
    print(f"in-process  {local_done:>6} moves {local_rate:8.0f} moves/s  (one thread)")
    print(f"ratio       {http_rate / local_rate:8.1%} of the in-process rate")


if __name__ == "__main__":
    main()
