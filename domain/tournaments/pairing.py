"""Pairing (TOURNAMENT.md T4.1, T4.2, T4.2b, T11.2, T11.3): who plays at which
table in a round.

Players are registration numbers. ``met`` maps a pair (lower number, higher
number) to the number of earlier rounds in which the pair shared a table
(absent: 0); ``points`` maps a player to their match points after penalties
(absent: 0); ``conflicts`` is the set of pairs (lower number first) that
share a team or are constrained (T11), given as those pairs or as ``Apart``
(each player's team key and the constraints: the service's, which never
lists a team's pairs), or None where the tournament has no
team and no constraint: then the objective is W·(a) + (b), else the pair
((c), W·(a) + (b)), compared (c) first (T11.2). Everything is exact: the
procedures `swap-1` and `regroup-1` must give every verifier the same tables.

How a procedure compares, in integers: match points are scaled by the least
common multiple of their denominators, W·m² by that too, and a pair in
``conflicts`` costs ``big`` more, ``big`` being larger than W·(a) + (b) of any
arrangement of these players (scaled): so one pair fewer outweighs any
difference in (a) and (b), and integer comparison is the pair's
comparison, (c) first, exactly.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property
from itertools import combinations, pairwise
from math import lcm

from domain.shuffle import shuffle
from domain.tournaments.tables import TableSizes, cut, fewest_byes

SWAP_1 = "swap-1"  # T4.2
REGROUP_1 = "regroup-1"  # T4.2b
PROCEDURE = SWAP_1  # T4.2's procedure, every tournament's before revision 4
MAX_PASSES = 50  # T4.2, T4.2b

Met = Mapping[tuple[int, int], int]
Points = Mapping[int, Fraction]


@dataclass(frozen=True)
class Apart:
    """T11.1, T11.2: who must not share a table, without listing every pair
    of a team (10,000 players in 4 teams are 12.5 million pairs): each
    player's team key (players with none left out) and the constraints'
    pairs (lower number first). A pair is in it when the two share a team
    key or are constrained; a pair both is one pair."""

    teams: Mapping[int, str]
    pairs: frozenset[tuple[int, int]] = frozenset()

    def __contains__(self, pair: object) -> bool:
        if not isinstance(pair, tuple) or len(pair) != 2:
            return False
        p, q = pair
        return pair in self.pairs or self.teamed(p, q)

    def teamed(self, p: int, q: int) -> bool:
        """Whether two players share a team key."""
        team = self.teams.get(p)
        return p != q and team is not None and team == self.teams.get(q)

    def __bool__(self) -> bool:
        """Whether any pair is in it (a team of one keeps no one apart):
        worked out once, it is asked at every table."""
        return self._any

    @cached_property
    def _any(self) -> bool:
        return bool(self.pairs) or len(set(self.teams.values())) < len(self.teams)


Conflicts = Collection[tuple[int, int]] | Apart
Cost = dict[int, dict[int, int]]
Value = dict[int, int]


class _TeamRow(dict[int, int]):
    """A player's costs (``_integers``), ``big`` more with every other
    player of their team (``mates``, shared by the team), computed when read
    rather than stored."""

    __slots__ = ("big", "mates", "player")

    def __init__(self, costs: dict[int, int], player: int, mates: frozenset[int], big: int):
        super().__init__(costs)
        self.player, self.mates, self.big = player, mates, big

    def get(self, q: int, default: int = 0) -> int:  # type: ignore[override]
        if q in self.mates and q != self.player:
            return dict.get(self, q, default) + self.big
        return dict.get(self, q, default)


@dataclass(frozen=True)
class Pairing:
    """A round's pairing: tables (table 1 first, players not yet seated), byes
    (ascending), the objective W·(a) + (b) reached and (c) (T1.2, T11.2: 0
    where the tournament has no team and no constraint)."""

    tables: list[list[int]]
    byes: list[int]
    objective: Fraction
    conflicts: int = 0


@dataclass(frozen=True)
class Shares:
    """T11.3: a table's share of each term: (a) Σ m² over its pairs, (b) its
    spread of match points, (c) its pairs sharing a team or constrained."""

    a: int
    b: Fraction
    c: int


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


def table_shares(
    table: Sequence[int], met: Met, points: Points, conflicts: Conflicts | None = None
) -> Shares:
    """T11.3: one table's shares of (a), (b) and (c)."""
    pairs = [_pair(p, q) for p, q in combinations(table, 2)]
    values = [points.get(p, Fraction(0)) for p in table]
    return Shares(
        a=sum(met.get(pair, 0) ** 2 for pair in pairs),
        b=max(values) - min(values),
        c=sum(1 for pair in pairs if pair in conflicts) if conflicts else 0,
    )


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


