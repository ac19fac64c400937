"""How good and how fast are T4.2's `swap-1` and T4.2b's `regroup-1` (the
default from revision 4 on), both as domain/tournaments/pairing.py runs them?

Quality: for n = 3…12 players and several seeded trials, play 3 rounds with
random places at every table (match points by T5.2, no shared places; rounds
2 and 3 paired by `swap-1`), then pair round 4 with each procedure (the same
byes and cut) and compare the objective W·(a) + (b) it reaches with the best
of every way to split the players into tables of T3's sizes (tables as
unordered sets). Prints, per n and procedure, how often it found that
optimum and the mean and largest excess over it. `regroup-1` is also held
to the proposal it was adopted from (bench/pairing_procedures.py): the same
tables, asserted.

With teams (T11.2): the same with the players in two or three teams, the
objective the pair ((c), W·(a) + (b)): how often each procedure reaches the
optimum pair, how often its (c) is above the optimum's, and its mean excess
in W·(a) + (b) where (c) is optimal.

Beyond n = 12 the optimum is out of reach: for a few larger n (4 rounds
played, round 5 paired), each procedure's mean excess over the better of the
two, and in how many trials `regroup-1` is below `swap-1` (never above:
asserted).

Speed: times ``pair_later_round`` with each procedure for 1,000 and 10,000
players at round 5, after 4 rounds of random tables and random results
(some penalties of 1/2), without teams and with 50 teams.

The standings here are match points with a random tie-break, not all of
T6.1: enough to feed the pairing realistic inputs.
Run: ``python bench/pairing_quality.py [--trials 200]`` (a few minutes).
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
    REGROUP_1,
    SWAP_1,
    conflicts_at,
    objective,
    pair_first_round,
    pair_later_round,
    pairs_met,
)
from domain.tournaments.tables import TableSizes, cut, fewest_byes, partition

CANDIDATES = (REGROUP_1,)  # compared with swap-1
SIZES = TableSizes()
WEIGHT = 6
BYE = Fraction(6)  # T3.2

Met = dict[tuple[int, int], int]
Points = dict[int, Fraction]
Pair = tuple[int, int]


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
    """The round's pairing by `swap-1` (its tables) and every procedure's
    objective, `swap-1` first; `regroup-1` is never above it (asserted) and
    gives the proposal's tables (asserted)."""
    pairing = pair_later_round(ranked, byes, met, points, SIZES, WEIGHT)
    values = [pairing.objective]
    for name in CANDIDATES:
        other = pair_later_round(ranked, byes, met, points, SIZES, WEIGHT, None, name)
        proposed = pairing_procedures.pair_later_round(
            ranked, byes, met, points, SIZES, WEIGHT, pairing_procedures.PROCEDURES[name]
        )
        assert other.tables == proposed.tables and other.byes == pairing.byes
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


def team_optimum(
    players: list[int], parts: Sequence[int], met: Met, points: Points, conflicts: set[Pair]
) -> tuple[int, Fraction]:
    """The lowest ((c), W·(a) + (b)) over every split into tables of ``parts``."""
    share: dict[tuple[int, ...], tuple[int, Fraction]] = {}

    def value(table: list[int]) -> tuple[int, Fraction]:
        key = tuple(table)
        if key not in share:
            share[key] = (
                conflicts_at([table], conflicts),
                objective([table], met, points, WEIGHT),
            )
        return share[key]

    best: tuple[int, Fraction] | None = None
    for tables in splits(players, list(parts)):
        c, rest = 0, Fraction(0)
        for table in tables:
            tc, tr = value(table)
            c, rest = c + tc, rest + tr
        if best is None or (c, rest) < best:
            best = (c, rest)
    assert best is not None
    return best


