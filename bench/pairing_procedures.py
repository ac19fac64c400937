"""Candidate successors of T4.2's `swap-1`, for the bench only (pure functions).

Procedure `regroup-1` (T4.2's cut and objective, another improvement step).
First `swap-1` exactly as T4.2 specifies (passes until one makes no swap, at
most 50). Then repeat passes until a pass makes no change (at most 50 such
passes). A pass has two parts. (1) Exchanges: for i = 1…T, for j =
i+1…min(i+3, T), for k = 1…min(|table i|, |table j|), for each set of k places
x1 < … < xk of table i, for each set of k places y1 < … < yk of table j, both
in lexicographic order (k = 2 on 4 places: 12, 13, 14, 23, 24, 34): exchange,
for r = 1…k, the player now at table i[x_r] with the one now at table j[y_r],
if that lowers W·(a) + (b), in exact arithmetic, in place, and go on with
the next set of y's. (2) Rotations: for i = 1…T, for j = i+1…min(i+3, T), for
l = j+1…min(i+3, T), for x = 1…|table i|, for y = 1…|table j|, for z =
1…|table l|: with p, q, r the players now at table i[x], table j[y], table
l[z], put r at i[x], p at j[y] and q at l[z] if that lowers W·(a) + (b); then,
with the players now there, the other way round (q at i[x], r at j[y], p at
l[z]) if that lowers it. Tables keep their cut numbers; the objective
recorded is the one reached. Procedure `swap-2` is the same with part (1)
for k = 1 and 2 only, and no part (2).

Consequences. Both only ever make strict decreases, starting from `swap-1`'s
tables, so their objective is never above `swap-1`'s on the same input. When
`regroup-1` stops before its cap, no two tables at most 3 apart can be split
better between themselves (every split of their players into their two sizes
is one exchange of part (1)), so a round of two tables (n = 6…9 with
3/4/5) gets the optimum; `swap-2` only guarantees that for two tables of
the same size, at most 4 (6 = 3+3, 8 = 4+4).

Implementation (not part of the procedure): moves are evaluated in integers
as `swap-1`'s are (match points × the LCM of their denominators, W·m² × that).
A step (i, j) or (i, j, l) is skipped when no split of those tables' players
could lower their share of the objective: their repeats plus spreads already
equal the range of their match points less the largest gap between two
consecutive values (the two largest for three tables), a lower bound for any
split, since each table's [lowest, highest] covers its values and holes
between them lie in distinct gaps. Nothing there could be a strict decrease,
so skipping gives the same tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import cache
from itertools import combinations, pairwise
from math import lcm

from domain.tournaments.pairing import (
    MAX_PASSES,
    Met,
    Pairing,
    Points,
    objective,
    swap_1,
)
from domain.tournaments.tables import TableSizes, cut, fewest_byes

Improve = Callable[[list[list[int]], Met, Points, int], Fraction]
Cost = dict[int, dict[int, int]]
Value = dict[int, int]


def swap_2(tables: list[list[int]], met: Met, points: Points, weight: int) -> Fraction:
    """`swap-2` (module docstring): `swap-1`, then passes of exchanges of 1 and 2 players."""
    return _improve(tables, met, points, weight, largest=2, rotations=False)


def regroup_1(tables: list[list[int]], met: Met, points: Points, weight: int) -> Fraction:
    """`regroup-1` (module docstring): `swap-1`, then passes of exchanges of any
    number of players between two tables and rotations among three."""
    return _improve(tables, met, points, weight, largest=None, rotations=True)


PROCEDURES: dict[str, Improve] = {"swap-1": swap_1, "swap-2": swap_2, "regroup-1": regroup_1}


def pair_later_round(
    ranked: Sequence[int],
    byes_so_far: Mapping[int, int],
    met: Met,
    points: Points,
    sizes: TableSizes,
    weight: int,
    improve: Improve,
) -> Pairing:
    """T4.2 as ``domain.tournaments.pairing.pair_later_round``, with ``improve``
    in place of `swap-1` (the same byes and cut)."""
    count, parts = fewest_byes(len(ranked), sizes)
    bottom_first = list(reversed(ranked))
    candidates = sorted(bottom_first, key=lambda p: byes_so_far.get(p, 0))  # stable
    byes = set(candidates[:count])
    tables = cut([p for p in ranked if p not in byes], parts)
    value = improve(tables, met, points, weight)
    return Pairing(tables, sorted(byes), value)


def _improve(
    tables: list[list[int]],
    met: Met,
    points: Points,
    weight: int,
    largest: int | None,
    rotations: bool,
) -> Fraction:
    swap_1(tables, met, points, weight)
    cost, value = _integers(tables, met, points, weight)
    count = len(tables)
    for _ in range(MAX_PASSES):
        changed = False
        for i in range(count):  # part (1)
            for j in range(i + 1, min(i + 4, count)):
                most = min(len(tables[i]), len(tables[j]))
                for k in range(1, (most if largest is None else min(largest, most)) + 1):
                    if _settled((tables[i], tables[j]), cost, value):
                        break
                    if _exchange(tables[i], tables[j], k, cost, value):
                        changed = True
        if rotations:  # part (2)
            for i in range(count):
                for j in range(i + 1, min(i + 4, count)):
                    for k in range(j + 1, min(i + 4, count)):
                        group = (tables[i], tables[j], tables[k])
                        if not _settled(group, cost, value) and _rotate(*group, cost, value):
                            changed = True
        if not changed:
            break
    return objective(tables, met, points, weight)


def _integers(
    tables: Sequence[Sequence[int]], met: Met, points: Points, weight: int
) -> tuple[Cost, Value]:
    """As `swap-1`: value[p] = p's match points × scale; cost[p][q] = W·m² × scale
    for pairs that met, scale = the LCM of the match points' denominators."""
    players = [p for table in tables for p in table]
    scale = lcm(*(points.get(p, Fraction(0)).denominator for p in players))
    value = {p: int(points.get(p, Fraction(0)) * scale) for p in players}
    cost: Cost = {p: {} for p in players}
    for (p, q), m in met.items():
        if m and p in cost and q in cost:
            cost[p][q] = cost[q][p] = weight * m * m * scale
    return cost, value


