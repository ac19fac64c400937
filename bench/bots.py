"""How strong each bot is: win shares at tables of mixed bots, in memory.

Each table plays ``--games`` whole games through the application service
(``domain.simulation.play_out``: every move by its seat's token), each bot
deciding on what its seat knows (``domain.bots.knowledge``), as the
service's bots do. The bots' seats turn round from one game to the next, so
that each bot sits first as often (R2.1: seat 0 has an edge). A shared win
counts as a share. Printed per table: each kind's win share, against the
share it would have if all played alike (its seats over the table's), with
a 95 % interval, its mean score, and the milliseconds a decision takes.

Run: ``python bench/bots.py [--games N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.application import Opus
from domain.bots import BOTS, Bot, knowledge
from domain.moves import Move
from domain.pipeline import Caller
from domain.simulation import play_out, token_hash
from domain.state import GameState

TABLES: tuple[tuple[str, ...], ...] = (
    ("shrewd", "greedy", "greedy", "greedy"),
    ("shrewd", "random", "random", "random"),
    ("greedy", "random", "random", "random"),
    ("shrewd", "greedy"),
    ("shrewd", "greedy", "random"),
)


@dataclass
class Tally:
    games: int = 0
    wins: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    points: Counter[str] = field(default_factory=Counter)
    decisions: Counter[str] = field(default_factory=Counter)
    seconds: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))


def play_table(app: Opus, kinds: tuple[str, ...], games: int, seed: int) -> Tally:
    rng = random.Random(seed)
    tally = Tally()
    for number in range(games):
        turn = number % len(kinds)
        seated = kinds[turn:] + kinds[:turn]  # the seats turn round
        bots = [BOTS[kind](random.Random(rng.random())) for kind in seated]
        hashes = [token_hash(f"bench-bots:{seed}:{number}:{seat}") for seat in range(len(kinds))]
        secret = hashlib.sha256(f"bench-bots:{seed}:{number}".encode()).digest()
        game_id = app.create_game(secret=secret)
        for seat, digest in enumerate(hashes):
            app.join(game_id, f"{seated[seat]} {seat + 1}", caller=Caller(digest))
        app.start(game_id)

        def choose(
            state: GameState, seat: int, bots: list[Bot] = bots, seated: tuple[str, ...] = seated
        ) -> Move:
            started = time.perf_counter()
            move = bots[seat](knowledge(state, seat), seat)
            tally.seconds[seated[seat]] += time.perf_counter() - started
            tally.decisions[seated[seat]] += 1
            return move

        play_out(app, game_id, hashes, choose)
        state = app.state(game_id)
        tally.games += 1
        for winner in state.winners:
            tally.wins[seated[winner]] += 1 / len(state.winners)
        for seat, kind in enumerate(seated):
            tally.points[kind] += state.scores[seat]
    return tally


def report(kinds: tuple[str, ...], tally: Tally) -> list[str]:
    seats = Counter(kinds)
    lines = [f"{' + '.join(f'{n} {k}' for k, n in seats.items())}, {tally.games} games:"]
    for kind, count in seats.items():
        share = tally.wins[kind] / tally.games
        fair = count / len(kinds)
        half_width = 1.96 * math.sqrt(share * (1 - share) / tally.games)
        mean = tally.points[kind] / (tally.games * count)
        ms = 1000 * tally.seconds[kind] / max(tally.decisions[kind], 1)
        lines.append(
            f"  {kind:<7} wins {share:6.1%} ± {half_width:4.1%} (alike: {fair:5.1%}), "
            f"mean score {mean:5.1f}, {ms:5.2f} ms a decision"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games a table (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    app = Opus(env={"PERSISTENCE_MODULE": "eventsourcing.popo"})
    started = time.perf_counter()
    for table in TABLES:
        for line in report(table, play_table(app, table, args.games, args.seed)):
            print(line, flush=True)
    print(f"time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
