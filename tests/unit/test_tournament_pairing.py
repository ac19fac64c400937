"""T4: pairing (T4.1 round 1, T4.2 `swap-1`) and seats (T4.3).

`swap-1` is checked against a reference written straight from T4.2's text,
which recomputes the whole objective in fractions for every candidate swap.
"""

from __future__ import annotations

import hashlib
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domain.shuffle import shuffle
from domain.tournaments import pairing
from domain.tournaments.pairing import (
    PROCEDURE,
    objective,
    pair_first_round,
    pair_later_round,
    pairs_met,
    swap_1,
)
from domain.tournaments.seating import seat_order, seat_table
from domain.tournaments.tables import TableSizes, cut, fewest_byes

SEED = bytes(range(32))
DEFAULT = TableSizes()
F = Fraction


def reference_swap_1(
    tables: list[list[int]],
    met: dict[tuple[int, int], int],
    points: dict[int, Fraction],
    weight: int,
) -> Fraction:
    """T4.2's `swap-1` as written: passes until one makes no swap (at most 50);
    for i, for j = i+1…min(i+3, T), for x, for y: exchange table i[x] and
    table j[y] in place if that lowers W·(a) + (b)."""
    count = len(tables)
    current = objective(tables, met, points, weight)
    for _ in range(50):
        swapped = False
        for i in range(count):
            for j in range(i + 1, min(i + 3, count - 1) + 1):
                for x in range(len(tables[i])):
                    for y in range(len(tables[j])):
                        tables[i][x], tables[j][y] = tables[j][y], tables[i][x]
                        after = objective(tables, met, points, weight)
                        if after < current:
                            current, swapped = after, True
                        else:
                            tables[i][x], tables[j][y] = tables[j][y], tables[i][x]
        if not swapped:
            break
    return current


@st.composite
def swap_cases(
    draw: st.DrawFn,
) -> tuple[list[list[int]], dict[tuple[int, int], int], dict[int, Fraction], int]:
    """Tables of 2–5 players, pairs met 0–3 times, match points with the
    denominators shared places and penalties make, a weight W."""
    sizes = draw(st.lists(st.integers(2, 5), min_size=1, max_size=8))
    players = draw(st.permutations(range(1, sum(sizes) + 1)))
    tables = cut(players, sizes)
    pairs = [(p, q) for p in players for q in players if p < q]
    met = draw(st.dictionaries(st.sampled_from(pairs), st.integers(1, 3), max_size=len(pairs)))
    denominator = draw(st.sampled_from([1, 2, 3, 4, 6, 16]))
    points = {
        p: F(draw(st.integers(-2, 60)), denominator)
        for p in players
        if draw(st.integers(0, 9))  # a few absent: 0 points
    }
    return tables, met, points, draw(st.integers(1, 8))


# T4.1


def test_T4_1_round_1_order_is_the_shuffle_cut_in_T3_order() -> None:
    players = list(range(1, 14))
    result = pair_first_round(players, SEED, DEFAULT, 6)
    order = shuffle(players, hashlib.sha256(SEED + b"order").digest())
    assert result.tables == cut(order, (5, 4, 4))
    assert result.byes == []
    assert result.objective == 0


def test_T4_1_round_1_byes_are_the_end_of_the_shuffled_order() -> None:
    players = [3, 1, 7, 5, 2, 4, 6]  # registration numbers, in no order
    result = pair_first_round(players, SEED, TableSizes(4, 4, 5), 6)
    order = shuffle([1, 2, 3, 4, 5, 6, 7], hashlib.sha256(SEED + b"order").digest())
    assert result.tables == [order[:5]]
    assert result.byes == sorted(order[5:])


