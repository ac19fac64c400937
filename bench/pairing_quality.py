"""How good and how fast is T4.2's `swap-1`?

Quality: for n = 3…12 players and several seeded trials, play 3 rounds with
random places at every table (match points by T5.2, no shared places),
then pair round 4 and compare the objective W·(a) + (b) that `swap-1`
reaches with the best of every way to split the players into tables of
T3's sizes (tables as unordered sets). Prints, per n, the mean and largest
excess over that optimum and how often `swap-1` found it.

Speed: times ``pair_later_round`` for 1,000 and 10,000 players at round 5,
after 4 rounds of random tables and random results (some penalties of 1/2).

The standings here are match points with a random tie-break, not all of
T6.1: enough to feed the pairing realistic inputs.
Run: ``python bench/pairing_quality.py [--trials 200]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.tournaments.pairing import (
    objective,
    pair_first_round,
    pair_later_round,
    pairs_met,
)
from domain.tournaments.tables import TableSizes, cut, fewest_byes, partition

SIZES = TableSizes()
WEIGHT = 6
BYE = Fraction(6)  # T3.2

Met = dict[tuple[int, int], int]
Points = dict[int, Fraction]


def play(tables: Sequence[Sequence[int]], points: Points, rng: random.Random) -> None:
    """Random places at every table; T5.2: place k of s scores 12·(s − k)/(s − 1)."""
    for table in tables:
        finish = rng.sample(list(table), len(table))
        s = len(table)
        for k, player in enumerate(finish, start=1):
            points[player] += Fraction(12 * (s - k), s - 1)


def standings(players: Sequence[int], points: Points, rng: random.Random) -> list[int]:
    """Match points, higher first; ties in a random order."""
    tiebreak = {p: rng.random() for p in players}
    return sorted(players, key=lambda p: (-points[p], tiebreak[p]))


def tournament(
    n: int, rounds: int, rng: random.Random
) -> tuple[list[int], Met, Points, dict[int, int]]:
    """``rounds`` rounds paired by T4 with random results: the standings, met, points, byes."""
    players = list(range(1, n + 1))
    points = {p: Fraction(0) for p in players}
    byes = {p: 0 for p in players}
    history: list[list[list[int]]] = []
    for r in range(1, rounds + 1):
        if r == 1:
            pairing = pair_first_round(players, rng.randbytes(32), SIZES, WEIGHT)
        else:
            ranked = standings(players, points, rng)
            pairing = pair_later_round(ranked, byes, pairs_met(history), points, SIZES, WEIGHT)
        play(pairing.tables, points, rng)
        for p in pairing.byes:
            points[p] += BYE
            byes[p] += 1
        history.append(pairing.tables)
    return standings(players, points, rng), pairs_met(history), points, byes


def splits(players: list[int], sizes: list[int]) -> Iterator[list[list[int]]]:
    """Every split of ``players`` into tables of the given sizes, tables unordered:
    the first player's table is each size once, with every choice of the others."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for size in sorted(set(sizes)):
        left = list(sizes)
        left.remove(size)
        for others in combinations(rest, size - 1):
            remaining = [p for p in rest if p not in others]
            for tables in splits(remaining, left):
                yield [[first, *others], *tables]


def optimum(players: list[int], parts: Sequence[int], met: Met, points: Points) -> Fraction:
    """The lowest W·(a) + (b) over every split into tables of sizes ``parts``
    (the objective is a sum over tables: each table's share is computed once)."""
    share: dict[tuple[int, ...], Fraction] = {}

    def value(table: list[int]) -> Fraction:
        key = tuple(table)
        if key not in share:
            share[key] = objective([table], met, points, WEIGHT)
        return share[key]

    return min(sum(map(value, t), Fraction(0)) for t in splits(players, list(parts)))


def quality(trials: int, seed: int) -> None:
    rng = random.Random(seed)
    print(f"swap-1 against the exhaustive optimum, round 4, W = {WEIGHT}, sizes 3/4/5")
    print(f"{'n':>3} {'tables':>7} {'trials':>6} {'optimal':>7} {'mean excess':>11} {'max':>6}")
    for n in range(3, 13):
        excesses: list[Fraction] = []
        for _ in range(trials):
            ranked, met, points, byes = tournament(n, 3, rng)
            pairing = pair_later_round(ranked, byes, met, points, SIZES, WEIGHT)
            seated = sorted(p for t in pairing.tables for p in t)
            parts = [len(t) for t in pairing.tables]
            excesses.append(pairing.objective - optimum(seated, parts, met, points))
        assert min(excesses) >= 0
        optimal = sum(1 for e in excesses if e == 0) / trials
        mean = float(sum(excesses, Fraction(0)) / trials)
        shape = "+".join(map(str, fewest_byes(n, SIZES)[1]))
        worst = float(max(excesses))
        print(f"{n:>3} {shape:>7} {trials:>6} {optimal:>7.0%} {mean:>11.2f} {worst:>6.1f}")


def speed(n: int, seed: int) -> None:
    """Times round 5's pairing of n players after 4 random rounds."""
    rng = random.Random(seed)
    players = list(range(1, n + 1))
    points = {p: Fraction(0) for p in players}
    parts = partition(n, SIZES)
    assert parts is not None
    history = []
    for _ in range(4):
        tables = cut(rng.sample(players, n), parts)
        play(tables, points, rng)
        history.append(tables)
    for p in rng.sample(players, n // 50):
        points[p] -= Fraction(1, 2)  # T7.2: penalties
    met = pairs_met(history)
    ranked = standings(players, points, rng)
    before = objective(cut(ranked, parts), met, points, WEIGHT)
    start = time.perf_counter()
    pairing = pair_later_round(ranked, {}, met, points, SIZES, WEIGHT)
    elapsed = time.perf_counter() - start
    print(
        f"{n:>7} {len(pairing.tables):>7} {elapsed:>9.3f} "
        f"{float(before):>12.1f} {float(pairing.objective):>12.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()
    started = time.perf_counter()
    quality(args.trials, args.seed)
    print()
    print("pair_later_round at round 5 (4 random rounds before), W = 6, sizes 3/4/5")
    print(f"{'players':>7} {'tables':>7} {'seconds':>9} {'cut value':>12} {'swap-1 value':>12}")
    for n in (1_000, 10_000):
        speed(n, args.seed + n)
    print(f"\n(whole run {time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
