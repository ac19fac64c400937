"""Verification speed against plain replay of the same events.

Prints games verified per second and events/s by ``verify_game`` (versions,
hash chain, every move re-decided), next to the library's replay of the
same records (each made the domain event it records, with its UUID and
datetime, and mutated into the game: no chain, no re-decision), and the
ratio of the two rates.

The machine may be shared: both are timed in CPU seconds of this process
(time another process takes from it is not counted), in ``--rounds``
interleaved rounds, each round's ratio printed, then their median and the
ratio of the fastest rounds (each the least disturbed by the machine's
other work). Run: ``python bench/verify.py [--games N] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any
from uuid import UUID

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.application import Opus
from domain.audit import CREATED, GAME_TOPIC, Record, group_by_game, verify_game
from domain.events import EVENT_TYPES
from domain.simulation import simulate
from infra.eventlog import read_records


def library_event(record: Record) -> Any:
    """The domain event a record holds, made as the library's mapper makes
    it: its class, with a UUID and a datetime."""
    extra = {"originator_topic": GAME_TOPIC} if record.type in CREATED else {}
    return EVENT_TYPES[record.type](
        **extra,
        originator_id=UUID(record.aggregate_id),
        originator_version=record.version,
        timestamp=datetime.fromisoformat(record.timestamp),
        chain=record.chain,
        **(record.payload or {}),
    )


def replay_only(games: list[list[Record]]) -> float:
    """The baseline: every game replayed by the library's ``mutate``."""
    started = time.process_time()
    for records in games:
        game = None
        for record in records:
            game = library_event(record).mutate(game)
    return time.process_time() - started


def verify_all(games: list[list[Record]]) -> float:
    started = time.process_time()
    for records in games:
        assert verify_game(records).ok
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    simulate(app, args.games, 4, "greedy", seed=3)
    games = list(group_by_game(read_records(app)).values())
    app.close()
    events = sum(len(g) for g in games)
    print(f"{len(games)} games, {events} events; CPU seconds, {args.rounds} rounds")
    ratios, raws, judgeds = [], [], []
    for round_ in range(1, args.rounds + 1):
        raw = replay_only(games)
        judged = verify_all(games)
        ratios.append(raw / judged)
        raws.append(raw)
        judgeds.append(judged)
        print(
            f"round {round_}: replay {events / raw:9.0f} events/s ({raw / events * 1e6:5.2f} µs), "
            f"verify {events / judged:9.0f} events/s ({judged / events * 1e6:5.2f} µs, "
            f"{len(games) / judged:6.1f} games/s): {raw / judged:6.1%} of the replay rate"
        )
    print(f"median       {statistics.median(ratios):6.1%} of the replay rate")
    print(f"fastest      {min(raws) / min(judgeds):6.1%} of the replay rate")


if __name__ == "__main__":
    main()