def test_T4_1_round_1_records_the_objective_and_makes_no_swap() -> None:
    players = list(range(1, 9))
    met = {(p, q): 1 for p in players for q in players if p < q}
    points = {1: F(-1, 2), 2: F(-3, 2)}  # penalties before round 1
    result = pair_first_round(players, SEED, DEFAULT, 6, points=points, met=met)
    order = shuffle(players, hashlib.sha256(SEED + b"order").digest())
    assert result.tables == cut(order, (4, 4))
    assert result.objective == objective(result.tables, met, points, 6)
    assert result.objective == 6 * 12 + sum(
        max(points.get(p, F(0)) for p in t) - min(points.get(p, F(0)) for p in t)
        for t in result.tables
    )


def test_T1_2_the_procedure_is_named_swap_1() -> None:
    assert PROCEDURE == "swap-1"


# T4.2


def test_T4_2_objective_is_W_times_repeats_squared_plus_spreads() -> None:
    tables = [[1, 2, 3], [4, 5, 6]]
    met = {(1, 2): 2, (1, 3): 1, (4, 6): 1, (1, 4): 3}  # (1, 4) are not at one table
    points = {1: F(12), 2: F(17, 2), 4: F(3, 16), 5: F(1, 2), 6: F(-1, 2)}
    # (a) = 2² + 1² + 1² = 6; (b) = (12 − 0) + (1/2 − (−1/2)) = 13.
    assert objective(tables, met, points, 6) == 6 * 6 + 13


def test_T4_2_pairs_met_counts_rounds_not_tables() -> None:
    rounds = [[[1, 2, 3], [4, 5, 6]], [[3, 2, 5], [1, 4, 6]], [[2, 3, 4]]]
    met = pairs_met(rounds)
    assert met[(2, 3)] == 3
    assert met[(1, 2)] == 1
    assert met[(4, 6)] == 2
    assert met[(2, 5)] == 1
    assert (1, 5) not in met
    assert all(p < q for p, q in met)


def test_T4_2_hand_worked_a_swap_that_lowers_the_objective_is_made() -> None:
    # 1 and 2 met once: W·1 = 6. Pass 1, i = 1, j = 2, x = 1, y = 1: exchanging
    # 1 and 4 gives 0 < 6: made. Then y = 2, 3 with 4 at table 1[1]: no change
    # lowers 0, nor does any later one; pass 2 makes no swap.
    tables = [[1, 2, 3], [4, 5, 6]]
    assert swap_1(tables, {(1, 2): 1}, {}, 6) == 0
    assert tables == [[4, 2, 3], [1, 5, 6]]


def test_T4_2_hand_worked_a_swap_that_only_equals_the_objective_is_not_made() -> None:
    # Objective 6·1 (1 and 2 met) + 0 + 0 = 6. Exchanging 1 or 2 with 4, 5 or 6
    # gives 0 + 3 + 3 = 6: not lower, so no swap; any other exchange is worse.
    points = {1: F(12), 2: F(12), 3: F(12), 4: F(9), 5: F(9), 6: F(9)}
    tables = [[1, 2, 3], [4, 5, 6]]
    assert swap_1(tables, {(1, 2): 1}, points, 6) == 6
    assert tables == [[1, 2, 3], [4, 5, 6]]
    # With 4–6 at 10 the same exchange gives 2 + 2 = 4 < 6: made, at the first chance.
    points |= {4: F(10), 5: F(10), 6: F(10)}
    assert swap_1(tables, {(1, 2): 1}, points, 6) == 4
    assert tables == [[4, 2, 3], [1, 5, 6]]


def test_T4_2_exact_arithmetic_sees_a_difference_of_one_sixteenth() -> None:
    points = {1: F(12), 2: F(12), 3: F(12), 4: F(9), 5: F(9), 6: F(9)}
    points[4] = F(9) + F(1, 16)  # exchanging 1 and 4 now gives 6 − 1/8 < 6
    tables = [[1, 2, 3], [4, 5, 6]]
    assert swap_1(tables, {(1, 2): 1}, points, 6) == 6 - F(1, 16)
    assert tables == [[4, 2, 3], [1, 5, 6]]