def _repeats(table: Sequence[int], cost: Cost) -> int:
    return sum(cost[p].get(q, 0) for p, q in combinations(table, 2))


def _settled(group: Sequence[Sequence[int]], cost: Cost, value: Value) -> bool:
    """Whether no split of the group's players into tables of the same sizes has
    a lower share of the objective (module docstring: the skipped steps)."""
    values = [[value[p] for p in table] for table in group]
    now = sum(max(v) - min(v) for v in values) + sum(_repeats(t, cost) for t in group)
    every = sorted(v for vs in values for v in vs)
    gaps = sorted((b - a for a, b in pairwise(every)), reverse=True)
    return now <= every[-1] - every[0] - sum(gaps[: len(group) - 1])


@cache
def _place_sets(size: int, k: int) -> tuple[tuple[int, ...], ...]:
    """The sets of k places of a table of ``size``, in lexicographic order."""
    return tuple(combinations(range(size), k))


class _Sets:
    """One table of an exchange step, for every set S of k of its places: the
    players there, the cost change of taking them out and of their pairs with
    the other table (d), the highest and lowest value left (None when S is the
    whole table) and the highest and lowest value of the players in S."""

    def __init__(self, table: list[int], other: list[int], k: int, cost: Cost, value: Value):
        costs = [cost[p] for p in table]
        # Per place: pairs with the other table's players, less pairs at this table.
        d = [sum(c.get(v, 0) for v in other) - sum(c.get(u, 0) for u in table) for c in costs]
        values = [value[p] for p in table]
        self.spread = max(values) - min(values)
        self.sets: list[tuple[tuple[int, ...], list[int], int, int | None, int | None, int, int]]
        self.sets = []
        for places in _place_sets(len(table), k):
            players = [table[x] for x in places]
            inside = [value[p] for p in players]
            rest = [values[x] for x in range(len(table)) if x not in places]
            delta = sum(d[x] for x in places) + 2 * _repeats(players, cost)
            high = max(rest) if rest else None
            low = min(rest) if rest else None
            self.sets.append((places, players, delta, high, low, max(inside), min(inside)))


