"""T4.2b (`regroup-1`) and T11.2 (the objective with (c), compared first) at
the level of the procedures (domain/tournaments/pairing.py), held to the
oracle's procedures (tests/tournament_oracle.py), which recompute the whole
objective in fractions for every candidate, as the text words it; and the
properties the text states: never above `swap-1`, two tables reach the
optimum, a lone constrained pair never shares a table, no penalty makes one.
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.tournaments.pairing import (
    REGROUP_1,
    SWAP_1,
    Apart,
    conflicts_at,
    objective,
    pair_first_round,
    pair_later_round,
    regroup_1,
    swap_1,
    table_shares,
)
from domain.tournaments.tables import TableSizes, cut
from tests import tournament_oracle as oracle

F = Fraction
Met = dict[tuple[int, int], int]
Points = dict[int, Fraction]
Conflicts = frozenset[tuple[int, int]]
Case = tuple[list[list[int]], Met, Points, int, Conflicts | None]


@st.composite
def cases(draw: st.DrawFn, max_tables: int = 6, conflicted: bool | None = None) -> Case:
    """Tables of 2–5 players, pairs met 0–3 times, match points with the
    denominators shared places and penalties make, W, and (sometimes) the
    pairs a team or a constraint joins."""
    sizes = draw(st.lists(st.integers(2, 5), min_size=1, max_size=max_tables))
    players = draw(st.permutations(range(1, sum(sizes) + 1)))
    tables = cut(players, sizes)
    pairs = [(p, q) for p in players for q in players if p < q]
    met = draw(st.dictionaries(st.sampled_from(pairs), st.integers(1, 3), max_size=len(pairs)))
    denominator = draw(st.sampled_from([1, 2, 3, 4, 6]))
    points = {p: F(draw(st.integers(-2, 48)), denominator) for p in players if draw(st.booleans())}
    with_conflicts = draw(st.booleans()) if conflicted is None else conflicted
    conflicts = None
    if with_conflicts:
        conflicts = frozenset(draw(st.lists(st.sampled_from(pairs), max_size=6)))
    return tables, met, points, draw(st.integers(1, 8)), conflicts


def oracle_run(procedure: str, case: Case) -> list[list[int]]:
    tables, met, points, weight, conflicts = case
    out = [list(t) for t in tables]
    oracle.PROCEDURES[procedure](out, oracle.Terms(met, points, weight, conflicts))
    return out


def service_run(procedure: str, case: Case) -> tuple[list[list[int]], Fraction]:
    tables, met, points, weight, conflicts = case
    out = [list(t) for t in tables]
    run = regroup_1 if procedure == REGROUP_1 else swap_1
    return out, run(out, met, points, weight, conflicts)


def value(case: Case, tables: list[list[int]]) -> tuple[int, Fraction]:
    _, met, points, weight, conflicts = case
    return oracle.Terms(met, points, weight, conflicts).value(tables)


# ---- T4.2b: regroup-1 as its text words it ---------------------------------------------


@pytest.mark.slow
@settings(max_examples=250, deadline=None)
@given(cases())
def test_T4_2b_regroup_1_equals_the_oracles_reading(case: Case) -> None:
    tables, reached = service_run(REGROUP_1, case)
    assert tables == oracle_run(REGROUP_1, case)
    _, met, points, weight, _ = case
    assert reached == objective(tables, met, points, weight)


@settings(max_examples=25, deadline=None)
@given(cases(max_tables=4))
def test_T4_2b_regroup_1_equals_the_oracles_reading_on_small_rounds(case: Case) -> None:
    assert service_run(REGROUP_1, case)[0] == oracle_run(REGROUP_1, case)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(cases(conflicted=True))
def test_T11_2_swap_1_with_c_first_equals_the_oracles_reading(case: Case) -> None:
    assert service_run(SWAP_1, case)[0] == oracle_run(SWAP_1, case)


@settings(max_examples=30, deadline=None)
@given(cases(max_tables=4, conflicted=True))
def test_T11_2_swap_1_with_c_first_equals_the_oracles_reading_on_small_rounds(
    case: Case,
) -> None:
    assert service_run(SWAP_1, case)[0] == oracle_run(SWAP_1, case)


@settings(max_examples=60, deadline=None)
@given(cases())
def test_T4_2b_and_T11_2_regroup_1_never_ends_above_swap_1(case: Case) -> None:
    """((c), then W·(a) + (b)) of `regroup-1` is never above `swap-1`'s on the
    same input: it starts from `swap-1`'s tables and makes strict decreases."""
    by_swap, _ = service_run(SWAP_1, case)
    by_regroup, _ = service_run(REGROUP_1, case)
    assert value(case, by_regroup) <= value(case, by_swap)