def with_teams(trials: int, seed: int) -> None:
    rng = random.Random(seed)
    print(f"With teams (T11.2), round 4, W = {WEIGHT}: against the optimum pair ((c), W·(a) + (b))")
    print("(opt: share of trials at the optimum pair; c>: share with (c) above the optimum's;")
    print(" mean: excess in W·(a) + (b) over the optimum where (c) is optimal)")
    names = "".join(f"{name:>21}" for name in (SWAP_1, *CANDIDATES))
    print(f"{'':>22}{names}")
    print(f"{'n':>3} {'teams':>5} {'trials':>6}  {'   opt    c>   mean' * (1 + len(CANDIDATES))}")
    for n in range(6, 13):
        teams = 2 if n < 9 else 3
        results: list[list[tuple[bool, bool, Fraction]]] = [[] for _ in range(1 + len(CANDIDATES))]
        for _ in range(trials):
            ranked, met, points, byes = tournament(n, 3, rng)
            team = {p: rng.randrange(teams) for p in ranked}
            conflicts = {(p, q) for p in ranked for q in ranked if p < q and team[p] == team[q]}
            for column, name in zip(results, (SWAP_1, *CANDIDATES), strict=True):
                pairing = pair_later_round(
                    ranked, byes, met, points, SIZES, WEIGHT, conflicts, name
                )
                seated = sorted(p for t in pairing.tables for p in t)
                parts = [len(t) for t in pairing.tables]
                best = team_optimum(seated, parts, met, points, conflicts)
                reached = (pairing.conflicts, pairing.objective)
                assert reached >= best
                column.append((reached == best, reached[0] > best[0], reached[1] - best[1]))
            swap, regroup = results[0][-1], results[1][-1]
            assert (not regroup[1]) or swap[1]  # regroup-1's (c) is never above swap-1's here
        columns = ""
        for column in results:
            optimal = sum(1 for ok, _, _ in column if ok) / len(column)
            above = sum(1 for _, worse, _ in column if worse) / len(column)
            excess = [e for _, worse, e in column if not worse]
            mean = float(sum(excess, Fraction(0)) / len(excess)) if excess else 0.0
            columns += f"  {optimal:>5.0%} {above:>5.0%} {mean:>6.2f}"
        print(f"{n:>3} {teams:>5} {trials:>6}{columns}")


def larger(trials: int, seed: int) -> None:
    rng = random.Random(seed)
    print(f"Larger n, round 5, W = {WEIGHT}: against the better of the two procedures")
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


def speed(n: int, seed: int, teams: int = 0) -> None:
    """Times round 5's pairing of n players after 4 random rounds, by each
    procedure; with ``teams``, the players in that many teams (T11.2)."""
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
    conflicts = None
    if teams:
        team = {p: p % teams for p in players}
        by_team: dict[int, list[int]] = {}
        for p in players:
            by_team.setdefault(team[p], []).append(p)
        conflicts = {(p, q) for group in by_team.values() for p in group for q in group if p < q}
    before = objective(cut(ranked, parts), met, points, WEIGHT)
    columns = ""
    for name in (SWAP_1, *CANDIDATES):
        start = time.perf_counter()
        pairing = pair_later_round(ranked, {}, met, points, SIZES, WEIGHT, conflicts, name)
        elapsed = time.perf_counter() - start
        columns += f" {elapsed:>9.3f} {float(pairing.objective):>7.1f} {pairing.conflicts:>4}"
    label = f"{teams} teams" if teams else "no team"
    print(f"{n:>7} {label:>9} {len(parts):>7} {float(before):>9.1f} {columns}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()
    started = time.perf_counter()
    quality(args.trials, args.seed)
    print()
    with_teams(max(20, args.trials // 4), args.seed + 2)
    print()
    larger(max(100, args.trials // 2), args.seed + 1)
    print()
    print("pair_later_round at round 5 (4 random rounds before), W = 6, sizes 3/4/5")
    names = "".join(f"{name:>23}" for name in (SWAP_1, *CANDIDATES))
    print(f"{'':>35}{names}")
    print(
        f"{'players':>7} {'':>9} {'tables':>7} {'cut value':>9}"
        f"{'   seconds   value  (c)' * (1 + len(CANDIDATES))}"
    )
    for n in (1_000, 10_000):
        speed(n, args.seed + n)
        speed(n, args.seed + n, teams=50)
    print(f"\n(whole run {time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
