"""Commands per second through the application service, against raw storage.

From one run it prints:
- game commands/s through ``Opus`` on SQLite and on PostgreSQL, next to a raw
  ``eventsourcing`` baseline: a plain Application on the same store saving
  the same events' fields, grouped the same way (one save per command), with
  an aggregate that has no rules and is never reloaded; and the ratio;
- for scale, the recorder floor: the same stored events inserted straight
  into the recorder, nothing mapped or triggered;
- whole simulated 4-player games per second in memory, per bot.

The games are recorded once in memory (bot choices excluded from the timing),
then replayed as commands. Run: ``python bench/commands.py [--games N]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.application import Opus
from domain.bots import BOTS
from domain.moves import Move
from domain.simulation import NAMES, simulate
from tests.settings import test_postgres_env

POSTGRES = test_postgres_env()


@dataclass
class Script:
    secret: bytes
    players: int
    moves: list[Move]


def record(games: int, players: int, seed: int) -> list[Script]:
    """Play games in memory with the greedy bot, keeping every move."""
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    rng = random.Random(seed)
    choose = BOTS["greedy"](rng)
    scripts = []
    for i in range(games):
        secret = i.to_bytes(32, "big")
        game_id = app.create_game(secret=secret)
        for name in NAMES[:players]:
            app.join(game_id, name)
        app.start(game_id)
        moves = []
        while (state := app.state(game_id)).status == "running":
            move = choose(state, state.turn)
            app.play(game_id, move)
            moves.append(move)
        scripts.append(Script(secret, players, moves))
    return scripts


Groups = list[tuple[uuid.UUID, list[int]]]


def replay(
    app: Opus, scripts: list[Script]
) -> tuple[int, float, list[tuple[uuid.UUID, list[int]]]]:
    """Run the recorded games as commands; returns commands, seconds, and per
    game the number of events each command stored."""
    commands = 0
    groups = []
    started = time.perf_counter()
    for script in scripts:
        game_id = app.create_game(secret=script.secret)
        sizes = [1]
        version = 1
        for name in NAMES[: script.players]:
            version = _step(sizes, version, app.join(game_id, name).version)
        version = _step(sizes, version, app.start(game_id).version)
        for move in script.moves:
            version = _step(sizes, version, app.play(game_id, move).version)
        commands += len(sizes)
        groups.append((game_id, sizes))
    return commands, time.perf_counter() - started, groups


def _step(sizes: list[int], before: int, after: int) -> int:
    sizes.append(after - before)
    return after


class Tally(Aggregate):
    """The least domain there is: an aggregate that records what it is given."""

    class Recorded(Aggregate.Event):
        kind: str
        fields: dict[str, Any]

    @event(Recorded)
    def record(self, kind: str, fields: dict[str, Any]) -> None:
        pass


class Baseline(Application[uuid.UUID]):
    """Plain ``eventsourcing``: triggers and saves, no rules, no reloading."""


def baseline_batches(app: Opus, groups: Groups) -> list[list[Any]]:
    """The game's own events, per command, to be saved again elsewhere."""
    batches = []
    for game_id, sizes in groups:
        events = list(app.events.get(game_id))
        at = 0
        for size in sizes:
            batches.append(events[at : at + size])
            at += size
    return batches


def framework_baseline(env: dict[str, str], batches: list[list[Any]]) -> float:
    """Save the same events' fields, grouped the same way, with plain
    eventsourcing: one Tally event per game event, one save per command, with
    the library's own recorder."""
    app = Baseline(env={k: v for k, v in env.items() if k != "APPLICATION_RECORDER_TOPIC"})
    payloads = [
        [
            (
                type(e).__name__,
                {k: v for k, v in vars(e).items() if not k.startswith("orig") and k != "timestamp"},
            )
            for e in batch
        ]
        for batch in batches
    ]
    started = time.perf_counter()
    tally = None
    for batch in payloads:
        if tally is None or tally.version > 300:  # a new aggregate per game's worth
            tally = Tally()
            batch = batch[1:]
        for kind, fields in batch:
            tally.record(kind, fields)
        app.save(tally)
    seconds = time.perf_counter() - started
    app.close()
    return seconds


def recorder_floor(app: Opus, batches: list[list[Any]]) -> float:
    """Insert the already-mapped stored events straight into the recorder."""
    stored_batches = []
    for batch in batches:
        stored = [app.mapper.to_stored_event(e) for e in batch]
        stored_batches.append(stored)
    ids: dict[uuid.UUID, uuid.UUID] = {}
    renamed = [
        [replace(s, originator_id=ids.setdefault(s.originator_id, uuid.uuid4())) for s in b]
        for b in stored_batches
    ]
    started = time.perf_counter()
    for stored in renamed:
        app.recorder.insert_events(stored)
    return time.perf_counter() - started


def store_run(label: str, env: dict[str, str], scripts: list[Script]) -> None:
    app = Opus(env=env)
    commands, seconds, groups = replay(app, scripts)
    events = sum(sum(s) for _, s in groups)
    batches = baseline_batches(app, groups)
    framework_seconds = framework_baseline(env, batches)
    floor_seconds = recorder_floor(app, batches)
    app.close()
    rate = commands / seconds
    framework_rate = len(batches) / framework_seconds
    floor_rate = len(batches) / floor_seconds
    print(
        f"{label:<9} {commands:>6} commands {events:>7} events | "
        f"service {rate:>6.0f}/s | raw eventsourcing {framework_rate:>6.0f}/s "
        f"ratio {rate / framework_rate:6.1%} | recorder floor {floor_rate:>6.0f}/s "
        f"ratio {rate / floor_rate:6.1%}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games replayed per store")
    parser.add_argument("--sim-games", type=int, default=100, help="games for games/s")
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()

    scripts = record(args.games, 4, seed=1)
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": f"{tmp}/b.db"}
        store_run("sqlite", sqlite, scripts)
    if not args.no_postgres:
        store_run("postgres", POSTGRES, scripts)
    for bot in sorted(BOTS):
        app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
        summary = simulate(app, args.sim_games, 4, bot, seed=2)
        print(
            f"in memory   {summary.games} 4-player games, {bot} bot: "
            f"{summary.games / summary.seconds:.1f} games/s "
            f"({summary.events / summary.seconds:.0f} events/s)"
        )


if __name__ == "__main__":
    main()