def conflicts_at(tables: Sequence[Sequence[int]], conflicts: Conflicts | None) -> int:
    """T11.2's (c): over tables, the pairs at the table who share a team key
    or are constrained (each pair once)."""
    if not conflicts:
        return 0
    return sum(1 for table in tables for p, q in combinations(table, 2) if _pair(p, q) in conflicts)


def improve(
    procedure: str,
    tables: list[list[int]],
    met: Met,
    points: Points,
    weight: int,
    conflicts: Conflicts | None = None,
) -> Fraction:
    """The named procedure (T4.2 `swap-1`, T4.2b `regroup-1`) run on
    ``tables`` in place; returns W·(a) + (b) reached. ValueError for a name
    this service does not know."""
    if procedure == SWAP_1:
        return swap_1(tables, met, points, weight, conflicts)
    if procedure == REGROUP_1:
        return regroup_1(tables, met, points, weight, conflicts)
    raise ValueError(f"T4.2: the pairing procedure {procedure!r} is unknown")


def pair_first_round(
    players: Sequence[int],
    round_seed: bytes,
    sizes: TableSizes,
    weight: int,
    points: Points | None = None,
    met: Met | None = None,
    conflicts: Conflicts | None = None,
    procedure: str = SWAP_1,
) -> Pairing:
    """T4.1: the players in the order of shuffle(registration numbers,
    SHA-256(round seed ‖ "order")), byes (T3.2's count) from the end of that
    order, the rest cut into tables in T3 order. No swap, unless the
    tournament has a team or a constraint (``conflicts`` not None): then the
    cut is improved with ``procedure`` under T11.2's objective."""
    order = shuffle(sorted(players), hashlib.sha256(round_seed + b"order").digest())
    byes, parts = fewest_byes(len(order), sizes)
    seated = len(order) - byes
    tables = cut(order[:seated], parts)
    if conflicts is not None:
        improve(procedure, tables, met or {}, points or {}, weight, conflicts)
    value = objective(tables, met or {}, points or {}, weight)
    return Pairing(tables, sorted(order[seated:]), value, conflicts_at(tables, conflicts))


def pair_later_round(
    ranked: Sequence[int],
    byes_so_far: Mapping[int, int],
    met: Met,
    points: Points,
    sizes: TableSizes,
    weight: int,
    conflicts: Conflicts | None = None,
    procedure: str = SWAP_1,
) -> Pairing:
    """T4.2: ``ranked`` (the active players, rank 1 first) less the byes of
    T3.2, cut into tables in T3 order, then improved by ``procedure``."""
    count, parts = fewest_byes(len(ranked), sizes)
    # T3.2: fewest byes so far first, then from the bottom of the standings.
    bottom_first = list(reversed(ranked))
    candidates = sorted(bottom_first, key=lambda p: byes_so_far.get(p, 0))  # stable
    byes = set(candidates[:count])
    tables = cut([p for p in ranked if p not in byes], parts)
    value = improve(procedure, tables, met, points, weight, conflicts)
    return Pairing(tables, sorted(byes), value, conflicts_at(tables, conflicts))