def _exchange(ti: list[int], tj: list[int], k: int, cost: Cost, value: Value) -> bool:
    """Part (1) for one k: exchange the players at places X of table i with those
    at places Y of table j (x_r ↔ y_r) when that lowers the objective.

    For P leaving table i and Q leaving table j, the repeats change by
    d(P) + d(Q) + 2·(pairs within P) + 2·(pairs within Q) − 2·(pairs across P, Q),
    d as in _Sets: each side loses its pairs with the players that stay and
    gains the newcomers' pairs with them; pairs within P or Q move along."""
    si, sj = _Sets(ti, tj, k, cost, value), _Sets(tj, ti, k, cost, value)
    changed = False
    for a in range(len(si.sets)):
        for b in range(len(sj.sets)):
            xs, ps, di, hi, li, pmax, pmin = si.sets[a]
            ys, qs, dj, hj, lj, qmax, qmin = sj.sets[b]
            across = sum(cost[p].get(q, 0) for p in ps for q in qs)
            spread_i = qmax - qmin if hi is None or li is None else max(hi, qmax) - min(li, qmin)
            spread_j = pmax - pmin if hj is None or lj is None else max(hj, pmax) - min(lj, pmin)
            if di + dj - 2 * across + spread_i + spread_j < si.spread + sj.spread:
                for x, y in zip(xs, ys, strict=True):
                    ti[x], tj[y] = tj[y], ti[x]
                si, sj = _Sets(ti, tj, k, cost, value), _Sets(tj, ti, k, cost, value)
                changed = True
    return changed


class _Places:
    """One table of a rotation step: per place, the cost of its player's pairs at
    the table and the highest and lowest value without that place; the spread;
    and, per player of the other two tables, the cost of their pairs with this
    table's players."""

    def __init__(self, table: list[int], others: list[int], cost: Cost, value: Value):
        self.own = [sum(cost[p].get(u, 0) for u in table) for p in table]
        values = [value[p] for p in table]
        rest = [values[:x] + values[x + 1 :] for x in range(len(values))]
        self.high = [max(r) for r in rest]
        self.low = [min(r) for r in rest]
        self.spread = max(values) - min(values)
        self.joining = {q: sum(cost[q].get(u, 0) for u in table) for q in others}

    def change(self, x: int, leaving: int, coming: int, cost: Cost, value: Value) -> int:
        """The table's share of the objective after ``coming`` replaces ``leaving``
        at place x, less its share now."""
        v = value[coming]
        repeats = self.joining[coming] - cost[coming].get(leaving, 0) - self.own[x]
        return repeats + max(self.high[x], v) - min(self.low[x], v) - self.spread


def _rotate(ta: list[int], tb: list[int], tc: list[int], cost: Cost, value: Value) -> bool:
    """Part (2) for tables i, j, l = ta, tb, tc."""

    def sides() -> tuple[_Places, _Places, _Places]:
        return (
            _Places(ta, tb + tc, cost, value),
            _Places(tb, ta + tc, cost, value),
            _Places(tc, ta + tb, cost, value),
        )

    a, b, c = sides()
    changed = False
    for x in range(len(ta)):
        for y in range(len(tb)):
            for z in range(len(tc)):
                p, q, r = ta[x], tb[y], tc[z]
                # r to i[x], p to j[y], q to l[z]
                change = a.change(x, p, r, cost, value) + b.change(y, q, p, cost, value)
                if change + c.change(z, r, q, cost, value) < 0:
                    ta[x], tb[y], tc[z] = r, p, q
                    a, b, c = sides()
                    changed = True
                p, q, r = ta[x], tb[y], tc[z]
                # the other way round: q to i[x], r to j[y], p to l[z]
                change = a.change(x, p, q, cost, value) + b.change(y, q, r, cost, value)
                if change + c.change(z, r, p, cost, value) < 0:
                    ta[x], tb[y], tc[z] = q, r, p
                    a, b, c = sides()
                    changed = True
    return changed
