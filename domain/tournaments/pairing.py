"""Pairing (TOURNAMENT.md T4.1, T4.2): who plays at which table in a round.

Players are registration numbers. ``met`` maps a pair (lower number, higher
number) to the number of earlier rounds in which the pair shared a table
(absent: 0); ``points`` maps a player to their match points after penalties
(absent: 0). Everything is exact: the procedure `swap-1` must give every
verifier the same tables.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import lcm

from domain.shuffle import shuffle
from domain.tournaments.tables import TableSizes, cut, fewest_byes

PROCEDURE = "swap-1"  # T1.2: the name RoundPaired records
MAX_PASSES = 50  # T4.2

Met = Mapping[tuple[int, int], int]
Points = Mapping[int, Fraction]


@dataclass(frozen=True)
class Pairing:
    """A round's pairing: tables (table 1 first, players not yet seated), byes
    (ascending) and the objective W·(a) + (b) reached (T1.2)."""

    tables: list[list[int]]
    byes: list[int]
    objective: Fraction


def _pair(p: int, q: int) -> tuple[int, int]:
    return (p, q) if p < q else (q, p)


def pairs_met(rounds_tables: Iterable[Sequence[Sequence[int]]]) -> dict[tuple[int, int], int]:
    """T4.2's m for every pair: the number of rounds in which the pair shared a
    table (each round's tables given as lists of players)."""
    met: dict[tuple[int, int], int] = {}
    for tables in rounds_tables:
        pairs = {_pair(p, q) for table in tables for p, q in combinations(table, 2)}
        for pair in pairs:
            met[pair] = met.get(pair, 0) + 1
    return met


def objective(tables: Sequence[Sequence[int]], met: Met, points: Points, weight: int) -> Fraction:
    """T4.2: W·(a) + (b). (a): over tables, over each pair at the table, m²;
    (b): over tables, highest − lowest match points after penalties."""
    repeats = sum(
        met.get(_pair(p, q), 0) ** 2 for table in tables for p, q in combinations(table, 2)
    )
    spread = Fraction(0)
    for table in tables:
        values = [points.get(p, Fraction(0)) for p in table]
        spread += max(values) - min(values)
    return weight * repeats + spread


def pair_first_round(
    players: Sequence[int],
    round_seed: bytes,
    sizes: TableSizes,
    weight: int,
    points: Points | None = None,
    met: Met | None = None,
) -> Pairing:
    """T4.1: the players in the order of shuffle(registration numbers,
    SHA-256(round seed ‖ "order")), byes (T3.2's count) from the end of that
    order, the rest cut into tables in T3 order. No swap."""
    order = shuffle(sorted(players), hashlib.sha256(round_seed + b"order").digest())
    byes, parts = fewest_byes(len(order), sizes)
    seated = len(order) - byes
    tables = cut(order[:seated], parts)
    value = objective(tables, met or {}, points or {}, weight)
    return Pairing(tables, sorted(order[seated:]), value)


def pair_later_round(
    ranked: Sequence[int],
    byes_so_far: Mapping[int, int],
    met: Met,
    points: Points,
    sizes: TableSizes,
    weight: int,
) -> Pairing:
    """T4.2: ``ranked`` (the active players, rank 1 first) less the byes of
    T3.2, cut into tables in T3 order, then improved by `swap-1`."""
    count, parts = fewest_byes(len(ranked), sizes)
    # T3.2: fewest byes so far first, then from the bottom of the standings.
    bottom_first = list(reversed(ranked))
    candidates = sorted(bottom_first, key=lambda p: byes_so_far.get(p, 0))  # stable
    byes = set(candidates[:count])
    tables = cut([p for p in ranked if p not in byes], parts)
    value = swap_1(tables, met, points, weight)
    return Pairing(tables, sorted(byes), value)


def swap_1(tables: list[list[int]], met: Met, points: Points, weight: int) -> Fraction:
    """T4.2's procedure `swap-1`: exchanges players between tables, in place,
    while that lowers W·(a) + (b); returns the objective reached.

    Passes, until one makes no swap (at most 50): for table i, for each of the
    next three tables j, for each place x of table i, for each place y of
    table j, exchange the players there if that lowers the objective.

    Only tables i and j change, so each candidate's change is computed from
    them alone, in integers: match points are scaled by the least common
    multiple of their denominators, and m² by that and W, which compares
    exactly as the fractions do."""
    players = [p for table in tables for p in table]
    scale = lcm(*(points.get(p, Fraction(0)).denominator for p in players))
    # value[p]: p's match points × scale; cost[p][q]: W·m² × scale, for pairs that met.
    value = {p: int(points.get(p, Fraction(0)) * scale) for p in players}
    cost: dict[int, dict[int, int]] = {p: {} for p in players}
    for (p, q), m in met.items():
        if m and p in cost and q in cost:
            cost[p][q] = cost[q][p] = weight * m * m * scale

    count = len(tables)
    for _ in range(MAX_PASSES):
        swapped = False
        for i in range(count):
            for j in range(i + 1, min(i + 4, count)):
                if _swap_between(tables[i], tables[j], cost, value):
                    swapped = True
        if not swapped:
            break
    return objective(tables, met, points, weight)


class _Side:
    """One table of a pair (i, j) of T4.2's pass, as seen from the other: per
    place x, the cost of the pairs of its player at this table (own), the
    cost of pairs with the other table's players (cross), and the highest and
    lowest values at this table without place x."""

    def __init__(
        self,
        table: list[int],
        other: list[int],
        cost: dict[int, dict[int, int]],
        value: dict[int, int],
    ) -> None:
        costs = [cost[p] for p in table]
        self.own = [sum(c.get(u, 0) for u in table) for c in costs]
        self.cross = [sum(c.get(v, 0) for v in other) for c in costs]
        values = [value[p] for p in table]
        rest = [values[:x] + values[x + 1 :] for x in range(len(values))]
        self.high = [max(r) for r in rest]
        self.low = [min(r) for r in rest]
        self.spread = max(values) - min(values)


def _swap_between(
    ti: list[int], tj: list[int], cost: dict[int, dict[int, int]], value: dict[int, int]
) -> bool:
    """T4.2: for x in table i, for y in table j: exchange p = ti[x] and
    q = tj[y] if that lowers the objective. Returns whether any was made."""
    si, sj = _Side(ti, tj, cost, value), _Side(tj, ti, cost, value)
    swapped = False
    for x in range(len(ti)):
        for y in range(len(tj)):
            p, q = ti[x], tj[y]
            vp, vq = value[p], value[q]
            both = cost[p].get(q, 0)
            # Table i loses p's pairs there and gains q's with the same players
            # (q's cross sum counted p, who leaves); table j alike.
            repeats = (sj.cross[y] - both - si.own[x]) + (si.cross[x] - both - sj.own[y])
            spread_i = max(si.high[x], vq) - min(si.low[x], vq)
            spread_j = max(sj.high[y], vp) - min(sj.low[y], vp)
            if repeats + spread_i + spread_j < si.spread + sj.spread:
                ti[x], tj[y] = q, p  # T4.2: in place; go on with the next y
                si, sj = _Side(ti, tj, cost, value), _Side(tj, ti, cost, value)
                swapped = True
    return swapped