def _integers(
    tables: Sequence[Sequence[int]],
    met: Met,
    points: Points,
    weight: int,
    conflicts: Conflicts | None,
) -> tuple[Cost, Value]:
    """value[p] = p's match points × scale; cost[p][q] = W·m² × scale for pairs
    that met, plus ``big`` for a pair in ``conflicts`` (module docstring)."""
    players = [p for table in tables for p in table]
    scale = lcm(*(points.get(p, Fraction(0)).denominator for p in players))
    value = {p: int(points.get(p, Fraction(0)) * scale) for p in players}
    cost: Cost = {p: {} for p in players}
    for (p, q), m in met.items():
        if m and p in cost and q in cost:
            cost[p][q] = cost[q][p] = weight * m * m * scale
    if conflicts:
        # Above W·(a) + (b) of any arrangement: every pair that met once, and
        # every table spanning the whole range of values.
        spread = max(value.values()) - min(value.values()) if value else 0
        big = 1 + sum(sum(c.values()) for c in cost.values()) // 2 + len(tables) * spread
        if not isinstance(conflicts, Apart):
            for p, q in conflicts:
                if p in cost and q in cost and p != q:
                    cost[p][q] = cost[q][p] = cost[p].get(q, 0) + big
            return cost, value
        # Teams: their pairs' cost is read from each player's team key, never
        # listed; explicit pairs for the constraints (a pair both: once).
        teams = conflicts.teams
        for p, q in conflicts.pairs:
            if p in cost and q in cost and p != q and not conflicts.teamed(p, q):
                cost[p][q] = cost[q][p] = cost[p].get(q, 0) + big
        members: dict[str, set[int]] = {}
        for p in players:
            if p in teams:
                members.setdefault(teams[p], set()).add(p)
        mates = {team: frozenset(group) for team, group in members.items()}
        for p in players:
            if p in teams:
                cost[p] = _TeamRow(cost[p], p, mates[teams[p]], big)
    return cost, value


def swap_1(
    tables: list[list[int]],
    met: Met,
    points: Points,
    weight: int,
    conflicts: Conflicts | None = None,
) -> Fraction:
    """T4.2's procedure `swap-1`: exchanges players between tables, in place,
    while that lowers the objective (T11.2's pair, (c) first, where
    ``conflicts`` is given); returns W·(a) + (b) reached.

    Passes, until one makes no swap (at most 50): for table i, for each of the
    next three tables j, for each place x of table i, for each place y of
    table j, exchange the players there if that lowers the objective.

    Only tables i and j change, so each candidate's change is computed from
    them alone, in integers (module docstring)."""
    cost, value = _integers(tables, met, points, weight, conflicts)
    _swap_passes(tables, cost, value)
    return objective(tables, met, points, weight)


def _swap_passes(tables: list[list[int]], cost: Cost, value: Value) -> None:
    count = len(tables)
    for _ in range(MAX_PASSES):
        swapped = False
        for i in range(count):
            for j in range(i + 1, min(i + 4, count)):
                if _swap_between(tables[i], tables[j], cost, value):
                    swapped = True
        if not swapped:
            break


class _Side:
    """One table of a pair (i, j) of T4.2's pass, as seen from the other: per
    place x, the cost of the pairs of its player at this table (own), the
    cost of pairs with the other table's players (cross), and the highest and
    lowest values at this table without place x."""

    def __init__(self, table: list[int], other: list[int], cost: Cost, value: Value) -> None:
        costs = [cost[p] for p in table]
        self.own = [sum(c.get(u, 0) for u in table) for c in costs]
        self.cross = [sum(c.get(v, 0) for v in other) for c in costs]
        values = [value[p] for p in table]
        rest = [values[:x] + values[x + 1 :] for x in range(len(values))]
        self.high = [max(r) for r in rest]
        self.low = [min(r) for r in rest]
        self.spread = max(values) - min(values)


def _swap_between(ti: list[int], tj: list[int], cost: Cost, value: Value) -> bool:
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


# ---- T4.2b: regroup-1 -------------------------------------------------------------