def every_split(players: list[int], sizes: list[int]) -> list[list[list[int]]]:
    """Every split of ``players`` into two tables of the given sizes."""
    first = sizes[0]
    return [
        [list(chosen), [p for p in players if p not in chosen]]
        for chosen in combinations(players, first)
    ]


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 5),
    st.integers(2, 5),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_T4_2b_a_round_of_two_tables_reaches_the_optimum(
    one: int, two: int, conflicted: bool, rng: random.Random
) -> None:
    players = list(range(1, one + two + 1))
    rng.shuffle(players)
    tables = cut(players, [one, two])
    pairs = list(combinations(sorted(players), 2))
    met = {pair: rng.randrange(4) for pair in rng.sample(pairs, len(pairs) // 2)}
    points = {p: F(rng.randrange(30), rng.choice([1, 2, 3])) for p in players}
    conflicts = frozenset(rng.sample(pairs, 3)) if conflicted else None
    case: Case = (tables, met, points, 6, conflicts)
    reached, _ = service_run(REGROUP_1, case)
    best = min(value(case, split) for split in every_split(sorted(players), [one, two]))
    assert value(case, reached) == best


def test_T4_2b_hand_worked_an_exchange_of_two_is_made_where_no_single_swap_helps() -> None:
    """Tables {1, 2, 3, 4} and {5, 6, 7, 8}, W = 1; the pairs that met: 1–5,
    1–7, 3–8, 4–8, 7–8. Only 7–8 repeats (objective 1), and every single
    exchange leaves one repeat (7 or 8 leaving meets 1, 3 or 4, or leaves
    1 meeting 5 or 7): `swap-1` stops at 1. Part (1) with k = 2, places
    {1, 2} of table 1 and {1, 3} of table 2 (the first sets, in
    lexicographic order, that lower it): 1 ↔ 5 and 2 ↔ 7 give {5, 7, 3, 4}
    and {1, 6, 2, 8}, no repeat."""
    met = {(1, 5): 1, (1, 7): 1, (3, 8): 1, (4, 8): 1, (7, 8): 1}
    tables = [[1, 2, 3, 4], [5, 6, 7, 8]]
    by_swap = [list(t) for t in tables]
    assert swap_1(by_swap, met, {}, 1) == 1
    assert by_swap == tables
    reached = [list(t) for t in tables]
    assert regroup_1(reached, met, {}, 1) == 0
    assert reached == [[5, 7, 3, 4], [1, 6, 2, 8]]
    assert reached == oracle_run(REGROUP_1, (tables, met, {}, 1, None))


def test_T4_2b_hand_worked_a_rotation_the_other_way_round() -> None:
    """Tables {1, 2}, {3, 4}, {5, 6}; match points 0, 12, 12, 12, 0, 0; W = 1;
    3–4 met (and 1–3, 1–4). Objective 12 + (0 + 1) + 0 = 13, and no
    exchange between two tables lowers it. Part (2) at x = y = z = 1
    (p, q, r = 1, 3, 5): the first direction (5, 1, 3) gives 12 + 13 + 12;
    the other way round, 3 to table 1, 5 to table 2 and 1 to table 3,
    gives {3, 2}, {5, 4}, {1, 6}: 0 + 12 + 0 = 12."""
    tables = [[1, 2], [3, 4], [5, 6]]
    points = {1: F(0), 2: F(12), 3: F(12), 4: F(12), 5: F(0), 6: F(0)}
    met = {(1, 3): 1, (1, 4): 1, (3, 4): 1}
    case: Case = (tables, met, points, 1, None)
    by_swap, at = service_run(SWAP_1, case)
    assert (by_swap, at) == (tables, F(13))
    reached, at = service_run(REGROUP_1, case)
    assert (reached, at) == ([[3, 2], [5, 4], [1, 6]], F(12))
    assert reached == oracle_run(REGROUP_1, case)


# ---- T11.2: the objective with (c) ---------------------------------------------------------


def test_T11_2_one_pair_fewer_outweighs_any_difference_in_a_and_b() -> None:
    """1 and 2 are constrained; moving 2 away costs W·m² = 1000·9 and a
    spread of 48: still made, (c) first."""
    tables = [[1, 2, 3], [4, 5, 6]]
    met = {(1, 4): 3, (1, 5): 3, (1, 6): 3, (3, 4): 3, (3, 5): 3, (3, 6): 3}
    points = {1: F(0), 2: F(0), 3: F(0), 4: F(48), 5: F(48), 6: F(48)}
    reached = [list(t) for t in tables]
    swap_1(reached, met, points, 1000, frozenset({(1, 2)}))
    assert conflicts_at(reached, {(1, 2)}) == 0
    assert objective(reached, met, points, 1000) > objective(tables, met, points, 1000)


@settings(max_examples=80, deadline=None)
@given(
    st.integers(6, 30),
    st.sampled_from([SWAP_1, REGROUP_1]),
    st.randoms(use_true_random=False),
)
def test_T11_2_a_lone_constrained_pair_with_two_or_more_tables_never_shares_one(
    n: int, procedure: str, rng: random.Random
) -> None:
    """Whatever the repeats, the spread and the penalties (points from −12,
    halves), a pair constrained alone ends at two tables, in round 1 (T4.1
    improved under T11.2) and later (T4.2), by either procedure."""
    sizes = TableSizes(3, 3, 3) if n < 8 else TableSizes()
    players = list(range(1, n + 1))
    pair = tuple(sorted(rng.sample(players, 2)))
    met = {p: rng.randrange(5) for p in combinations(players, 2) if rng.random() < 0.4}
    points = {p: F(rng.randrange(-24, 60), 2) for p in players}
    conflicts = frozenset({(pair[0], pair[1])})
    first = pair_first_round(
        players, rng.randbytes(32), sizes, 6, points, met, conflicts, procedure
    )
    ranked = sorted(players, key=lambda p: -points[p])
    later = pair_later_round(ranked, {}, met, points, sizes, 6, conflicts, procedure)
    for pairing in (first, later):
        if len(pairing.tables) >= 2 and not set(pair) & set(pairing.byes):
            assert pairing.conflicts == 0
            assert not any(set(pair) <= set(table) for table in pairing.tables)


def test_T11_2_round_1_is_improved_only_where_there_is_a_team_or_a_constraint() -> None:
    """Two players penalised before round 1 sit at two tables of T4.1's cut
    (spread 3 each). Without a team or a constraint the cut is kept (T4.1);
    with one (here a team no one shares: ``conflicts`` empty, (c) = 0) the
    procedure puts them together (T11.2): spread 3 in all."""
    players = list(range(1, 14))
    seed = bytes(range(32))
    cut_tables = pair_first_round(players, seed, TableSizes(), 6).tables
    penalised = {cut_tables[0][0]: F(-3), cut_tables[1][0]: F(-3)}
    plain = pair_first_round(players, seed, TableSizes(), 6, penalised, {})
    assert plain.tables == cut_tables and plain.objective == 6
    for procedure in (SWAP_1, REGROUP_1):
        improved = pair_first_round(
            players, seed, TableSizes(), 6, penalised, {}, frozenset(), procedure
        )
        assert improved.objective == 3
        assert any(set(penalised) <= set(table) for table in improved.tables)


def test_T11_3_a_tables_shares_are_its_terms() -> None:
    met = {(1, 2): 2, (2, 3): 1, (1, 4): 5}
    points = {1: F(7, 2), 2: F(12), 3: F(-1, 2)}
    shares = table_shares([1, 2, 3], met, points, {(1, 3), (2, 9)})
    assert (shares.a, shares.b, shares.c) == (5, F(25, 2), 1)
    assert oracle.Terms(met, points, 6, frozenset({(1, 3), (2, 9)})).shares([1, 2, 3]) == (
        5,
        F(25, 2),
        1,
    )
    assert table_shares([1, 2, 3], met, points).c == 0  # no team, no constraint: 0


@settings(max_examples=80, deadline=None)
@given(
    st.integers(6, 24),
    st.sampled_from([SWAP_1, REGROUP_1]),
    st.integers(1, 60),
    st.randoms(use_true_random=False),
)
def test_T11_2_no_penalty_makes_a_constrained_pair_share_a_table(
    n: int, procedure: str, penalty: int, rng: random.Random
) -> None:
    """The constrained pair alone carry penalties (halves, up to 30 match
    points) that would put them together by W·(a) + (b): together their
    spread is 0, apart each spreads a table. (c) comes first: apart."""
    sizes = TableSizes()  # 3/4/5: no byes
    players = list(range(1, n + 1))
    pair = (players[0], players[1])
    points = {p: F(12) for p in players} | {p: F(12) - F(penalty, 2) for p in pair}
    conflicts = frozenset({pair})
    ranked = [p for p in players if p not in pair] + list(pair)  # the pair at the bottom
    together = pair_later_round(ranked, {}, {}, points, sizes, 6)
    assert any(set(pair) <= set(t) for t in together.tables)  # W·(a) + (b) alone joins them
    first = pair_first_round(players, rng.randbytes(32), sizes, 6, points, {}, conflicts, procedure)
    later = pair_later_round(ranked, {}, {}, points, sizes, 6, conflicts, procedure)
    for pairing in (first, later):
        if not set(pair) & set(pairing.byes):
            assert pairing.conflicts == 0
            assert not any(set(pair) <= set(t) for t in pairing.tables)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    st.integers(7, 40),
    st.integers(1, 5),
    st.sampled_from([SWAP_1, REGROUP_1]),
    st.randoms(use_true_random=False),
)
def test_T11_2_teams_by_key_pair_as_every_pair_listed_and_as_the_oracle(
    n: int, teams: int, procedure: str, rng: random.Random
) -> None:
    """Teams given by each player's key (``Apart``, never listing a team's
    pairs) give the very tables, (c) and shares the explicit pairs give, and
    the oracle's tables; a constrained pair of one team counts once."""
    players = list(range(1, n + 1))
    keyed = {p: f"t{rng.randrange(teams)}" for p in players if rng.random() < 0.8}
    constraints = {tuple(sorted(rng.sample(players, 2))) for _ in range(rng.randrange(3))}
    listed = frozenset(
        {(p, q) for p, q in combinations(players, 2) if p in keyed and keyed[p] == keyed.get(q)}
        | {(p, q) for p, q in constraints}
    )
    apart = Apart(keyed, frozenset((p, q) for p, q in constraints))
    met = {p: rng.randrange(3) for p in combinations(players, 2) if rng.random() < 0.3}
    points = {p: F(rng.randrange(0, 40), 2) for p in players}
    ranked = sorted(players, key=lambda p: (-points[p], p))
    sizes = TableSizes()
    by_key = pair_later_round(ranked, {}, met, points, sizes, 6, apart, procedure)
    by_pair = pair_later_round(ranked, {}, met, points, sizes, 6, listed, procedure)
    assert by_key == by_pair
    assert conflicts_at(by_key.tables, apart) == conflicts_at(by_key.tables, listed)
    for table in by_key.tables:
        assert table_shares(table, met, points, apart) == table_shares(table, met, points, listed)
    seated = [p for p in ranked if p not in by_key.byes]
    tables = cut(seated, [len(t) for t in by_key.tables])
    oracle.PROCEDURES[procedure](tables, oracle.Terms(met, points, 6, listed))
    assert tables == by_key.tables
