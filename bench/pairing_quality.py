"""How good and how fast is T4.2's `swap-1`, and the candidates `swap-2` and
`regroup-1` (bench/pairing_procedures.py)?

Quality: for n = 3…12 players and several seeded trials, play 3 rounds with
random places at every table (match points by T5.2, no shared places; rounds
2 and 3 paired by `swap-1`, as the service does), then pair round 4 with each
procedure (the same byes and cut) and compare the objective W·(a) + (b) it
reaches with the best of every way to split the players into tables of T3's
sizes (tables as unordered sets). Prints, per n and procedure, how often it
found that optimum and the mean and largest excess over it.

Beyond n = 12 the optimum is out of reach: for a few larger n (4 rounds
played, round 5 paired), each procedure's mean excess over the best of the
three, and in how many trials it is below / above `swap-1`.

Speed: times ``pair_later_round`` (and its equivalent with each candidate in
place of `swap-1`) for 1,000 and 10,000 players at round 5, after 4 rounds of
random tables and random results (some penalties of 1/2).

The standings here are match points with a random tie-break, not all of
T6.1: enough to feed the pairing realistic inputs.
Run: ``python bench/pairing_quality.py [--trials 200]`` (about a minute).
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

from bench import pairing_procedures
from domain.tournaments.pairing import (
    objective,
    pair_first_round,
    pair_later_round,
    pairs_met,
)
from domain.tournaments.tables import TableSizes, cut, fewest_byes, partition

CANDIDATES = ("swap-2", "regroup-1")  # compared with swap-1
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


def objectives(
    ranked: list[int], byes: dict[int, int], met: Met, points: Points
) -> tuple[list[list[int]], list[Fraction]]:
    """Round's pairing by `swap-1` (its tables) and every procedure's objective,
    `swap-1` first. Each candidate starts from `swap-1`'s tables, so it is never
    above it (asserted)."""
    pairing = pair_later_round(ranked, byes, met, points, SIZES, WEIGHT)
    values = [pairing.objective]
    for name in CANDIDATES:
        improve = pairing_procedures.PROCEDURES[name]
        other = pairing_procedures.pair_later_round(
            ranked, byes, met, points, SIZES, WEIGHT, improve
        )
        assert other.byes == pairing.byes
        assert other.objective == objective(other.tables, met, points, WEIGHT)
        assert other.objective <= pairing.objective
        values.append(other.objective)
    return pairing.tables, values


def summary(excesses: list[Fraction]) -> str:
    """How often 0, the mean and the largest excess, as columns."""
    optimal = sum(1 for e in excesses if e == 0) / len(excesses)
    mean = float(sum(excesses, Fraction(0)) / len(excesses))
    return f"{optimal:>5.0%} {mean:>6.2f} {float(max(excesses)):>5.1f}"


def header(first: str, below: bool = False) -> None:
    names = "".join(f"{name:>19}" for name in ("swap-1", *CANDIDATES))
    if below:
        names += "".join(f"{name:>10}" for name in CANDIDATES)
    extra = "".join(f"{'below':>10}" for _ in CANDIDATES) if below else ""
    print(f"{'':>18}{names}")
    print(f"{first} {'   opt   mean   max' * (1 + len(CANDIDATES))}{extra}")


def shape(n: int) -> str:
    """T3's tables for n players, as 5+4+4, or 5+2×4 when that is shorter."""
    parts = fewest_byes(n, SIZES)[1]
    plain = "+".join(map(str, parts))
    groups = [(parts.count(s), s) for s in sorted(set(parts), reverse=True)]
    short = "+".join(f"{k}×{s}" if k > 1 else str(s) for k, s in groups)
    return plain if len(plain) <= 7 else short


def quality(trials: int, seed: int) -> None:
    rng = random.Random(seed)
    print(f"Against the exhaustive optimum, round 4, W = {WEIGHT}, sizes 3/4/5")
    print("(opt: share of trials at the optimum; mean, max: excess over it)")
    header(f"{'n':>3} {'tables':>7} {'trials':>6}")
    for n in range(3, 13):
        excesses: list[list[Fraction]] = [[] for _ in range(1 + len(CANDIDATES))]
        for _ in range(trials):
            ranked, met, points, byes = tournament(n, 3, rng)
            tables, values = objectives(ranked, byes, met, points)
            seated = sorted(p for t in tables for p in t)
            best = optimum(seated, [len(t) for t in tables], met, points)
            for column, value in zip(excesses, values, strict=True):
                assert value >= best
                column.append(value - best)
        columns = " ".join(summary(column) for column in excesses)
        print(f"{n:>3} {shape(n):>7} {trials:>6} {columns}")


def larger(trials: int, seed: int) -> None:
    rng = random.Random(seed)
    print(f"Larger n, round 5, W = {WEIGHT}: against the best of the three procedures")
    print("(opt: share of trials at that best; mean, max: excess over it; below: trials")
    print(" where the candidate is below swap-1, never above: asserted)")
    header(f"{'n':>3} {'tables':>7} {'trials':>6}", below=True)
    for n in (13, 16, 20, 25, 32, 40):
        excesses: list[list[Fraction]] = [[] for _ in range(1 + len(CANDIDATES))]
        below = [0] * len(CANDIDATES)
        for _ in range(trials):
            ranked, met, points, byes = tournament(n, 4, rng)
            _, values = objectives(ranked, byes, met, points)
            for column, value in zip(excesses, values, strict=True):
                column.append(value - min(values))
            for c, value in enumerate(values[1:]):
                below[c] += value < values[0]
        columns = " ".join(summary(column) for column in excesses)
        counts = "".join(f"{b:>10}" for b in below)
        print(f"{n:>3} {shape(n):>7} {trials:>6} {columns}{counts}")


def speed(n: int, seed: int) -> None:
    """Times round 5's pairing of n players after 4 random rounds, by each procedure."""
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
    columns = f"{elapsed:>9.3f} {float(pairing.objective):>7.1f}"
    for name in CANDIDATES:
        improve = pairing_procedures.PROCEDURES[name]
        start = time.perf_counter()
        other = pairing_procedures.pair_later_round(ranked, {}, met, points, SIZES, WEIGHT, improve)
        elapsed = time.perf_counter() - start
        columns += f" {elapsed:>9.3f} {float(other.objective):>7.1f}"
    print(f"{n:>7} {len(pairing.tables):>7} {float(before):>9.1f} {columns}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()
    started = time.perf_counter()
    quality(args.trials, args.seed)
    print()
    larger(max(100, args.trials // 2), args.seed + 1)
    print()
    print("pair_later_round at round 5 (4 random rounds before), W = 6, sizes 3/4/5")
    names = "".join(f"{name:>18}" for name in ("swap-1", *CANDIDATES))
    print(f"{'':>25}{names}")
    print(f"{'players':>7} {'tables':>7} {'cut value':>9}{'   seconds   value' * 3}")
    for n in (1_000, 10_000):
        speed(n, args.seed + n)
    print(f"\n(whole run {time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
