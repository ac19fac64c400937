"""Stepping through a finished game's replay: does a late step cost what an
early one does?

Plays the longest of a few games of greedy bots (6 players, the Guild) on
an embedded app (SQLite files in a temporary folder), then walks its replay
page (``GET /replay/<game>/view?step=n``, api/web/pages.py) from step 1 to
the last, as the page's slider and keys do, twice over; and the replay
itself (api/web/replay.py's ``Replay.step``), as kept (a copy every
``SNAPSHOT_EVERY`` steps) and as evolved from the game's first event at
every step (the former way, ``every`` the game's length). It prints the
mean time of a step among the first tenth of the game and among the last
tenth, and their ratio: 1 when a step's cost does not grow with the game.
The page also shows more late in the game (every award so far, the
tables' recipes): the mean size of what it renders early and late is
printed beside it.
Run: ``python bench/replay.py [--games 5] [--rounds 2]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from api.web.replay import Replay, check_records
from domain.simulation import play_game
from infra.eventlog import game_export
from tests.apps import embedded_app


def tenths(times: list[float]) -> tuple[float, float]:
    """The mean of the first tenth and of the last tenth of the steps' times."""
    tenth = max(1, len(times) // 10)
    return statistics.fmean(times[:tenth]), statistics.fmean(times[-tenth:])


def walk(step: Callable[[int], object], total: int, rounds: int) -> list[float]:
    """Each step's time, 1 to ``total``, the fastest of ``rounds`` walks."""
    best = [float("inf")] * total
    for _ in range(rounds):
        for n in range(1, total + 1):
            started = time.perf_counter()
            step(n)
            best[n - 1] = min(best[n - 1], time.perf_counter() - started)
    return best


def report(label: str, times: list[float]) -> None:
    early, late = tenths(times)
    print(
        f"{label:<34} early {early * 1e3:7.3f} ms  late {late * 1e3:7.3f} ms  "
        f"late/early {late / early:5.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5, help="games played; the longest is walked")
    parser.add_argument("--rounds", type=int, default=2, help="walks; each step's fastest counts")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        app = embedded_app(Path(folder), run_projections=False)
        try:
            opus = app.extensions["opus"].opus
            games = [play_game(opus, 6, "greedy", random.Random(s))[0] for s in range(args.games)]
            game = max(games, key=lambda g: opus.version(g))
            records = check_records(game_export(opus, game))
            total = len(records)
            print(f"a game of {total} events (the longest of {args.games})")
            client = app.test_client()

            sizes = [0] * total

            def page(n: int) -> None:
                answer = client.get(f"/replay/{game}/view?step={n}")
                if answer.status_code != 200:
                    raise SystemExit(f"step {n}: {answer.status_code}")
                sizes[n - 1] = len(answer.get_data())

            page(1)  # the replay made and kept by the first request
            report("the page, step by step", walk(page, total, args.rounds))
            early, late = tenths([float(size) for size in sizes])
            print(
                f"{'  (what it renders)':<34} early {early / 1024:6.1f} KiB"
                f"  late {late / 1024:6.1f} KiB  late/early {late / early:5.2f}"
            )
            kept = Replay(records)
            report(f"Replay.step, a copy every {kept.every}", walk(kept.step, total, args.rounds))
            former = Replay(records, every=total)
            report("Replay.step from the first event", walk(former.step, total, args.rounds))
        finally:
            app.extensions["opus"].close()


if __name__ == "__main__":
    main()