def test_T4_2_swaps_reach_only_the_next_three_tables() -> None:
    # 1 and 2 met; the only fix is a player of table 5 (all others met both),
    # which is 4 tables away from table 1: no swap.
    tables = [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]]
    met = {(p, q): 1 for p in (1, 2) for q in range(3, 9)} | {(1, 2): 1}
    assert swap_1(tables, met, {}, 6) == 6
    assert tables == [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]]


def _travelling_case(count: int) -> tuple[list[list[int]], dict[tuple[int, int], int]]:
    """Player 1 sits at the last of ``count`` tables of two and has met each
    player of table k (from 0) k + 1 times: every pass moves player 1 exactly
    three tables up (at i = its table − 3, x = 1, y = 1), no further."""
    tables = [[2 * k + 2, 2 * k + 3] for k in range(count)]
    tables[-1][0] = 1
    met = {(1, p): k + 1 for k, table in enumerate(tables) for p in table if p != 1}
    return tables, met


def test_T4_2_swap_1_stops_after_50_passes() -> None:
    tables, met = _travelling_case(200)
    swap_1(tables, met, {}, 6)
    # 50 passes moved player 1 from table 199 to table 199 − 3·50 = 49 (from 0).
    assert [k for k, t in enumerate(tables) if 1 in t] == [49]
    assert tables[49][0] == 1
    before = [list(t) for t in tables]
    swap_1(tables, met, {}, 6)  # a 51st pass would still swap
    assert tables != before


def test_T4_2_without_the_cap_the_travelling_case_ends_at_table_1(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pairing, "MAX_PASSES", 1000)
    tables, met = _travelling_case(200)
    assert swap_1(tables, met, {}, 6) == 6 * 1**2
    assert tables[0][0] == 1


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(swap_cases())
def test_T4_2_swap_1_equals_the_reference(
    case: tuple[list[list[int]], dict[tuple[int, int], int], dict[int, Fraction], int],
) -> None:
    tables, met, points, weight = case
    expected = [list(t) for t in tables]
    reached = reference_swap_1(expected, met, points, weight)
    assert swap_1(tables, met, points, weight) == reached
    assert tables == expected


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5), st.randoms(use_true_random=False))
def test_T4_2_swap_1_equals_the_reference_with_few_distinct_points(
    size: int, rng: random.Random
) -> None:
    # Many ties: standings-like points (steps of 3, a few penalties of 1/2).
    players = list(range(1, 6 * size + 1))
    rng.shuffle(players)
    tables = cut(players, [size] * 6)
    met = pairs_met([cut(rng.sample(players, len(players)), [size] * 6) for _ in range(3)])
    points = {p: F(3 * rng.randrange(6)) - F(rng.randrange(2), 2) for p in players}
    expected = [list(t) for t in tables]
    reached = reference_swap_1(expected, met, points, 6)
    assert swap_1(tables, met, points, 6) == reached
    assert tables == expected


def test_T4_2_later_round_cuts_the_standings_then_swaps() -> None:
    ranked = [1, 2, 3, 4, 5, 6]
    points = {p: F(12) for p in ranked}
    result = pair_later_round(ranked, {}, {(1, 2): 1}, points, TableSizes(3, 3, 3), 6)
    assert result.tables == [[4, 2, 3], [1, 5, 6]]
    assert result.byes == []
    assert result.objective == 0


def test_T3_2_later_round_byes_go_to_fewest_byes_then_the_bottom() -> None:
    ranked = [1, 2, 3, 4, 5, 6, 7]  # 4/4/5: 7 players, 2 byes (T3.2)
    sizes = TableSizes(4, 4, 5)
    result = pair_later_round(ranked, {7: 1}, {}, {}, sizes, 6)
    assert result.byes == [5, 6]
    assert result.tables == [[1, 2, 3, 4, 7]]
    result = pair_later_round(ranked, {5: 1, 6: 2, 7: 1}, {}, {}, sizes, 6)
    assert result.byes == [3, 4]
    assert result.tables == [[1, 2, 5, 6, 7]]


