"""Verification speed against plain replay of the same events.

Prints games verified per second and events/s by ``verify_game`` (versions,
hash chain, every move re-decided), next to the raw replay of the same
records (decode into events and evolve the state only: no chain, no
re-decide), and the ratio. Run: ``python bench/verify.py [--games N]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.application import Opus
from domain.audit import Record, _event, group_by_game, verify_game
from domain.simulation import simulate
from infra.eventlog import read_records


def replay_only(games: list[list[Record]]) -> float:
    started = time.perf_counter()
    for records in games:
        game = None
        for record in records:
            game = _event(record).mutate(game)
    return time.perf_counter() - started


def verify_all(games: list[list[Record]]) -> float:
    started = time.perf_counter()
    for records in games:
        assert verify_game(records).ok
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    simulate(app, args.games, 4, "greedy", seed=3)
    games = list(group_by_game(read_records(app)).values())
    events = sum(len(g) for g in games)
    raw = replay_only(games)
    judged = verify_all(games)
    print(f"{len(games)} games, {events} events")
    print(f"replay only  {len(games) / raw:8.1f} games/s {events / raw:9.0f} events/s")
    print(f"verify       {len(games) / judged:8.1f} games/s {events / judged:9.0f} events/s")
    print(f"ratio        {raw / judged:8.1%} of the replay rate")


if __name__ == "__main__":
    main()