def regroup_1(
    tables: list[list[int]],
    met: Met,
    points: Points,
    weight: int,
    conflicts: Conflicts | None = None,
) -> Fraction:
    """T4.2b's procedure `regroup-1`, in place; returns W·(a) + (b) reached.

    First `swap-1` exactly as T4.2 says. Then passes until one changes
    nothing (at most 50), each in two parts: (1) exchanges, for i, for each
    of the next three tables j, for k = 1…min(|i|, |j|), for each set of k
    places of table i and each set of k places of table j (lexicographic
    order), of the players at x_r and y_r, r = 1…k, when that lowers the
    objective; (2) rotations, for i < j < l within three tables of i, for
    x, y, z: r to i[x], p to j[y], q to l[z] if that lowers it, then the
    other way round with the players now there.

    Skipped steps (not part of the procedure, the same tables): a step on
    two or three tables is skipped when no split of their players could
    lower their share of the objective: their share already equals a lower
    bound of every split's, the range of their values less the largest
    gaps between consecutive values (one gap per table but one), since
    each table's [lowest, highest] covers its values and the holes between
    them lie in distinct gaps; every pair's cost is ≥ 0. Nothing there
    could be a strict decrease."""
    cost, value = _integers(tables, met, points, weight, conflicts)
    _swap_passes(tables, cost, value)
    count = len(tables)
    for _ in range(MAX_PASSES):
        changed = False
        for i in range(count):  # part (1)
            for j in range(i + 1, min(i + 4, count)):
                for k in range(1, min(len(tables[i]), len(tables[j])) + 1):
                    if _settled((tables[i], tables[j]), cost, value):
                        break
                    if _exchange(tables[i], tables[j], k, cost, value):
                        changed = True
        for i in range(count):  # part (2)
            for j in range(i + 1, min(i + 4, count)):
                for m in range(j + 1, min(i + 4, count)):
                    group = (tables[i], tables[j], tables[m])
                    if not _settled(group, cost, value) and _rotate(*group, cost, value):
                        changed = True
        if not changed:
            break
    return objective(tables, met, points, weight)


def _repeats(table: Sequence[int], cost: Cost) -> int:
    return sum(cost[p].get(q, 0) for p, q in combinations(table, 2))


def _settled(group: Sequence[Sequence[int]], cost: Cost, value: Value) -> bool:
    """Whether no split of the group's players into tables of the same sizes
    has a lower share of the objective (``regroup_1``: the skipped steps)."""
    values = [[value[p] for p in table] for table in group]
    now = sum(max(v) - min(v) for v in values) + sum(_repeats(t, cost) for t in group)
    every = sorted(v for vs in values for v in vs)
    gaps = sorted((b - a for a, b in pairwise(every)), reverse=True)
    return now <= every[-1] - every[0] - sum(gaps[: len(group) - 1])


@cache
def _place_sets(size: int, k: int) -> tuple[tuple[int, ...], ...]:
    """The sets of k places of a table of ``size``, in lexicographic order."""
    return tuple(combinations(range(size), k))


_Set = tuple[tuple[int, ...], list[int], int, int | None, int | None, int, int]


class _Sets:
    """One table of an exchange step, for every set S of k of its places: the
    places, the players there, the cost change of taking them out and of
    their pairs with the other table (d), the highest and lowest value left
    (None when S is the whole table) and the highest and lowest value of the
    players in S."""

    def __init__(self, table: list[int], other: list[int], k: int, cost: Cost, value: Value):
        costs = [cost[p] for p in table]
        # Per place: pairs with the other table's players, less pairs at this table.
        d = [sum(c.get(v, 0) for v in other) - sum(c.get(u, 0) for u in table) for c in costs]
        values = [value[p] for p in table]
        self.spread = max(values) - min(values)
        self.sets: list[_Set] = []
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

    For P leaving table i and Q leaving table j, the pairs' cost changes by
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
                changed = True  # T4.2b: in place; go on with the next set of y's
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
        self.high = [max(r) if r else None for r in rest]
        self.low = [min(r) if r else None for r in rest]
        self.spread = max(values) - min(values)
        self.joining = {q: sum(cost[q].get(u, 0) for u in table) for q in others}

    def change(self, x: int, leaving: int, coming: int, cost: Cost, value: Value) -> int:
        """The table's share of the objective after ``coming`` replaces ``leaving``
        at place x, less its share now."""
        v = value[coming]
        repeats = self.joining[coming] - cost[coming].get(leaving, 0) - self.own[x]
        high, low = self.high[x], self.low[x]
        spread = 0 if high is None or low is None else max(high, v) - min(low, v)
        return repeats + spread - self.spread


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
                # the other way round: the one at j[y] to i[x], at l[z] to j[y], at i[x] to l[z]
                change = a.change(x, p, q, cost, value) + b.change(y, q, r, cost, value)
                if change + c.change(z, r, p, cost, value) < 0:
                    ta[x], tb[y], tc[z] = q, r, p
                    a, b, c = sides()
                    changed = True
    return changed