@settings(max_examples=100, deadline=None)
@given(
    st.tuples(st.integers(2, 5), st.integers(2, 5), st.integers(2, 5)).map(sorted),
    st.integers(0, 60),
    st.randoms(use_true_random=False),
)
def test_T4_every_active_player_is_at_one_table_or_has_a_bye(
    bounds: list[int], extra: int, rng: random.Random
) -> None:
    sizes = TableSizes(*bounds)
    players = rng.sample(range(1, 200), sizes.min + extra)
    first = pair_first_round(players, rng.randbytes(32), sizes, 6)
    met = pairs_met([first.tables])
    points = {p: F(rng.randrange(25), rng.choice([1, 2, 3])) for p in players}
    byes = {p: rng.randrange(2) for p in players}
    weight = rng.randrange(1, 9)
    later = pair_later_round(players, byes, met, points, sizes, weight)
    for result in (first, later):
        seated = [p for t in result.tables for p in t]
        assert sorted(seated + result.byes) == sorted(players)
        assert result.byes == sorted(result.byes)
        assert all(sizes.min <= len(t) <= sizes.max for t in result.tables)
        count, parts = fewest_byes(len(players), sizes)
        assert len(result.byes) == count
        assert [len(t) for t in result.tables] == list(parts)  # T3.1: largest first
    # T3.2: fewest byes so far, then lowest ranked (``players`` is the standings here).
    rank = {p: k for k, p in enumerate(players)}
    due = sorted(players, key=lambda p: (byes[p], -rank[p]))[: len(later.byes)]
    assert later.byes == sorted(due)
    assert later.objective == objective(later.tables, met, points, weight)


# T4.3


def test_T4_3_seat_order_is_the_shuffle_of_all_active_players() -> None:
    players = [5, 3, 9, 1]
    order = shuffle([1, 3, 5, 9], hashlib.sha256(SEED + b"seats").digest())
    assert seat_order(players, SEED) == {p: k for k, p in enumerate(order)}


def test_T4_3_without_history_seats_follow_the_order() -> None:
    order = {7: 0, 3: 1, 9: 2, 4: 3}
    assert seat_table([3, 4, 7, 9], {}, order) == [7, 3, 9, 4]


def test_T4_3_a_player_who_had_seat_0_does_not_get_it_before_one_who_never_had() -> None:
    order = {1: 0, 2: 1, 3: 2}
    history = {1: [(0, 4)], 2: [(1, 4)], 3: [(2, 4)]}
    # Seat 0: 2 and 3 never had seat 0; 3's load 1/3 < 2's 2/3: 3.
    # Seat 1: 1 and 2 each had one game at a seat ≤ 1; 2's load 2/3 < 1's 1: 2.
    assert seat_table([1, 2, 3], history, order) == [3, 2, 1]


def test_T4_3_load_breaks_ties_of_earlier_seats() -> None:
    # Neither had seat 0; 2's load (3 − 1 − 1)/2 = 1/2 is lower than 1's
    # (5 − 1 − 1)/4 = 3/4: seat 0 goes to 2, although 1 is first in the order.
    history = {1: [(1, 5)], 2: [(1, 3)]}
    assert seat_table([1, 2], history, {1: 0, 2: 1}) == [2, 1]


def test_T4_3_equal_loads_as_exact_fractions_fall_to_the_order() -> None:
    # 1/2 from seat 1 of 3 and 2/4 from seat 2 of 5: equal; the order decides.
    history = {1: [(1, 3)], 2: [(2, 5)]}
    assert seat_table([1, 2], history, {1: 1, 2: 0}) == [2, 1]
    assert seat_table([1, 2], history, {1: 0, 2: 1}) == [1, 2]


def test_T4_3_fewest_games_at_a_seat_up_to_k_decides_before_the_load() -> None:
    # 1 never had seat 0 (load 3/4 + 3/4 = 3/2); 2 had it once (load 1): seat 0 is 1's.
    history = {1: [(1, 5), (1, 5)], 2: [(0, 4)]}
    assert seat_table([2, 1], history, {1: 1, 2: 0}) == [1, 2]
